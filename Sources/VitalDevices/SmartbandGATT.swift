import HealthGATT
import VitalCore

/// VitalBridge's GATT codec for the SPC/Iwown smartbands, which have no SIG profile: a band service 0xFFD0 with a
/// control point 0xFFD1 (write: ``BandCommand``) and a data characteristic 0xFFD2 (notify: ``BandMessage``).
/// Integers are little-endian; a date is year u16, month, day; text is a length byte and UTF-8.
///
/// The SDK's bands push what they hold once and never again. This codec numbers every pushed item (``BandItem``)
/// from 1 and lets the band forget items only when the host writes ``BandCommand/receivedThrough(_:)`` — after the
/// batch holding them is committed — so a crash or a dropped link loses nothing: the band sends the unacknowledged
/// items again on the next connection. A band sends at most ``window`` items beyond the last acknowledged one.
public enum SmartbandGATT {
    public static let service: UInt16 = 0xFFD0
    public static let controlPoint: UInt16 = 0xFFD1
    public static let data: UInt16 = 0xFFD2
    /// How many items a band sends beyond the last one acknowledged before it waits.
    public static let window = 512
    /// The longest text ``BandCommand/pushText(_:)`` sends, in UTF-8 bytes.
    public static let maximumTextBytes = 60
    /// The smallest ATT MTU a band link needs: its longest notification, an hour of heart rate (70 bytes), plus the
    /// 3 bytes of the ATT header.
    public static let minimumMTU = 73
}

/// An item a band pushes and keeps until it is acknowledged.
public enum BandItem: Hashable, Sendable {
    /// `01`: today's running totals, sent again as they grow. The band's date bytes (year u16, month, day) come
    /// first and are not to be trusted (the SDK document's rule): the host dates these totals with its own today.
    /// Then sport u8, steps u32, calories u32 (kcal), distance u32 (m).
    case todayTotals(BandTotals)
    /// `02`: the totals of a past day: date, sport u8, steps u32, calories u32, distance u32.
    case dayTotals(CalendarDate, BandTotals)
    /// `03`: a finished sport: date, sport u8, start u16 and end u16 (minutes of the day), steps u32, calories
    /// u32, distance u32.
    case sport(BandSportSession)
    /// `04`: a sleep segment: date, type u8 (1–6), start u16, end u16 (minutes of the day).
    case sleep(BandSleepSegment)
    /// `05`: a completed heart-rate hour: date, hour u8, then 60 bytes, minute 0 to 59, 255 where there is none.
    case heartRate(BandHeartRateHour)

    // Types `06`–`08` are the same items with what the SDK adds for counting sports; the type is chosen by whether
    // the value has it (a session's `detail`, a total's `count`), so items without it are written as before.
    //
    // `06`: a finished sport with its `detail_data`: the body of `03`, then a presence byte (b0 count, b1 activity,
    // b2 distance; other bits reserved) and each member present, in that order, u32.
    // `07`: a past day's totals with `count`: the body of `02`, then count u32.
    // `08`: today's totals with `count`: the body of `01`, then count u32.
}

