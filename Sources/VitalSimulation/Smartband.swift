import VitalCore
import VitalDevices

/// What a simulated smartband holds and how it is set: the items it recorded and not yet had acknowledged, its
/// numbering, how far it has recorded, and its switches.
public struct BandState: Hashable, Sendable {
    /// An item with its number, kept as the notification the band sends (about 80 bytes for an hour of heart
    /// rate: a band holding a year stays small).
    public struct Numbered: Hashable, Sendable {
        public let sequence: UInt32
        /// The item's notification, `BandMessage.item(sequence:_:)` encoded.
        public let message: [UInt8]

        public init(sequence: UInt32, item: BandItem) {
            self.sequence = sequence
            message = BandMessage.item(sequence: sequence, item).encoded()
        }

        /// The item of a notification; `nil` if it is not an item's.
        init?(message: [UInt8]) {
            guard case .item(let sequence, _)? = try? BandMessage(bytes: message) else { return nil }
            self.sequence = sequence
            self.message = message
        }

        public var item: BandItem {
            guard case .item(_, let item)? = try? BandMessage(bytes: message) else {
                preconditionFailure("a band keeps only the items it encoded")
            }
            return item
        }
    }

    /// The items not yet acknowledged, oldest first.
    public var pending: [Numbered]
    /// The number the next item gets (from 1; never reused).
    public var nextSequence: UInt32
    /// Everything the band recorded up to this time is in ``pending`` or was acknowledged.
    public var recordedThrough: Timestamp
    /// Whether a finished sport is pushed at once while connected.
    public var sportData: Bool
    /// Whether each completed heart-rate hour is pushed at the turn of the hour while connected.
    public var hourlyHeartRate: Bool
    public var cameraMode: Bool
    public var boundUserID: UInt32?
    /// The schedules written to the band.
    public var schedules: [BandSchedule]
    /// How far the band's clock is ahead of the world's, in seconds (negative: behind). The wearer lives by the
    /// world's time; the band dates what it records by its clock, to the minute.
    public var clockOffset: Int64
    /// The options, alarms, sedentary reminder, wearer and sports written to the band.
    public var settings = BandSettings()

    public init(
        pending: [Numbered] = [], nextSequence: UInt32 = 1, recordedThrough: Timestamp,
        sportData: Bool = false, hourlyHeartRate: Bool = false, cameraMode: Bool = false, boundUserID: UInt32? = nil,
        schedules: [BandSchedule] = [], clockOffset: Int64 = 0
    ) {
        self.pending = pending
        self.nextSequence = nextSequence
        self.recordedThrough = recordedThrough
        self.clockOffset = clockOffset
        self.sportData = sportData
        self.hourlyHeartRate = hourlyHeartRate
        self.cameraMode = cameraMode
        self.boundUserID = boundUserID
        self.schedules = schedules
    }

    /// The last acknowledged item's number (0 before any).
    var acknowledged: UInt32 { (pending.first?.sequence ?? nextSequence) - 1 }

    /// Keeps `item` under the next number.
    mutating func keep(_ item: BandItem) {
        pending.append(Numbered(sequence: nextSequence, item: item))
        nextSequence += 1
    }

    /// Forgets the items numbered up to `sequence`.
    mutating func acknowledge(through sequence: UInt32) {
        let count = pending.prefix { $0.sequence <= sequence }.count
        pending.removeFirst(count)
    }
}

/// What a band wearer does, day after day, drawn from the band's seed and the date alone, so that a day is the
/// same however the simulation steps through it: a night's sleep of its own length, over by 07:00, then the band
/// put down for a few minutes; a counting exercise (sit-ups, push-ups, rope skipping or pull-ups) around noon; an
/// evening sport of its own kind, start and length, over by 20:45; a heart rate each minute (a few missing), and
/// the day's totals of each sport.
struct BandLife {
    let seed: UInt64

    /// The generator of `day`, or of hour `hour` of it.
    private func random(_ day: CalendarDate, hour: Int = 24) -> SeededGenerator {
        SeededGenerator(seed: seed ^ (UInt64(bitPattern: day.daysSince1970) &* 0x9E37_79B9_7F4A_7C15) &+ UInt64(hour))
    }

