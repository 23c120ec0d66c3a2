import HealthGATT
import VitalCore

// The band's clock: its characteristic, its bytes, how the hub judges it and re-times what the band dated by it.
// VitalBridge's own, as the rest of the band codec: the SDK declares `responseOfGetTime:` but no call for it.

extension SmartbandGATT {
    /// 0xFFD3: the band's clock, read and written as a ``BandTime`` (read: what the clock shows; write: set it).
    public static let time: UInt16 = 0xFFD3
    /// How far the band's clock may be off, in seconds, before the hub sets it.
    public static let clockTolerance: Int64 = 2
    /// A band whose clock shows a time before this restarted it (a flat battery, a factory reset): 2001-01-01.
    public static let earliestSetTime = Timestamp(secondsSince1970: 978_307_200)
}

extension GATTCharacteristics {
    public static let bandTime = CharacteristicID(service: SmartbandGATT.service, characteristic: SmartbandGATT.time)
}

/// What the band's clock shows, as 0xFFD3 holds it: `yyyy mm dd hh mi ss`, the year a little-endian u16, seven
/// bytes (`EA 07 0B 1D 07 28 0C` is 2026-11-29 07:40:12). The band keeps no time zone: it shows the time it was set
/// to, in whole seconds.
public struct BandTime: Hashable, Sendable {
    /// The time the clock shows.
    public var time: Timestamp

    public init(_ time: Timestamp) { self.time = time }

    public var encoded: [UInt8] {
        var writer = BandWriter()
        writer.date(time.day)
        let second = Int(time.secondsSince1970 - time.day.daysSince1970 * 86_400)
        writer.u8(second / 3_600)
        writer.u8(second / 60 % 60)
        writer.u8(second % 60)
        return writer.bytes
    }

    /// Decodes a read of 0xFFD3.
    ///
    /// - Throws: `GATTError` naming the field and byte offset of a short value, an impossible date, hour, minute
    ///   or second, or bytes left over.
    public init(bytes: [UInt8]) throws(GATTError) {
        var reader = ByteReader(bytes, characteristic: "band time")
        let date = try reader.date("date")
        for (field, limit) in [("hour", 24), ("minute", 60), ("second", 60)] {
            let offset = reader.offset
            guard try reader.u8(field) < limit else { throw reader.error(.invalidValue, field, at: offset) }
        }
        try reader.finish()
        let (hour, minute, second) = (Int64(bytes[4]), Int64(bytes[5]), Int64(bytes[6]))
        time = Timestamp(secondsSince1970: date.daysSince1970 * 86_400 + hour * 3_600 + minute * 60 + second)
    }
}

/// What the hub learned of a band's clock on one link, before the band sent anything: what it showed, how far it was
/// off, whether it had restarted, and whether the hub set it; and how each item the band sends on the link is placed
/// (``place(_:at:)``).
public struct BandClockReading: Hashable, Sendable {
    /// What the band's clock showed.
    public var bandTime: Timestamp
    /// The hub's clock when it read the band's.
    public var hubTime: Timestamp
    /// Whether the clock had restarted: it showed a time before 2001, or over a day before the band was added.
    public var wasReset: Bool
    /// Whether the hub set the clock on this link (it was more than ``SmartbandGATT/clockTolerance`` off).
    public var wasSet = false
    /// The minutes the link's items are moved back by: the offset to the nearest minute, or the minutes an earlier
    /// link used when this offset is within a minute of them (``init(bandTime:hubTime:addedAt:earlier:)``).
    public private(set) var minutes: Int
    /// Before this time an item was dated by the restarted clock (2001, or a day before the band was added).
    let restartedBefore: Timestamp

    /// How far the band's clock was ahead of the hub's, in seconds (negative: behind).
    public var offset: Int64 { bandTime.secondsSince1970 - hubTime.secondsSince1970 }

    /// Whether the hub sets the clock: it is more than ``SmartbandGATT/clockTolerance`` off.
    public var needsSetting: Bool { offset.magnitude > SmartbandGATT.clockTolerance.magnitude }