/// A notification of the band's data characteristic 0xFFD2.
public enum BandMessage: Hashable, Sendable {
    /// `01`–`05` preceded by the item's sequence number: `tt ssssssss …` is sent as `tt` then sequence u32 then
    /// the item's body.
    case item(sequence: UInt32, BandItem)
    /// `10 ssssssss`: everything the band holds has been sent; `last` is the last item's number (0 for none).
    case caughtUp(last: UInt32)
    /// `11 mm nn cc…`: the supported sports: how many may be active (mm), then n codes.
    case supportedSports(BandSupportedSports)
    /// `12 oo ss`: the command with op code `oo` finished; `ss` 0 done, else refused.
    case commandResult(opCode: UInt8, success: Bool)
    /// `13 ee`: whether the schedule asked for exists (`readSchedule`), or 1 for `readScheduleInfo`.
    case scheduleExists(Bool)
    /// `14`: the wearer pressed find-phone on the band.
    case findPhone
    /// `15`: the wearer pressed the camera button (in camera mode).
    case takePicture
    /// `16 bb uuuuuuuu sd hr cm`: the answer to ``BandCommand/getStatus``: bound (`bb` 1) to user `u` (0 when not
    /// bound), then the sport-data, hourly heart-rate and camera-mode switches.
    case status(BandStatus)
    /// `17 dd nnnn`: the answer to ``BandCommand/readScheduleInfo``: at most `dd` entries a day, `n` (u16) held;
    /// one ``scheduleSlot(_:)`` follows for each.
    case scheduleInfo(maximumPerDay: Int, count: Int)
    /// `18 yyyy mm dd hh mi`: a minute the band holds a schedule entry at.
    case scheduleSlot(BandScheduleSlot)
    /// `19 cc (len name) (len unit)`: after ``supportedSports(_:)``, one for each sport: its code, the band's own
    /// name for it and its unit.
    case sportName(BandSportName)
    /// `1A uu cc ss bs be wb ll le wr`: the answer to ``BandCommand/getHardwareOptions``, laid out as `10`'s body.
    case hardwareOptions(BandHardwareOptions)
    /// `1B ii 00`, or `1B ii 01 ss vv hh mm ww`: alarm `i` not set, or as set (one for each id, 0–7, in order).
    case alarm(id: Int, BandAlarm?)
    /// `1C ss hh hh ww`: the answer to ``BandCommand/getSedentaryReminder``, laid out as `09`'s body.
    case sedentaryReminder(BandSedentaryReminder)
    /// `1D 00`, or `1D 01 gg hh ww aa tttttttt`: no wearer set, or the wearer as `0F`'s body.
    case personalInfo(BandPersonalInfo?)
    /// `1E nn (cc tttt)…`: the active sports as `07`'s body; `1E 00` for none set.
    case sportTargets(BandSportTargets?)
}

/// A command written to the band's control point 0xFFD1; its op code is the first byte.
public enum BandCommand: Hashable, Sendable {
    /// `01 uuuuuuuu`: bind the band to this host (a user id).
    case bind(userID: UInt32)
    /// `02`: unbind.
    case unbind
    /// `03`: send today's totals now.
    case getToday
    /// `04`: send the supported sports list.
    case getSupportedSports
    /// `05 bb`: the sport-data switch: on, each finished sport (and the day's data) is pushed at once.
    case sportDataSwitch(Bool)
    /// `06 bb`: hourly heart rate: on, each completed hour is pushed at the turn of the hour.
    case heartRateHourly(Bool)
    /// `07 nn (cc tttt)…`: the sports to activate with their calorie targets.
    case setSportTargets(BandSportTargets)
    /// `08 ii ss vv hh mm ww`: an alarm.
    case setAlarm(BandAlarm)
    /// `09 ss hh hh ww`: the sedentary reminder: switch, start hour, end hour, weekdays.
    case setSedentary(BandSedentaryReminder)
    /// `0A yyyy mm dd hh mi (len title) (len subtitle)`: add a schedule entry.
    case writeSchedule(BandSchedule)
    /// `0B yyyy mm dd hh mi`: delete the entry at that minute.
    case deleteSchedule(CalendarDate, hour: Int, minute: Int)
    /// `0C`: delete every entry.
    case clearSchedules
    /// `0D`: ask whether the band has schedule support (always answered yes).
    case readScheduleInfo
    /// `0E yyyy mm dd hh mi`: ask whether an entry exists at that minute.
    case readSchedule(CalendarDate, hour: Int, minute: Int)
    /// `0F gg hh ww aa tttttttt`: the wearer: gender (0 man, 1 woman), height cm, weight kg, age, step target u32.
    case setPersonalInfo(BandPersonalInfo)
    /// `10 uu cc ss bs be wb ll le wr`: the hardware options (`wb` 0xFF for a model without a background choice).
    case setHardwareOptions(BandHardwareOptions)
    /// `11 (len text)`: show a text on the band at once.
    case pushText(String)
    /// `12 bb`: camera mode on or off.
    case cameraMode(Bool)
    /// `13`: restart the band.
    case reset
    /// `14 ssssssss`: every item through this number is committed: the band may forget them.
    case receivedThrough(UInt32)
    /// `15`: ask the band's state: answered with ``BandMessage/status(_:)``.
    case getStatus
    /// `16`: ask the hardware options: answered with ``BandMessage/hardwareOptions(_:)``.
    case getHardwareOptions
    /// `17`: ask the 8 alarms: answered with ``BandMessage/alarm(id:_:)`` for ids 0 to 7.
    case getAlarms
    /// `18`: ask the sedentary reminder: answered with ``BandMessage/sedentaryReminder(_:)``.
    case getSedentaryReminder
    /// `19`: ask the wearer: answered with ``BandMessage/personalInfo(_:)``.
    case getPersonalInfo
    /// `1A`: ask the active sports: answered with ``BandMessage/sportTargets(_:)``.
    case getSportTargets

