import VitalCore

// The data and settings of the SPC/Iwown smartbands (Fit Pro 9614N, Fit Pulse 9615N, Smartee Training 9616N), as
// their SDK document describes them; the bytes are in SmartbandGATT.swift.

/// A sport, by the band's code (the SDK document's appendix: 0x01 walk … 0x91 shuttlecock). Open: a band may
/// report a code the table does not have.
public struct BandSport: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let walk = BandSport(rawValue: 0x01)

    /// Every sport of the document's table, with its English name.
    public static let table: [(sport: BandSport, name: String)] = [
        (0x01, "walk"), (0x02, "situp"), (0x03, "push-up"), (0x04, "rope skipping"), (0x05, "climb"),
        (0x06, "pull-up"), (0x80, "badminton"), (0x81, "basketball"), (0x82, "football"), (0x83, "swim"),
        (0x84, "volleyball"), (0x85, "pingpong"), (0x86, "bowling"), (0x87, "tennis"), (0x88, "cycling"),
        (0x89, "ski"), (0x8A, "skating"), (0x8B, "rock climbing"), (0x8C, "gym"), (0x8D, "dance"),
        (0x8E, "tablet support"), (0x8F, "gym exercise"), (0x90, "yoga"), (0x91, "shuttlecock"),
    ].map { (BandSport(rawValue: $0.0), $0.1) }

    /// The sport's name in the table; `nil` for a code the table does not have.
    public var name: String? { Self.table.first { $0.sport == self }?.name }

    public var description: String { name ?? "sport 0x\(String(rawValue, radix: 16, uppercase: true))" }
}

/// What a sleep segment was (the document's SLEEP TYPE table).
public enum BandSleepType: UInt8, Hashable, Sendable, CaseIterable {
    case startSleep = 1
    case endSleep = 2
    case deepSleep = 3
    case lightSleep = 4
    /// The band was put down ("placed").
    case placed = 5
    case wakeUp = 6
}

/// A minute of a day, 0 (00:00) to 1439 (23:59): the document's `start_time`/`end_time` in raw data.
public struct MinuteOfDay: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let value: Int

    /// `nil` outside 0–1439.
    public init?(_ value: Int) {
        guard (0..<1440).contains(value) else { return nil }
        self.value = value
    }

    /// `HH:mm:00`.
    public var description: String {
        let hour = value / 60
        let minute = value % 60
        return (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute):00"
    }

    public static func < (left: MinuteOfDay, right: MinuteOfDay) -> Bool { left.value < right.value }
}

/// Totals of steps, calories and distance, of one sport (walking, usually) over a day.
public struct BandTotals: Hashable, Sendable {
    public var sport: BandSport
    public var steps: Int
    /// Kilocalories.
    public var calories: Int
    /// Metres.
    public var distance: Int
    /// The repetitions the sport counts over the day (the SDK's `count`: sit-ups, push-ups, rope skips, pull-ups);
    /// `nil` when the band did not send one.
    public var count: Int?

    public init(sport: BandSport = .walk, steps: Int, calories: Int, distance: Int, count: Int? = nil) {
        self.sport = sport
        self.steps = steps
        self.calories = calories
        self.distance = distance
        self.count = count
    }
}

/// What a band says about one finished sport beyond its steps, calories and distance: the SDK's `detail_data`,
/// whose members depend on the sport. Each is `nil` when the band did not send it.
public struct BandSportDetail: Hashable, Sendable {
    /// The SDK's `activity`: the band's own measure of how much was done, a number without a unit.
    public var activity: Int?
    /// The SDK's `count`: repetitions (sit-ups, push-ups, rope skips, pull-ups).
    public var count: Int?
    /// The SDK's `distance` of the detail, in metres.
    public var distance: Int?

    public init(activity: Int? = nil, count: Int? = nil, distance: Int? = nil) {
        self.activity = activity
        self.count = count
        self.distance = distance
    }
}

/// One finished sport, with its start and end on one day.
public struct BandSportSession: Hashable, Sendable {
    public var date: CalendarDate
    public var sport: BandSport
    public var start: MinuteOfDay
    public var end: MinuteOfDay
    public var steps: Int
    /// Kilocalories.
    public var calories: Int
    /// Metres.
    public var distance: Int
    /// The session's `detail_data`; `nil` when the band sent none (item `03`).
    public var detail: BandSportDetail?