    /// The day's walking totals, all of them or, for `through` seconds of the day, that share.
    func totals(_ day: CalendarDate, through seconds: Int64 = 86_400) -> BandTotals {
        var random = random(day)
        let steps = Int.random(in: 2_000...16_000, using: &random)
        let share = Double(min(max(seconds, 0), 86_400)) / 86_400
        let done = Int((Double(steps) * share).rounded(.down))
        return BandTotals(steps: done, calories: done / 25, distance: done * 7 / 10)
    }

    /// The night ending on the morning of `day`: start, then light, deep and wake-up segments, then end; asleep
    /// between 00:00 and 01:30, awake between 05:30 and 06:55; then the band lies placed (5) for 1 to 4 minutes,
    /// before 07:00.
    func night(_ day: CalendarDate) -> [BandSleepSegment] {
        var random = random(day)
        _ = random.next()
        let asleep = Int.random(in: 0...90, using: &random)
        let awake = Int.random(in: 330...415, using: &random)
        var segments: [BandSleepSegment] = []
        func segment(_ type: BandSleepType, _ start: Int, _ end: Int) {
            segments.append(BandSleepSegment(date: day, type: type, start: MinuteOfDay(start)!, end: MinuteOfDay(end)!))
        }
        segment(.startSleep, asleep, asleep)
        var minute = asleep
        let kinds: [BandSleepType] = [.lightSleep, .deepSleep, .lightSleep, .wakeUp]
        var index = 0
        while minute < awake {
            let length = min(Int.random(in: 10...70, using: &random), awake - minute)
            segment(kinds[index % kinds.count], minute, minute + length)
            minute += length
            index += 1
        }
        segment(.endSleep, awake, awake)
        // drawn from a generator of its own, so that the night's other segments are as they were without it
        var placed = self.random(day, hour: 25)
        segment(.placed, awake, awake + Int.random(in: 1...4, using: &placed))
        return segments
    }

    /// The sports a wearer does, a walk twice as often as the others.
    private static let sports: [BandSport] = [.walk, BandSport(rawValue: 0x88), BandSport(rawValue: 0x83), .walk]

    /// The evening sport of `day`: starting between 17:00 and 19:30, 20 to 75 minutes long.
    func sport(_ day: CalendarDate) -> BandSportSession {
        var random = random(day)
        _ = random.next()
        _ = random.next()
        let sport = Self.sports[Int.random(in: 0..<Self.sports.count, using: &random)]
        let start = 17 * 60 + Int.random(in: 0...30, using: &random) * 5
        let minutes = Int.random(in: 4...15, using: &random) * 5
        let steps = sport == .walk ? minutes * Int.random(in: 90...125, using: &random) : 0
        return BandSportSession(
            date: day, sport: sport, start: MinuteOfDay(start)!, end: MinuteOfDay(start + minutes)!, steps: steps,
            calories: minutes * Int.random(in: 4...10, using: &random), distance: steps * 7 / 10)
    }

    /// The sports that count repetitions, with the repetitions a minute a wearer does.
    private static let countingSports: [(sport: BandSport, perMinute: ClosedRange<Int>)] = [
        (BandSport(rawValue: 0x02), 15...30), (BandSport(rawValue: 0x03), 10...25),
        (BandSport(rawValue: 0x04), 60...120),
        (BandSport(rawValue: 0x06), 4...10),
    ]

    /// The noon exercise of `day`, a counting sport: starting between 12:00 and 12:25, 5 to 15 minutes long, with
    /// its repetitions and its active minutes in its detail; over before 13:00, when the band pushes it.
    func exercise(_ day: CalendarDate) -> BandSportSession {
        var random = random(day, hour: 26)
        let (sport, perMinute) = Self.countingSports[Int.random(in: 0..<Self.countingSports.count, using: &random)]
        let start = 12 * 60 + Int.random(in: 0...5, using: &random) * 5
        let minutes = Int.random(in: 5...15, using: &random)
        let count = minutes * Int.random(in: perMinute, using: &random)
        return BandSportSession(
            date: day, sport: sport, start: MinuteOfDay(start)!, end: MinuteOfDay(start + minutes)!, steps: 0,
            calories: minutes * Int.random(in: 6...12, using: &random), distance: 0,
            detail: BandSportDetail(activity: minutes, count: count))
    }