    /// The command's op code, its first byte.
    public var opCode: UInt8 {
        switch self {
        case .bind: 0x01
        case .unbind: 0x02
        case .getToday: 0x03
        case .getSupportedSports: 0x04
        case .sportDataSwitch: 0x05
        case .heartRateHourly: 0x06
        case .setSportTargets: 0x07
        case .setAlarm: 0x08
        case .setSedentary: 0x09
        case .writeSchedule: 0x0A
        case .deleteSchedule: 0x0B
        case .clearSchedules: 0x0C
        case .readScheduleInfo: 0x0D
        case .readSchedule: 0x0E
        case .setPersonalInfo: 0x0F
        case .setHardwareOptions: 0x10
        case .pushText: 0x11
        case .cameraMode: 0x12
        case .reset: 0x13
        case .receivedThrough: 0x14
        case .getStatus: 0x15
        case .getHardwareOptions: 0x16
        case .getAlarms: 0x17
        case .getSedentaryReminder: 0x18
        case .getPersonalInfo: 0x19
        case .getSportTargets: 0x1A
        }
    }
}

// MARK: - Encoding

/// Little-endian bytes for the band codec, on HealthGATT's byte helpers.
struct BandWriter {
    var bytes: [UInt8] = []

    mutating func u8(_ value: Int) { bytes.append(UInt8(truncatingIfNeeded: value)) }
    mutating func flag(_ value: Bool) { bytes.append(value ? 1 : 0) }
    mutating func u16(_ value: Int) { bytes.appendLE(UInt16(truncatingIfNeeded: value)) }
    mutating func u32(_ value: Int) { bytes.appendLE(UInt32(truncatingIfNeeded: value)) }
    mutating func date(_ date: CalendarDate) {
        let (year, month, day) = date.components
        u16(year)
        u8(month)
        u8(day)
    }
    mutating func text(_ text: String) {
        let utf8 = Array(text.utf8)
        u8(utf8.count)
        bytes += utf8
    }
    mutating func totals(_ totals: BandTotals) {
        u8(Int(totals.sport.rawValue))
        u32(totals.steps)
        u32(totals.calories)
        u32(totals.distance)
        if let count = totals.count { u32(count) }
    }
    mutating func detail(_ detail: BandSportDetail) {
        let members = [detail.count, detail.activity, detail.distance]
        u8(members.indices.reduce(0) { flags, index in members[index] == nil ? flags : flags | 1 << index })
        for case let member? in members { u32(member) }
    }
}

extension BandItem {
    /// The item's type byte.
    var type: UInt8 {
        switch self {
        case .todayTotals(let totals): totals.count == nil ? 0x01 : 0x08
        case .dayTotals(_, let totals): totals.count == nil ? 0x02 : 0x07
        case .sport(let session): session.detail == nil ? 0x03 : 0x06
        case .sleep: 0x04
        case .heartRate: 0x05
        }
    }

    /// The item's body, after its type and sequence number; `today` is the band's own date for today's totals.
    func body(today: CalendarDate) -> [UInt8] {
        var writer = BandWriter()
        switch self {
        case .todayTotals(let totals):
            writer.date(today)
            writer.totals(totals)
        case .dayTotals(let date, let totals):
            writer.date(date)
            writer.totals(totals)
        case .sport(let session):
            writer.date(session.date)
            writer.u8(Int(session.sport.rawValue))
            writer.u16(session.start.value)
            writer.u16(session.end.value)
            writer.u32(session.steps)
            writer.u32(session.calories)
            writer.u32(session.distance)
            if let detail = session.detail { writer.detail(detail) }
        case .sleep(let segment):
            writer.date(segment.date)
            writer.u8(Int(segment.type.rawValue))
            writer.u16(segment.start.value)
            writer.u16(segment.end.value)
        case .heartRate(let hour):
            writer.date(hour.date)
            writer.u8(hour.hour)
            writer.bytes += hour.minutes.map { UInt8($0 ?? 255) }
        }
        return writer.bytes
    }
}