    public init(
        date: CalendarDate, sport: BandSport, start: MinuteOfDay, end: MinuteOfDay, steps: Int, calories: Int,
        distance: Int, detail: BandSportDetail? = nil
    ) {
        self.date = date
        self.sport = sport
        self.start = start
        self.end = end
        self.steps = steps
        self.calories = calories
        self.distance = distance
        self.detail = detail
    }

    /// The session's repetitions (its detail's `count`), `nil` when the band counted none.
    public var count: Int? { detail?.count }
}

/// One period of sleep of one kind; a night comes in many of them.
public struct BandSleepSegment: Hashable, Sendable {
    public var date: CalendarDate
    public var type: BandSleepType
    public var start: MinuteOfDay
    public var end: MinuteOfDay

    public init(date: CalendarDate, type: BandSleepType, start: MinuteOfDay, end: MinuteOfDay) {
        self.date = date
        self.type = type
        self.start = start
        self.end = end
    }

    /// The segment's length in minutes (a segment that ends before it starts runs past midnight).
    public var minutes: Int { (end.value - start.value + 1440) % 1440 }
}

/// One completed hour of heart rate: a value per minute, 0 to 59; `nil` where the band had none (it sends 255,
/// which is never a heart rate).
public struct BandHeartRateHour: Hashable, Sendable {
    public var date: CalendarDate
    /// 0–23.
    public var hour: Int
    /// Exactly 60 values, beats per minute.
    public var minutes: [Int?]

    /// `nil` unless `hour` is 0–23 and there are 60 minutes, each `nil` or 1–254.
    public init?(date: CalendarDate, hour: Int, minutes: [Int?]) {
        guard (0..<24).contains(hour), minutes.count == 60,
            minutes.allSatisfy({ $0.map { (1...254).contains($0) } ?? true })
        else { return nil }
        self.date = date
        self.hour = hour
        self.minutes = minutes
    }
}

/// The sports a band says it supports, and how many may be active at once. What it lists is not always what it
/// lets be activated (the document's warning): ``BandSportTargets`` checks against the document's rules.
public struct BandSupportedSports: Hashable, Sendable {
    public var sports: [BandSport]
    /// How many sports may be active at once.
    public var maximumActive: Int

    public init(sports: [BandSport], maximumActive: Int) {
        self.sports = sports
        self.maximumActive = maximumActive
    }
}

/// A band setting the document's rules refuse, before anything is sent; the message names what is wrong.
public struct BandSettingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The setting and field, e.g. `alarm.hour`, `schedule.title`.
    public var field: String
    public var message: String

    public init(_ field: String, _ message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { "\(field) \(message)" }
}

/// Days of the week and the weekly repeat flag, as the band's one-byte mask: bit 7 repeat, bit 6 Monday, bit 5
/// Tuesday, …, bit 1 Saturday, bit 0 Sunday.
public struct BandWeekdays: OptionSet, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let repeatsWeekly = BandWeekdays(rawValue: 0x80)
    public static let monday = BandWeekdays(rawValue: 0x40)
    public static let tuesday = BandWeekdays(rawValue: 0x20)
    public static let wednesday = BandWeekdays(rawValue: 0x10)
    public static let thursday = BandWeekdays(rawValue: 0x08)
    public static let friday = BandWeekdays(rawValue: 0x04)
    public static let saturday = BandWeekdays(rawValue: 0x02)
    public static let sunday = BandWeekdays(rawValue: 0x01)
    public static let everyDay = BandWeekdays(rawValue: 0x7F)

    /// Whether any day is set (the repeat flag is not a day).
    public var hasDay: Bool { rawValue & 0x7F != 0 }
}

/// The sports to activate, each with a calorie target: at most 5, walking among them; the same for all 7 days.
public struct BandSportTargets: Hashable, Sendable {
    public let targets: [(sport: BandSport, calories: Int)]