    /// The finished day's totals, one per sport: walking all day, the evening sport unless it was a walk, and the
    /// noon exercise with its repetitions.
    func dayTotals(_ day: CalendarDate) -> [BandTotals] {
        var totals = [totals(day)]
        let evening = sport(day)
        if evening.sport != .walk {
            totals.append(
                BandTotals(
                    sport: evening.sport, steps: evening.steps, calories: evening.calories, distance: evening.distance))
        }
        let noon = exercise(day)
        totals.append(
            BandTotals(sport: noon.sport, steps: 0, calories: noon.calories, distance: 0, count: noon.count))
        return totals
    }

    /// When the sport of `day` is over, in seconds since 1970.
    func sportEnd(_ day: CalendarDate) -> Int64 {
        day.daysSince1970 * 86_400 + Int64(sport(day).end.value) * 60
    }

    /// Hour `hour` of `day`: a heart rate each minute, lower at night and higher during the sport, with about one
    /// minute in thirty missing.
    func heartRate(_ day: CalendarDate, hour: Int) -> BandHeartRateHour {
        let session = sport(day)
        var random = random(day, hour: hour)
        let base = hour < 7 ? 55 : 72
        let minutes: [Int?] = (0..<60).map { minute in
            let sporting = (session.start.value..<session.end.value).contains(hour * 60 + minute)
            return Int.random(in: 0..<30, using: &random) == 0
                ? nil : (sporting ? 110 : base) + Int.random(in: -8...12, using: &random)
        }
        return BandHeartRateHour(date: day, hour: hour, minutes: minutes)!
    }

    /// What the band records from after `from` through `through`, passed to `record` in order: each completed
    /// hour of heart rate at its end, the night at 07:00, the noon exercise at 13:00, the sport when it is over, a
    /// finished day's totals of each sport at midnight.
    func items(after from: Timestamp, through: Timestamp, _ record: (BandItem) -> Void) {
        // every event falls on a whole minute: step through the hours and the sport's end, which may not be on one
        var hourStart = from.secondsSince1970 / 3_600 * 3_600
        while hourStart <= through.secondsSince1970 {
            let day = CalendarDate(daysSince1970: hourStart / 86_400)
            let hour = Int(hourStart % 86_400 / 3_600)
            func due(_ seconds: Int64) -> Bool {
                seconds > from.secondsSince1970 && seconds <= through.secondsSince1970
            }
            if due(hourStart) {
                // the turn of the hour ends the hour before it, and at midnight the day before it
                let previous = Timestamp(secondsSince1970: hourStart - 3_600)
                record(.heartRate(heartRate(previous.day, hour: Int(previous.secondsSince1970 % 86_400 / 3_600))))
                if hour == 0 { for totals in dayTotals(previous.day) { record(.dayTotals(previous.day, totals)) } }
                if hour == 7 { for segment in night(day) { record(.sleep(segment)) } }
                if hour == 13 { record(.sport(exercise(day))) }
            }
            let sportEnd = sportEnd(day)
            // a sport over at the turn of the hour is this hour's too
            if sportEnd > hourStart, sportEnd <= hourStart + 3_600, due(sportEnd) { record(.sport(sport(day))) }
            hourStart += 3_600
        }
    }
}

extension BandState {
    /// What the band's clock shows at the world's time `time`.
    func bandTime(_ time: Timestamp) -> Timestamp {
        Timestamp(secondsSince1970: time.secondsSince1970 + clockOffset)
    }

    /// The minutes an item of the true time is moved by to be dated by the band's clock (to the nearest minute, as
    /// the hub moves it back).
    private var stamp: Int { -Int((Double(clockOffset) / 60).rounded()) }

    /// Records what the band's wearer did up to the world's time `time`, each item dated by the band's clock.
    mutating func record(until time: Timestamp, life: BandLife) {
        guard time > recordedThrough else { return }
        let stamp = stamp
        life.items(after: recordedThrough, through: time) { keep($0.movedBack(byMinutes: stamp)) }
        recordedThrough = time
    }