    /// The reading of a band clock showing `bandTime` when the hub's showed `hubTime`, for a band added at
    /// `addedAt`. `earlier` is how the last item stored from the band was dated: when the clock is still off by
    /// within a minute of the minutes it was moved by (the band's clock was not set since, and the hub's clock read a
    /// second apart may round the offset the other way), the same minutes are used, so that an item sent again after
    /// a drop is moved as it was the first time and replaces its stored self.
    public init(bandTime: Timestamp, hubTime: Timestamp, addedAt: Timestamp? = nil, earlier: BandItemDating? = nil) {
        self.bandTime = bandTime
        self.hubTime = hubTime
        // a day's margin: a clock seconds or hours behind on the day the band was added was not restarted
        let dayBeforeAdded = addedAt.map { Timestamp(secondsSince1970: $0.secondsSince1970 - 86_400) }
        restartedBefore = max(SmartbandGATT.earliestSetTime, dayBeforeAdded ?? SmartbandGATT.earliestSetTime)
        let offset = bandTime.secondsSince1970 - hubTime.secondsSince1970
        wasReset = -offset > SmartbandGATT.clockTolerance && bandTime < restartedBefore
        minutes = Int((Double(offset) / 60).rounded())
        if let earlier, earlier.clockRead, earlier.minutes != 0, (offset - Int64(earlier.minutes) * 60).magnitude <= 61,
            offset.magnitude > SmartbandGATT.clockTolerance
        {
            minutes = earlier.minutes
        }
    }

    /// `item`, received when the hub's clock shows `now`, as the hub stores it, and how it was dated:
    /// - today's totals dated with the band's today (the day its clock shows at `now`), then moved as a day's totals
    ///   are, to the hub's day holding most of it: a band 2 h ahead at the hub's 23:00 counts the next day already,
    ///   and its totals are that day's, never the full day's before;
    /// - an item the band dated by its clock moved back by ``minutes`` (``BandItem/movedBack(byMinutes:)``), marked
    ///   as dated by a restarted clock when the clock had restarted and the item's date is before
    ///   `restartedBefore`; an item a restarted clock holds from before it restarted keeps its date;
    /// - a clock too far off for its minutes to be kept (``BandItemDating``) leaves the item as dated, its clock
    ///   counted as unread.
    public func place(_ item: BandItem, at now: Timestamp) -> (item: BandItem, dating: BandItemDating) {
        let dated = item.dated(today: Timestamp(secondsSince1970: now.secondsSince1970 + offset).day)
        guard minutes.magnitude <= BandItemDating.largestMinutes.magnitude else {
            return (dated, .unread)
        }
        if wasReset, let date = dated.date, date >= restartedBefore.day {
            return (dated, BandItemDating(clockRead: true, clockWasReset: false, minutes: 0))
        }
        let dating = BandItemDating(clockRead: true, clockWasReset: wasReset, minutes: minutes)
        return (dated.movedBack(byMinutes: minutes), dating)
    }
}

/// How the hub dated a band's item as it stored it: whether the band's clock was read on the link that brought it,
/// whether that clock had restarted, and how many minutes the item was moved by. Kept in the stored item's sequence
/// number (``BandItem/storedBytes(dating:)``), which a stored item has no other use for: bit 31 the clock was read,
/// bit 30 it had restarted, bits 0–29 the minutes, signed. An item stored before VitalBridge read band clocks has 0:
/// its clock unread.
public struct BandItemDating: Hashable, Sendable {
    /// Whether the band's clock was read on the link that brought the item: its time is the hub's.
    public var clockRead: Bool
    /// Whether that clock had restarted: the item's time is what the restarted clock showed, moved by its offset.
    public var clockWasReset: Bool
    /// The minutes the link moved its items back by (the clock's offset): the band's own time of a sport or sleep
    /// segment is its stored start plus these; an hour of heart rate moved by the nearest whole hours of these, a
    /// day's totals by the nearest whole days.
    public var minutes: Int

    /// An item whose band's clock was not read: stored as the band dated it.
    public static let unread = BandItemDating(clockRead: false, clockWasReset: false, minutes: 0)

    /// The most minutes an item may be moved by: ±2²⁹ − 1 (about a thousand years).
    static let largestMinutes = (1 << 29) - 1