    /// - Throws: ``BandSettingError`` for more than 5 sports, none or no walking, a sport twice, a code the
    ///   document's table does not have, or a target that is not 1–65535 kcal.
    public init(_ targets: [(sport: BandSport, calories: Int)]) throws(BandSettingError) {
        guard !targets.isEmpty, targets.count <= 5 else {
            throw BandSettingError("sports", "must be 1 to 5 sports (\(targets.count) given)")
        }
        guard targets.contains(where: { $0.sport == .walk }) else {
            throw BandSettingError("sports", "must include walking (0x01)")
        }
        try Self.checkEach(targets)
        self.targets = targets
    }

    /// Throws ``BandSettingError`` for a sport the document's table does not have, a sport twice, or a target
    /// that is not 1–65535 kcal.
    static func checkEach(_ targets: [(sport: BandSport, calories: Int)]) throws(BandSettingError) {
        for (index, target) in targets.enumerated() {
            guard target.sport.name != nil else {
                throw BandSettingError("sports[\(index)]", "is not a sport of the band's table (\(target.sport))")
            }
            guard !targets[..<index].contains(where: { $0.sport == target.sport }) else {
                throw BandSettingError("sports[\(index)]", "is \(target.sport) a second time")
            }
            guard (1...65_535).contains(target.calories) else {
                throw BandSettingError("sports[\(index)].target", "must be 1 to 65535 kcal")
            }
        }
    }

    public static func == (left: BandSportTargets, right: BandSportTargets) -> Bool {
        left.targets.elementsEqual(right.targets) { $0.sport == $1.sport && $0.calories == $1.calories }
    }

    public func hash(into hasher: inout Hasher) {
        for target in targets {
            hasher.combine(target.sport)
            hasher.combine(target.calories)
        }
    }
}

/// An alarm, 0–7. It rings only when switched on, viable and on at least one weekday; without the repeat flag it
/// rings once.
public struct BandAlarm: Hashable, Sendable {
    public let id: Int
    public let isOn: Bool
    public let isViable: Bool
    public let hour: Int
    public let minute: Int
    public let weekdays: BandWeekdays

    /// - Throws: ``BandSettingError`` for an id outside 0–7 or a time that is not one.
    public init(id: Int, isOn: Bool, isViable: Bool = true, hour: Int, minute: Int, weekdays: BandWeekdays)
        throws(BandSettingError)
    {
        guard (0...7).contains(id) else { throw BandSettingError("alarm.id", "must be 0 to 7") }
        guard (0...23).contains(hour) else { throw BandSettingError("alarm.hour", "must be 0 to 23") }
        guard (0...59).contains(minute) else { throw BandSettingError("alarm.minute", "must be 0 to 59") }
        self.id = id
        self.isOn = isOn
        self.isViable = isViable
        self.hour = hour
        self.minute = minute
        self.weekdays = weekdays
    }

    /// Whether the alarm rings: switched on, viable, and a weekday set.
    public var rings: Bool { isOn && isViable && weekdays.hasDay }
}

/// The one sedentary reminder: between two hours, on the weekdays set.
public struct BandSedentaryReminder: Hashable, Sendable {
    public let isOn: Bool
    public let startHour: Int
    public let endHour: Int
    public let weekdays: BandWeekdays

    /// - Throws: ``BandSettingError`` for an hour outside 0–23, an end not after the start, or a reminder switched
    ///   on without a weekday.
    public init(isOn: Bool, startHour: Int, endHour: Int, weekdays: BandWeekdays) throws(BandSettingError) {
        guard (0...23).contains(startHour) else { throw BandSettingError("sedentary.start", "must be 0 to 23") }
        guard (0...23).contains(endHour) else { throw BandSettingError("sedentary.end", "must be 0 to 23") }
        guard endHour > startHour else { throw BandSettingError("sedentary.end", "must be after the start hour") }
        guard !isOn || weekdays.hasDay else {
            throw BandSettingError("sedentary.weekdays", "must have a day set for a reminder that is on")
        }
        self.isOn = isOn
        self.startHour = startHour
        self.endHour = endHour
        self.weekdays = weekdays
    }
}

/// A calendar entry on the band: a minute of a day, a title of at most 20 characters and a subtitle of at most 33.
public struct BandSchedule: Hashable, Sendable {
    public let date: CalendarDate
    public let hour: Int
    public let minute: Int
    public let title: String
    public let subtitle: String