extension BandMessage {
    /// The notification's bytes; `today` is the band's own date, written into today's totals (and ignored by
    /// the host).
    public func encoded(today: CalendarDate = CalendarDate(daysSince1970: 0)) -> [UInt8] {
        var writer = BandWriter()
        switch self {
        case .item(let sequence, let item):
            writer.u8(Int(item.type))
            writer.u32(Int(sequence))
            writer.bytes += item.body(today: today)
        case .caughtUp(let last):
            writer.u8(0x10)
            writer.u32(Int(last))
        case .supportedSports(let list):
            writer.u8(0x11)
            writer.u8(list.maximumActive)
            writer.u8(list.sports.count)
            writer.bytes += list.sports.map(\.rawValue)
        case .commandResult(let opCode, let success):
            writer.bytes += [0x12, opCode, success ? 0 : 1]
        case .scheduleExists(let exists):
            writer.bytes += [0x13, exists ? 1 : 0]
        case .findPhone: writer.u8(0x14)
        case .takePicture: writer.u8(0x15)
        case .status, .scheduleInfo, .scheduleSlot, .sportName: writer.bytes = stateEncoded
        case .hardwareOptions, .alarm, .sedentaryReminder, .personalInfo, .sportTargets: writer.bytes = settingEncoded
        }
        return writer.bytes
    }
}

extension BandCommand {
    public var encoded: [UInt8] {
        var writer = BandWriter()
        writer.u8(Int(opCode))
        func slot(_ date: CalendarDate, _ hour: Int, _ minute: Int) {
            writer.date(date)
            writer.u8(hour)
            writer.u8(minute)
        }
        switch self {
        case .bind(let userID): writer.u32(Int(userID))
        case .unbind, .getToday, .getSupportedSports, .clearSchedules, .readScheduleInfo, .reset, .getStatus,
            .getHardwareOptions, .getAlarms, .getSedentaryReminder, .getPersonalInfo, .getSportTargets:
            break
        case .sportDataSwitch(let on), .heartRateHourly(let on), .cameraMode(let on): writer.flag(on)
        case .setSportTargets(let targets): writer.sportTargets(targets)
        case .setAlarm(let alarm):
            writer.u8(alarm.id)
            writer.alarm(alarm)
        case .setSedentary(let reminder): writer.sedentary(reminder)
        case .writeSchedule(let schedule):
            slot(schedule.date, schedule.hour, schedule.minute)
            writer.text(schedule.title)
            writer.text(schedule.subtitle)
        case .deleteSchedule(let date, let hour, let minute), .readSchedule(let date, let hour, let minute):
            slot(date, hour, minute)
        case .setPersonalInfo(let info): writer.personalInfo(info)
        case .setHardwareOptions(let options): writer.hardwareOptions(options)
        case .pushText(let text): writer.text(text)
        case .receivedThrough(let sequence): writer.u32(Int(sequence))
        }
        return writer.bytes
    }

    /// A text command for `text`: at most ``SmartbandGATT/maximumTextBytes`` of UTF-8, no control characters.
    public static func pushing(_ text: String) throws(BandSettingError) -> BandCommand {
        guard !text.isEmpty, text.utf8.count <= SmartbandGATT.maximumTextBytes else {
            throw BandSettingError("text", "must be 1 to \(SmartbandGATT.maximumTextBytes) bytes of UTF-8")
        }
        guard text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) else {
            throw BandSettingError("text", "cannot hold a control character")
        }
        return .pushText(text)
    }
}

// MARK: - Decoding

/// The band codec's fields, read with HealthGATT's cursor, whose errors name the field and its byte offset.
extension ByteReader {
    mutating func u8(_ field: String) throws(GATTError) -> Int { Int(try uint8(field)) }
    mutating func u16(_ field: String) throws(GATTError) -> Int { Int(try uint16(field)) }
    mutating func u32(_ field: String) throws(GATTError) -> Int { Int(try uint32(field)) }

    mutating func flag(_ field: String) throws(GATTError) -> Bool {
        switch try uint8(field) {
        case 0: return false
        case 1: return true
        default: throw error(.invalidValue, field, at: offset - 1)
        }
    }