    public init(clockRead: Bool, clockWasReset: Bool, minutes: Int) {
        self.clockRead = clockRead
        self.clockWasReset = clockWasReset
        self.minutes = max(-Self.largestMinutes, min(Self.largestMinutes, minutes))
    }

    /// The 32 bits kept in a stored item's sequence number.
    var sequenceField: UInt32 {
        (clockRead ? 1 << 31 : 0) | (clockWasReset ? 1 << 30 : 0) | UInt32(truncatingIfNeeded: minutes) & 0x3FFF_FFFF
    }

    init(sequenceField field: UInt32) {
        let raw = Int(field & 0x3FFF_FFFF)
        self.init(
            clockRead: field & (1 << 31) != 0, clockWasReset: field & (1 << 30) != 0,
            minutes: raw >= 1 << 29 ? raw - (1 << 30) : raw)
    }
}

extension BandItem {
    /// The item moved back by `minutes` (its time as the band dated it less the clock's offset): a sport or a sleep
    /// segment by the minute, its length kept (a sport that would then run past midnight ends at 23:59); an hour of
    /// heart rate by whole hours, the nearest (its minutes stay in their hour); a day's totals by whole days, the
    /// nearest. Today's totals are dated by the hub and stay as they are, and so does an item the move would take
    /// out of the years 1–9999 (which no band date can hold), or a move of more than ``BandItemDating`` can keep.
    public func movedBack(byMinutes minutes: Int) -> BandItem {
        guard minutes != 0, minutes.magnitude <= BandItemDating.largestMinutes.magnitude else { return self }
        let moved = moved(byMinutes: minutes)
        guard let date = moved.date, (1...9_999).contains(date.components.year) else { return self }
        return moved
    }

    private func moved(byMinutes minutes: Int) -> BandItem {
        /// `date` and `minute` of the day moved back by `by` minutes.
        func moved(_ date: CalendarDate, _ minute: Int, by: Int) -> (CalendarDate, Int) {
            let absolute = date.daysSince1970 * 1_440 + Int64(minute) - Int64(by)
            let day = absolute >= 0 ? absolute / 1_440 : (absolute - 1_439) / 1_440
            return (CalendarDate(daysSince1970: day), Int(absolute - day * 1_440))
        }
        func nearest(_ unit: Int) -> Int { Int((Double(minutes) / Double(unit)).rounded()) * unit }
        switch self {
        case .todayTotals: return self
        case .dayTotals(let date, let totals):
            return .dayTotals(moved(date, 0, by: nearest(1_440)).0, totals)
        case .sport(var session):
            let (date, start) = moved(session.date, session.start.value, by: minutes)
            let length = session.end.value - session.start.value
            session.date = date
            session.start = MinuteOfDay(start)!
            session.end = MinuteOfDay(min(start + max(length, 0), 1_439))!
            return .sport(session)
        case .sleep(var segment):
            let length = segment.minutes
            let (date, start) = moved(segment.date, segment.start.value, by: minutes)
            segment.date = date
            segment.start = MinuteOfDay(start)!
            segment.end = MinuteOfDay((start + length) % 1_440)!
            return .sleep(segment)
        case .heartRate(let hour):
            let (date, minute) = moved(hour.date, hour.hour * 60, by: nearest(60))
            return .heartRate(BandHeartRateHour(date: date, hour: minute / 60, minutes: hour.minutes)!)
        }
    }
}

extension BandClockReading: CustomStringConvertible {
    /// What the band's clock showed, how far off, and what the hub did: `showed 2026-11-29 09:40:12, 2 h 0 min 5 s
    /// ahead of the hub's; set to the hub's time`, or `showed 2026-11-29 07:40:12, right`.
    public var description: String {
        let shown = "showed \(bandTime)"
        guard needsSetting else { return shown + ", right (\(offset) s off)" }
        let restarted = wasReset ? " (the clock had restarted)" : ""
        return "\(shown)\(restarted), \(DeviceClock.describe(offset: offset))"
            + (wasSet ? "; set to the hub's time" : "; not set")
    }
}