    /// - Throws: ``BandSettingError`` for a time that is not one, an empty title, or a title or subtitle too long.
    public init(date: CalendarDate, hour: Int, minute: Int, title: String, subtitle: String = "")
        throws(BandSettingError)
    {
        guard (0...23).contains(hour) else { throw BandSettingError("schedule.hour", "must be 0 to 23") }
        guard (0...59).contains(minute) else { throw BandSettingError("schedule.minute", "must be 0 to 59") }
        guard !title.isEmpty, title.count <= 20 else {
            throw BandSettingError("schedule.title", "must be 1 to 20 characters (\(title.count) given)")
        }
        guard subtitle.count <= 33 else {
            throw BandSettingError("schedule.subtitle", "must be at most 33 characters (\(subtitle.count) given)")
        }
        guard (title + subtitle).unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) else {
            throw BandSettingError("schedule.title", "cannot hold a control character")
        }
        self.date = date
        self.hour = hour
        self.minute = minute
        self.title = title
        self.subtitle = subtitle
    }

    /// The minute the entry is at.
    public var slot: (date: CalendarDate, minute: Int) { (date, hour * 60 + minute) }

    /// Throws unless `schedule` may join `existing`: at most 4 entries a day, never two at the same minute.
    public static func check(adding schedule: BandSchedule, to existing: [BandSchedule]) throws(BandSettingError) {
        try check(adding: schedule, toSlots: existing.map { BandScheduleSlot(date: $0.date, minute: $0.slot.minute) })
    }

    /// Throws unless `schedule` may join the entries at `existing` (what ``BandScheduleInfo`` lists): never two at
    /// the same minute (`schedule.time`), at most ``maximumPerDay`` a day (`schedule.date`).
    public static func check(adding schedule: BandSchedule, toSlots existing: [BandScheduleSlot])
        throws(BandSettingError)
    {
        let sameDay = existing.filter { $0.date == schedule.date }
        guard !sameDay.contains(where: { $0.minute == schedule.slot.minute }) else {
            throw BandSettingError(
                "schedule.time", "another entry is at \(schedule.date) \(MinuteOfDay(schedule.slot.minute)!) already")
        }
        guard sameDay.count < maximumPerDay else {
            throw BandSettingError(
                "schedule.date", "the band holds at most \(maximumPerDay) entries a day (\(schedule.date) has them)")
        }
    }

    /// How many entries a day the band holds (the SDK document's rule).
    public static let maximumPerDay = 4
}

/// The minute of a day a schedule entry is at, as the band lists it in ``BandScheduleInfo``.
public struct BandScheduleSlot: Hashable, Sendable, CustomStringConvertible {
    public let date: CalendarDate
    /// The minute of the day, 0–1439.
    public let minute: Int

    public init(date: CalendarDate, minute: Int) {
        self.date = date
        self.minute = minute
    }

    /// `yyyy-MM-dd HH:mm`.
    public var description: String { "\(date) \(MinuteOfDay(minute).map { String($0.description.prefix(5)) } ?? "")" }
}

/// What `readScheduleInfo` answers: how many entries a day the band holds, and the minutes it holds entries at.
public struct BandScheduleInfo: Hashable, Sendable {
    /// At most this many entries a day.
    public var maximumPerDay: Int
    /// The entries held, by the minute each is at, in the band's order.
    public var slots: [BandScheduleSlot]

    public init(maximumPerDay: Int, slots: [BandScheduleSlot]) {
        self.maximumPerDay = maximumPerDay
        self.slots = slots
    }
}

/// The band's connection-independent state, as `band state` reports it (the SDK's `isBinded` and switches): to
/// which user it is bound, and whether sport data, hourly heart rate and camera mode are on.
public struct BandStatus: Hashable, Sendable {
    /// The user the band is bound to; `nil` when it is not bound.
    public var boundUserID: UInt32?
    public var sportData: Bool
    public var hourlyHeartRate: Bool
    public var cameraMode: Bool

    public init(boundUserID: UInt32?, sportData: Bool, hourlyHeartRate: Bool, cameraMode: Bool) {
        self.boundUserID = boundUserID
        self.sportData = sportData
        self.hourlyHeartRate = hourlyHeartRate
        self.cameraMode = cameraMode
    }
}