    mutating func date(_ field: String) throws(GATTError) -> CalendarDate {
        let start = offset
        let year = try u16(field + ".year")
        let month = try u8(field + ".month")
        let day = try u8(field + ".day")
        guard let date = CalendarDate(year: year, month: month, day: day) else {
            throw error(.invalidValue, field, at: start)
        }
        return date
    }

    mutating func minute(_ field: String) throws(GATTError) -> MinuteOfDay {
        let start = offset
        guard let minute = MinuteOfDay(try u16(field)) else { throw error(.invalidValue, field, at: start) }
        return minute
    }

    mutating func text(_ field: String) throws(GATTError) -> String {
        let count = try u8(field + ".length")
        let start = try take(count, field)
        guard let text = String(validating: bytes[start..<(start + count)], as: UTF8.self) else {
            throw error(.invalidValue, field, at: start)
        }
        return text
    }

    mutating func totals(counted: Bool = false) throws(GATTError) -> BandTotals {
        BandTotals(
            sport: BandSport(rawValue: try uint8("sport")), steps: try u32("steps"), calories: try u32("calories"),
            distance: try u32("distance"), count: counted ? try u32("count") : nil)
    }

    /// A session's `detail_data`: a presence byte (b0 count, b1 activity, b2 distance), then each member present.
    mutating func detail() throws(GATTError) -> BandSportDetail {
        let flagsOffset = offset
        let flags = try u8("detail.flags")
        guard flags & ~0b111 == 0 else { throw error(.reservedValue, "detail.flags", at: flagsOffset) }
        var detail = BandSportDetail()
        if flags & 0b001 != 0 { detail.count = try u32("detail.count") }
        if flags & 0b010 != 0 { detail.activity = try u32("detail.activity") }
        if flags & 0b100 != 0 { detail.distance = try u32("detail.distance") }
        return detail
    }

    /// Turns a setting the rules refuse into an invalid value at `start`, naming the setting's field.
    func setting<T>(_ start: Int, _ make: () throws(BandSettingError) -> T) throws(GATTError) -> T {
        do {
            return try make()
        } catch {
            throw self.error(.invalidValue, error.field, at: start)
        }
    }
}

extension BandMessage {
    /// Decodes a notification of 0xFFD2.
    ///
    /// - Throws: `GATTError` naming the field and byte offset of a short value, an unknown type, an impossible
    ///   date, minute, sleep type or heart rate, or bytes left over.
    public init(bytes: [UInt8]) throws(GATTError) {
        var reader = ByteReader(bytes, characteristic: "band data")
        let type = try reader.u8("type")
        switch type {
        case 0x01...0x08:
            let sequence = UInt32(try reader.u32("sequence"))
            self = .item(sequence: sequence, try Self.item(type, &reader))
        case 0x10: self = .caughtUp(last: UInt32(try reader.u32("last")))
        case 0x11:
            let maximum = try reader.u8("maximumActive")
            let count = try reader.u8("count")
            var sports: [BandSport] = []
            for index in 0..<count { sports.append(BandSport(rawValue: UInt8(try reader.u8("sports[\(index)]")))) }
            self = .supportedSports(BandSupportedSports(sports: sports, maximumActive: maximum))
        case 0x12:
            let opCode = UInt8(try reader.u8("opCode"))
            self = .commandResult(opCode: opCode, success: try reader.u8("status") == 0)
        case 0x13: self = .scheduleExists(try reader.flag("exists"))
        case 0x14: self = .findPhone
        case 0x15: self = .takePicture
        case 0x16...0x19: self = try Self.stateMessage(type, &reader)
        case 0x1A...0x1E: self = try Self.settingMessage(type, &reader)
        default: throw reader.error(.reservedValue, "type", at: 0)
        }
        try reader.finish()
    }