    /// Sets the band's clock to `shown` at the world's time `time`: what was recorded before is dated by the old
    /// clock, what comes after by the new, and the items numbered after `sent` (not sent yet on the link that set
    /// it) are dated again by the new clock: the codec's rule, so that the host knows which clock dated what it gets.
    mutating func setClock(to shown: Timestamp, at time: Timestamp, life: BandLife, sent: UInt32?) {
        record(until: time, life: life)
        let old = stamp
        clockOffset = shown.secondsSince1970 - time.secondsSince1970
        let new = stamp
        guard new != old else { return }
        for index in pending.indices where pending[index].sequence > sent ?? 0 {
            let item = pending[index].item.movedBack(byMinutes: -old).movedBack(byMinutes: new)
            pending[index] = Numbered(sequence: pending[index].sequence, item: item)
        }
    }

    /// The band after a factory reset at the world's time `time`: memory and settings erased, item numbers going
    /// on (never reused), the clock restarted at 2000-01-01 00:00:00.
    func reset(at time: Timestamp) -> BandState {
        BandState(
            nextSequence: nextSequence, recordedThrough: time,
            clockOffset: SimulatedDeviceConfiguration.clockEpoch.secondsSince1970 - time.secondsSince1970)
    }

    /// The time of the next thing the band records after `time`: the turn of the hour, or the end of the day's
    /// sport.
    static func nextEvent(after time: Timestamp, life: BandLife) -> Timestamp {
        let seconds = time.secondsSince1970
        let nextHour = (seconds / 3_600 + 1) * 3_600
        let sportEnd = life.sportEnd(time.day)
        return Timestamp(secondsSince1970: sportEnd > seconds && sportEnd < nextHour ? sportEnd : nextHour)
    }
}

/// A smartband on VitalBridge's band service: it pushes what it holds from the oldest unacknowledged item as soon
/// as the central subscribes to its data, at most ``SmartbandGATT/window`` beyond the last acknowledged, then says
/// it caught up; it forgets items only on ``BandCommand/receivedThrough(_:)``. While connected with sport data and
/// hourly heart rate on, it goes on recording as the world's time passes and pushes each new item at once, with
/// today's running totals as they then stand.
struct BandPeripheral: SimulatedPeripheral {
    let runtime: DeviceRuntime

    /// The band service alone (its control point, data and clock): a band has no vendor control service.
    static func profileServices(of configuration: SimulatedDeviceConfiguration) -> [GATTServiceLayout] {
        let g = GATTCharacteristics.self
        let clock: GATTProperties = [.read, .write]
        return [
            GATTServiceLayout(
                SmartbandGATT.service, [(g.bandControlPoint, .write), (g.bandData, .notify), (g.bandTime, clock)])
        ]
    }

    private var band: BandState {
        get { runtime.state.band! }
        nonmutating set { runtime.state.band = newValue }
    }

    private var life: BandLife { BandLife(seed: runtime.configuration.seed) }

    func subscribed(_ characteristic: CharacteristicID, on link: Link) {
        guard characteristic == GATTCharacteristics.bandData, link.band == nil else { return }
        let time = link.clock.wallTime
        band.record(until: time, life: life)
        // today's running totals lead each connection
        band.keep(.todayTotals(totals(at: time)))
        link.band = LinkBand()
    }

    /// Today's running totals at the world's time `time`.
    private func totals(at time: Timestamp) -> BandTotals {
        life.totals(time.day, through: time.secondsSince1970 % 86_400)
    }