/// A supported sport as the band names it (`getSupportSportsList`'s NAME and UNIT arrays): its code, the band's
/// own name for it (Chinese on the SDK's bands) and the unit it counts in.
public struct BandSportName: Hashable, Sendable {
    public var sport: BandSport
    /// The band's name for the sport.
    public var name: String
    /// The band's unit for the sport's amount.
    public var unit: String

    public init(sport: BandSport, name: String, unit: String) {
        self.sport = sport
        self.name = name
        self.unit = unit
    }
}

/// The wearer, as the band takes it. Gender is the band's own code: 0 man, 1 woman — the opposite of the layered
/// protocol's `sex` (0 female, 1 male).
public struct BandPersonalInfo: Hashable, Sendable {
    public enum Gender: UInt8, Hashable, Sendable {
        case man = 0
        case woman = 1
    }

    public let gender: Gender
    /// Centimetres, 50–250.
    public let height: Int
    /// Kilograms, 10–250.
    public let weight: Int
    /// Years, 1–120.
    public let age: Int
    /// The daily step target, 1–100000.
    public let stepTarget: Int

    /// - Throws: ``BandSettingError`` naming the value outside its range.
    public init(gender: Gender, height: Int, weight: Int, age: Int, stepTarget: Int) throws(BandSettingError) {
        guard (50...250).contains(height) else { throw BandSettingError("personal.height", "must be 50 to 250 cm") }
        guard (10...250).contains(weight) else { throw BandSettingError("personal.weight", "must be 10 to 250 kg") }
        guard (1...120).contains(age) else { throw BandSettingError("personal.age", "must be 1 to 120 years") }
        guard (1...100_000).contains(stepTarget) else {
            throw BandSettingError("personal.target", "must be 1 to 100000 steps")
        }
        self.gender = gender
        self.height = height
        self.weight = weight
        self.age = age
        self.stepTarget = stepTarget
    }

    /// The band's gender for the layered protocol's `sex`, whose codes are the other way round.
    public static func gender(for sex: UserSex) -> Gender { sex == .male ? .man : .woman }
}

/// The band's hardware options.
public struct BandHardwareOptions: Hashable, Sendable {
    public enum Units: UInt8, Hashable, Sendable {
        /// Kilometres, metres, kilograms.
        case metric = 0
        /// Feet, inches, pounds.
        case imperial = 1
    }

    public enum Clock: UInt8, Hashable, Sendable {
        case twentyFourHour = 0
        case twelveHour = 1
    }

    public enum Language: UInt8, Hashable, Sendable {
        case english = 0
        case simplifiedChinese = 1
    }

    public let units: Units
    public let clock: Clock
    /// Whether the band recognises sleep by itself.
    public let autoSleep: Bool
    /// The hours the backlight may light at night, 0–23.
    public let backlightStart: Int
    public let backlightEnd: Int
    /// A white background rather than black: Smartee Training 9616N only; `nil` for the others.
    public let whiteBackground: Bool?
    public let language: Language
    public let leSwitch: Bool
    /// Wake the screen when the wrist turns.
    public let wristSwitch: Bool

    /// - Throws: ``BandSettingError`` for a backlight hour outside 0–23.
    public init(
        units: Units = .metric, clock: Clock = .twentyFourHour, autoSleep: Bool = true, backlightStart: Int = 22,
        backlightEnd: Int = 7, whiteBackground: Bool? = nil, language: Language = .english, leSwitch: Bool = true,
        wristSwitch: Bool = true
    ) throws(BandSettingError) {
        guard (0...23).contains(backlightStart) else {
            throw BandSettingError("options.backlightStart", "must be 0 to 23")
        }
        guard (0...23).contains(backlightEnd) else { throw BandSettingError("options.backlightEnd", "must be 0 to 23") }
        self.units = units
        self.clock = clock
        self.autoSleep = autoSleep
        self.backlightStart = backlightStart
        self.backlightEnd = backlightEnd
        self.whiteBackground = whiteBackground
        self.language = language
        self.leSwitch = leSwitch
        self.wristSwitch = wristSwitch
    }
}