    private static func item(_ type: Int, _ reader: inout ByteReader) throws(GATTError) -> BandItem {
        switch type {
        case 0x01, 0x08:
            // the band's date for today is read past, not trusted (the SDK document's rule)
            _ = try reader.u16("date.year")
            _ = try reader.u16("date.month_day")
            return .todayTotals(try reader.totals(counted: type == 0x08))
        case 0x02, 0x07:
            let date = try reader.date("date")
            return .dayTotals(date, try reader.totals(counted: type == 0x07))
        case 0x03, 0x06:
            let date = try reader.date("date")
            let sport = BandSport(rawValue: UInt8(try reader.u8("sport")))
            let start = try reader.minute("start")
            let end = try reader.minute("end")
            let (steps, calories, distance) = (
                try reader.u32("steps"), try reader.u32("calories"), try reader.u32("distance")
            )
            return .sport(
                BandSportSession(
                    date: date, sport: sport, start: start, end: end, steps: steps, calories: calories,
                    distance: distance, detail: type == 0x06 ? try reader.detail() : nil))
        case 0x04:
            let date = try reader.date("date")
            let typeOffset = reader.offset
            guard let sleepType = BandSleepType(rawValue: UInt8(try reader.u8("sleepType"))) else {
                throw reader.error(.invalidValue, "sleepType", at: typeOffset)
            }
            return .sleep(
                BandSleepSegment(
                    date: date, type: sleepType, start: try reader.minute("start"), end: try reader.minute("end")))
        default:
            let date = try reader.date("date")
            let hourOffset = reader.offset
            let hour = try reader.u8("hour")
            var minutes: [Int?] = []
            for minute in 0..<60 {
                let value = try reader.u8("rate[\(minute)]")
                guard value != 0 else { throw reader.error(.invalidValue, "rate[\(minute)]", at: reader.offset - 1) }
                minutes.append(value == 255 ? nil : value)
            }
            guard let hourOfRates = BandHeartRateHour(date: date, hour: hour, minutes: minutes) else {
                throw reader.error(.invalidValue, "hour", at: hourOffset)
            }
            return .heartRate(hourOfRates)
        }
    }
}

extension BandCommand {
    /// Decodes a write to 0xFFD1, with every setting checked against the document's rules.
    ///
    /// - Throws: `GATTError` naming the field and byte offset of a short or long value, an unknown op code, or a
    ///   value the rules refuse.
    public init(bytes: [UInt8]) throws(GATTError) {
        var reader = ByteReader(bytes, characteristic: "band control point")
        let opCode = try reader.u8("opCode")
        func slot() throws(GATTError) -> (CalendarDate, Int, Int) {
            (try reader.date("date"), try reader.u8("hour"), try reader.u8("minute"))
        }
        switch opCode {
        case 0x01: self = .bind(userID: UInt32(try reader.u32("userID")))
        case 0x02: self = .unbind
        case 0x03: self = .getToday
        case 0x04: self = .getSupportedSports
        case 0x05: self = .sportDataSwitch(try reader.flag("on"))
        case 0x06: self = .heartRateHourly(try reader.flag("on"))
        case 0x07: self = .setSportTargets(try reader.sportTargets(allowingNone: false)!)
        case 0x08:
            let start = reader.offset
            self = .setAlarm(try reader.alarm(id: try reader.u8("id"), start: start))
        case 0x09: self = .setSedentary(try reader.sedentary())
        case 0x0A:
            let start = reader.offset
            let (date, hour, minute) = try slot()
            let (title, subtitle) = (try reader.text("title"), try reader.text("subtitle"))
            self = .writeSchedule(
                try reader.setting(start) { () throws(BandSettingError) in
                    try BandSchedule(date: date, hour: hour, minute: minute, title: title, subtitle: subtitle)
                })
        case 0x0B:
            let (date, hour, minute) = try slot()
            self = .deleteSchedule(date, hour: hour, minute: minute)
        case 0x0C: self = .clearSchedules
        case 0x0D: self = .readScheduleInfo
        case 0x0E:
            let (date, hour, minute) = try slot()
            self = .readSchedule(date, hour: hour, minute: minute)
        case 0x0F: self = .setPersonalInfo(try reader.personalInfo(start: reader.offset))
        case 0x10: self = .setHardwareOptions(try reader.hardwareOptions())
        case 0x11:
            let start = reader.offset
            let text = try reader.text("text")
            self = try reader.setting(start) { () throws(BandSettingError) in try BandCommand.pushing(text) }
        case 0x12: self = .cameraMode(try reader.flag("on"))
        case 0x13: self = .reset
        case 0x14: self = .receivedThrough(UInt32(try reader.u32("sequence")))
        case 0x15: self = .getStatus
        default:
            guard let getter = Self.getter(opCode) else { throw reader.error(.reservedValue, "opCode", at: 0) }
            self = getter
        }
        try reader.finish()
    }
}