    func write(_ characteristic: CharacteristicID, _ value: [UInt8], on link: Link) throws(DeviceError) {
        let time = link.clock.wallTime
        if characteristic == GATTCharacteristics.bandTime {
            do {
                band.setClock(to: try BandTime(bytes: value).time, at: time, life: life, sent: link.band?.lastSent)
            } catch {
                throw DeviceError(.protocolViolation, message: "a malformed band time: \(error)")
            }
            return
        }
        guard characteristic == GATTCharacteristics.bandControlPoint else {
            throw DeviceError(.protocolViolation, message: "\(characteristic) cannot be written")
        }
        let command: BandCommand
        do {
            command = try BandCommand(bytes: value)
        } catch {
            throw DeviceError(.protocolViolation, message: "a malformed band command: \(error)")
        }
        var success = true
        switch command {
        case .receivedThrough(let sequence):
            guard let sent = link.band?.lastSent, sequence <= sent else {
                throw DeviceError(.protocolViolation, message: "item \(sequence) was never sent on this link")
            }
            band.acknowledge(through: sequence)
            return
        case .sportDataSwitch(let on): band.sportData = on
        case .heartRateHourly(let on): band.hourlyHeartRate = on
        case .cameraMode(let on): band.cameraMode = on
        case .bind(let userID): band.boundUserID = userID
        case .unbind: band.boundUserID = nil
        case .getToday:
            band.keep(.todayTotals(totals(at: time)))
        case .getSupportedSports:
            link.notify(
                GATTCharacteristics.bandData,
                BandMessage.supportedSports(BandSupportedSports(sports: BandSport.table.map(\.sport), maximumActive: 5))
                    .encoded())
            for name in Self.sportNames {
                link.notify(GATTCharacteristics.bandData, BandMessage.sportName(name).encoded())
            }
        case .writeSchedule(let schedule):
            do {
                try BandSchedule.check(adding: schedule, to: band.schedules)
                band.schedules.append(schedule)
            } catch {
                success = false
            }
        case .deleteSchedule(let date, let hour, let minute):
            let before = band.schedules.count
            band.schedules.removeAll { $0.date == date && $0.hour == hour && $0.minute == minute }
            success = band.schedules.count < before
        case .clearSchedules: band.schedules.removeAll()
        case .readScheduleInfo:
            // the SDK's readScheduleInfo always answers yes, then its information: the day's limit and the entries
            link.notify(GATTCharacteristics.bandData, BandMessage.scheduleExists(true).encoded())
            let info = BandMessage.scheduleInfo(maximumPerDay: BandSchedule.maximumPerDay, count: band.schedules.count)
            link.notify(GATTCharacteristics.bandData, info.encoded())
            for schedule in band.schedules {
                let slot = BandScheduleSlot(date: schedule.date, minute: schedule.slot.minute)
                link.notify(GATTCharacteristics.bandData, BandMessage.scheduleSlot(slot).encoded())
            }
        case .getStatus:
            let status = BandStatus(
                boundUserID: band.boundUserID, sportData: band.sportData, hourlyHeartRate: band.hourlyHeartRate,
                cameraMode: band.cameraMode)
            link.notify(GATTCharacteristics.bandData, BandMessage.status(status).encoded())
        case .readSchedule(let date, let hour, let minute):
            let exists = band.schedules.contains { $0.date == date && $0.hour == hour && $0.minute == minute }
            link.notify(GATTCharacteristics.bandData, BandMessage.scheduleExists(exists).encoded())
        case .reset:
            band = band.reset(at: time)
            link.band = LinkBand()
        case .setSportTargets, .setAlarm, .setSedentary, .setPersonalInfo, .setHardwareOptions:
            // checked by the codec; kept, to be read back
            success = band.settings.apply(command, model: runtime.entry.model)
        case .getHardwareOptions, .getAlarms, .getSedentaryReminder, .getPersonalInfo, .getSportTargets:
            for answer in band.settings.answers(to: command, model: runtime.entry.model) {
                link.notify(GATTCharacteristics.bandData, answer.encoded())
            }
        case .pushText: break
        }
        link.notify(
            GATTCharacteristics.bandData, BandMessage.commandResult(opCode: command.opCode, success: success).encoded())
    }

    /// Sends the next item the window allows, or says it caught up once everything held was sent; injects the
    /// fleet's drop after as many items of a link as `disconnectAfter` says.
    func pump(on link: Link) {
        guard var state = link.band, link.isIdle else { return }
        let band = band
        let sentCount = state.lastSent.map { last in band.pending.prefix { $0.sequence <= last }.count } ?? 0
        if sentCount < band.pending.count {
            let next = band.pending[sentCount]
            guard next.sequence <= band.acknowledged + UInt32(SmartbandGATT.window) else { return }
            if case .drop = runtime.transferFailure(after: state.sentOnLink) {
                link.enqueue(.drop)
                link.band = nil
                return
            }
            link.notify(GATTCharacteristics.bandData, next.message)
            state.lastSent = next.sequence
            state.sentOnLink += 1
            state.caughtUpSent = false
        } else if !state.caughtUpSent {
            link.notify(
                GATTCharacteristics.bandData,
                BandMessage.caughtUp(last: state.lastSent ?? band.nextSequence - 1).encoded())
            state.caughtUpSent = true
        }
        link.band = state
    }

    /// With nothing left to send and live pushing on, lets the world's time pass to the next thing the band
    /// records and keeps it; `false` when the band has nothing more to say.
    func waitForMore(on link: Link) -> Bool {
        // only once everything held was sent and the band said so: a full window waits for an acknowledgement
        guard let state = link.band, state.caughtUpSent, band.sportData, band.hourlyHeartRate,
            (band.pending.last?.sequence ?? 0) <= (state.lastSent ?? 0)
        else { return false }
        let clock = link.clock
        let next = BandState.nextEvent(after: clock.wallTime, life: life)
        if pressBefore(next, on: link) { return true }
        clock.advance(by: .seconds(next.secondsSince1970 - clock.wallTime.secondsSince1970))
        band.record(until: next, life: life)
        // and today's running totals, as they stand now
        band.keep(.todayTotals(totals(at: next)))
        notifyPresses(at: next, on: link)
        return true
    }

    func sendMeasurement(_ record: StoredRecord, on link: Link) {}

    /// Lets the world's time pass to the fleet's next press before `next`, if there is one, and notifies the presses
    /// at that time; `false` when no press comes first (one at `next` itself comes with what the band records then).
    private func pressBefore(_ next: Timestamp, on link: Link) -> Bool {
        let clock = link.clock
        let now = clock.wallTime
        guard let first = runtime.configuration.presses.first(where: { $0.time > now }), first.time < next else {
            return false
        }
        clock.advance(by: .seconds(first.time.secondsSince1970 - now.secondsSince1970))
        notifyPresses(at: first.time, on: link)
        return true
    }

    /// Notifies the fleet's presses at `time` (a take-picture only in camera mode).
    private func notifyPresses(at time: Timestamp, on link: Link) {
        for press in runtime.configuration.presses where press.time == time {
            switch press.event {
            case .findPhone: link.notify(GATTCharacteristics.bandData, BandMessage.findPhone.encoded())
            case .takePicture where band.cameraMode:
                link.notify(GATTCharacteristics.bandData, BandMessage.takePicture.encoded())
            case .takePicture: break
            }
        }
    }

    /// The simulated band's names and units for its sports (`getSupportSportsList`'s NAME and UNIT), in Chinese
    /// as the SDK document says the bands name them.
    static let sportNames: [BandSportName] =
        ([
            (0x01, "走路", "步"), (0x02, "仰卧起坐", "个"), (0x03, "俯卧撑", "个"), (0x04, "跳绳", "个"), (0x05, "登山", "米"),
            (0x06, "引体向上", "个"), (0x80, "羽毛球", "分钟"), (0x81, "篮球", "分钟"), (0x82, "足球", "分钟"),
            (0x83, "游泳", "米"), (0x84, "排球", "分钟"), (0x85, "乒乓球", "分钟"), (0x86, "保龄球", "分钟"),
            (0x87, "网球", "分钟"), (0x88, "骑行", "米"), (0x89, "滑雪", "分钟"), (0x8A, "滑冰", "分钟"),
            (0x8B, "攀岩", "分钟"), (0x8C, "健身房", "分钟"), (0x8D, "跳舞", "分钟"), (0x8E, "平板支撑", "秒"),
            (0x8F, "健身操", "分钟"), (0x90, "瑜伽", "分钟"), (0x91, "毽球", "分钟"),
        ] as [(UInt8, String, String)]).map { BandSportName(sport: BandSport(rawValue: $0.0), name: $0.1, unit: $0.2) }
}

/// A link's exchange with a band: what it sent on this link.
struct LinkBand {
    /// The last item sent on this link.
    var lastSent: UInt32?
    var sentOnLink = 0
    /// Whether the band said it caught up since it last sent an item.
    var caughtUpSent = false
}
