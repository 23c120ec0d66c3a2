import VitalCore

// Reading a band's settings back (VitalBridge's getters `16`–`1A`), and changing only the parts of a setting a
// person names: the band's setting is read, the named parts changed, the rules checked, and the whole written back.

extension BandHardwareOptions {
    /// The factory options of `model`: metric, 24 h, automatic sleep, backlight 22 to 7, English, both switches
    /// on, and a black background on the Smartee Training 9616N (the only model with a choice).
    public static func factory(for model: DeviceModel) -> BandHardwareOptions {
        // the defaults are within every rule
        try! BandHardwareOptions(whiteBackground: hasBackgroundChoice(model) ? false : nil)
    }

    /// Whether `model` lets the background colour be chosen: the Smartee Training 9616N only.
    public static func hasBackgroundChoice(_ model: DeviceModel) -> Bool { model == .smarteeTraining9616N }

    /// The parts of the options a person names; `nil` leaves a part as the band has it.
    public struct Changes: Hashable, Sendable {
        public var units: Units?
        public var clock: Clock?
        public var autoSleep: Bool?
        public var backlight: BandHourRange?
        public var whiteBackground: Bool?
        public var language: Language?
        public var leSwitch: Bool?
        public var wristSwitch: Bool?

        public init(
            units: Units? = nil, clock: Clock? = nil, autoSleep: Bool? = nil, backlight: BandHourRange? = nil,
            whiteBackground: Bool? = nil, language: Language? = nil, leSwitch: Bool? = nil, wristSwitch: Bool? = nil
        ) {
            (self.units, self.clock, self.autoSleep, self.backlight) = (units, clock, autoSleep, backlight)
            (self.whiteBackground, self.language, self.leSwitch, self.wristSwitch) =
                (whiteBackground, language, leSwitch, wristSwitch)
        }

        /// Whether nothing is named.
        public var isEmpty: Bool { self == Changes() }

        /// Throws unless every part named is allowed on `model`, whatever the band's other options.
        public func check(for model: DeviceModel) throws(BandSettingError) {
            _ = try applied(to: BandHardwareOptions.factory(for: model))
            guard whiteBackground == nil || BandHardwareOptions.hasBackgroundChoice(model) else {
                throw BandSettingError("options.whiteBackground", "exists on the Smartee Training 9616N only")
            }
        }

        /// `options` with the parts named changed, checked by the rules.
        public func applied(to options: BandHardwareOptions) throws(BandSettingError) -> BandHardwareOptions {
            try BandHardwareOptions(
                units: units ?? options.units, clock: clock ?? options.clock,
                autoSleep: autoSleep ?? options.autoSleep, backlightStart: backlight?.start ?? options.backlightStart,
                backlightEnd: backlight?.end ?? options.backlightEnd,
                whiteBackground: whiteBackground ?? options.whiteBackground, language: language ?? options.language,
                leSwitch: leSwitch ?? options.leSwitch, wristSwitch: wristSwitch ?? options.wristSwitch)
        }
    }
}

/// Two hours of the day, `START-END` (the backlight's night hours); each is checked by the setting that takes it.
public struct BandHourRange: Hashable, Sendable {
    public var start: Int
    public var end: Int

    public init(start: Int, end: Int) {
        self.start = start
        self.end = end
    }

    /// `START-END`, two whole numbers; `nil` for anything else.
    public init?(parsing text: String) {
        let hours = text.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        guard hours.count == 2, let start = hours[0], let end = hours[1] else { return nil }
        self.init(start: start, end: end)
    }
}

extension BandWeekdays {
    /// These weekdays with their days replaced by `days` (the repeat flag of `days` ignored) and the repeat flag set
    /// as `repeats` says, each when given.
    public func changing(days: BandWeekdays?, repeats: Bool?) -> BandWeekdays {
        var result = days.map { $0.subtracting(.repeatsWeekly).union(intersection(.repeatsWeekly)) } ?? self
        if let repeats {
            if repeats { result.insert(.repeatsWeekly) } else { result.remove(.repeatsWeekly) }
        }
        return result
    }
}

extension BandSedentaryReminder {
    /// The reminder of a band that was never given one (and of a reset band): off, 9 to 17, no day.
    public static let factory = try! BandSedentaryReminder(isOn: false, startHour: 9, endHour: 17, weekdays: [])

    /// The parts of the reminder a person names; `nil` leaves a part as the band has it.
    public struct Changes: Hashable, Sendable {
        public var isOn: Bool?
        public var startHour: Int?
        public var endHour: Int?
        /// The days (a repeat flag here is ignored: ``repeatsWeekly`` says).
        public var days: BandWeekdays?
        public var repeatsWeekly: Bool?

        public init(
            isOn: Bool? = nil, startHour: Int? = nil, endHour: Int? = nil, days: BandWeekdays? = nil,
            repeatsWeekly: Bool? = nil
        ) {
            (self.isOn, self.startHour, self.endHour, self.days, self.repeatsWeekly) =
                (isOn, startHour, endHour, days, repeatsWeekly)
        }

        public var isEmpty: Bool { self == Changes() }

        /// Throws for a part named wrongly whatever the band's reminder: an hour outside 0–23, an end not after a
        /// start also given, no day for a reminder switched on.
        public func check() throws(BandSettingError) {
            let (from, to) = (startHour ?? 0, endHour ?? min((startHour ?? 22) + 1, 23))
            _ = try BandSedentaryReminder(
                isOn: isOn == true && days != nil, startHour: from, endHour: to, weekdays: days ?? [])
        }

        /// `reminder` with the parts named changed, checked by the rules.
        public func applied(to reminder: BandSedentaryReminder) throws(BandSettingError) -> BandSedentaryReminder {
            try BandSedentaryReminder(
                isOn: isOn ?? reminder.isOn, startHour: startHour ?? reminder.startHour,
                endHour: endHour ?? reminder.endHour,
                weekdays: reminder.weekdays.changing(days: days, repeats: repeatsWeekly))
        }
    }
}

extension BandAlarm {
    /// The parts of an alarm a person names; `nil` leaves a part as the band has it. An alarm not set yet needs
    /// its time and days, and is switched on unless said otherwise.
    public struct Changes: Hashable, Sendable {
        public var isOn: Bool?
        public var time: BandTimeOfDay?
        /// The days (a repeat flag here is ignored: ``repeatsWeekly`` says).
        public var days: BandWeekdays?
        public var repeatsWeekly: Bool?

        public init(
            isOn: Bool? = nil, time: BandTimeOfDay? = nil, days: BandWeekdays? = nil, repeatsWeekly: Bool? = nil
        ) {
            (self.isOn, self.time, self.days, self.repeatsWeekly) = (isOn, time, days, repeatsWeekly)
        }

        public var isEmpty: Bool { self == Changes() }

        /// Alarm `id` (`alarm`, `nil` when not set) with the parts named changed, checked by the rules.
        public func applied(to alarm: BandAlarm?, id: Int) throws(BandSettingError) -> BandAlarm {
            guard let (hour, minute) = time.map({ ($0.hour, $0.minute) }) ?? alarm.map({ ($0.hour, $0.minute) }) else {
                throw BandSettingError("alarm.time", "is required: alarm \(id) is not set yet")
            }
            guard let weekdays = alarm?.weekdays ?? days else {
                throw BandSettingError("alarm.days", "are required: alarm \(id) is not set yet")
            }
            return try BandAlarm(
                id: id, isOn: isOn ?? alarm?.isOn ?? true, isViable: alarm?.isViable ?? true, hour: hour,
                minute: minute, weekdays: weekdays.changing(days: days, repeats: repeatsWeekly))
        }
    }
}

extension BandPersonalInfo {
    /// The parts of the wearer a person names; `nil` leaves a part as the band has it. A band without a wearer
    /// needs them all.
    public struct Changes: Hashable, Sendable {
        public var gender: Gender?
        public var height: Int?
        public var weight: Int?
        public var age: Int?
        public var stepTarget: Int?

        public init(
            gender: Gender? = nil, height: Int? = nil, weight: Int? = nil, age: Int? = nil, stepTarget: Int? = nil
        ) {
            (self.gender, self.height, self.weight, self.age, self.stepTarget) = (
                gender, height, weight, age, stepTarget
            )
        }

        public var isEmpty: Bool { self == Changes() }

        /// Throws for a part named outside its range, whatever the band's wearer.
        public func check() throws(BandSettingError) {
            _ = try applied(to: BandPersonalInfo(gender: .man, height: 170, weight: 70, age: 30, stepTarget: 8_000))
        }

        /// `info` (`nil` when the band has no wearer) with the parts named changed, checked by the rules.
        public func applied(to info: BandPersonalInfo?) throws(BandSettingError) -> BandPersonalInfo {
            guard let gender = gender ?? info?.gender, let height = height ?? info?.height,
                let weight = weight ?? info?.weight, let age = age ?? info?.age,
                let stepTarget = stepTarget ?? info?.stepTarget
            else {
                let missing = [
                    ("gender", gender == nil), ("height", height == nil), ("weight", weight == nil),
                    ("age", age == nil),
                    ("target", stepTarget == nil),
                ].filter(\.1).map(\.0)
                throw BandSettingError(
                    "personal.\(missing[0])",
                    "is required: the band has no wearer yet (give \(missing.joined(separator: ", ")))")
            }
            return try BandPersonalInfo(
                gender: gender, height: height, weight: weight, age: age, stepTarget: stepTarget)
        }
    }
}

extension BandSportTargets {
    /// The sports a person names: each set to its target (added when not active), and those removed; the other
    /// active sports stay as the band has them.
    public struct Changes: Sendable {
        public var targets: [(sport: BandSport, calories: Int)]
        public var removed: [BandSport]

        public init(targets: [(sport: BandSport, calories: Int)] = [], removed: [BandSport] = []) {
            self.targets = targets
            self.removed = removed
        }

        public var isEmpty: Bool { targets.isEmpty && removed.isEmpty }

        /// Throws for a sport named wrongly whatever the band's targets: more than 5, one twice, one not of the
        /// table, a target outside 1–65535, walking removed.
        public func check() throws(BandSettingError) {
            guard targets.count <= 5 else {
                throw BandSettingError("sports", "must be 1 to 5 sports (\(targets.count) given)")
            }
            guard !removed.contains(.walk) else { throw BandSettingError("sports", "must include walking (0x01)") }
            try BandSportTargets.checkEach(targets)
        }

        /// `current` (`nil` when the band has none) with the sports named set or removed, checked by the rules.
        public func applied(to current: BandSportTargets?) throws(BandSettingError) -> BandSportTargets {
            var list = (current?.targets ?? []).filter { !removed.contains($0.sport) }
            for target in targets {
                if let index = list.firstIndex(where: { $0.sport == target.sport }) {
                    list[index].calories = target.calories
                } else {
                    list.append(target)
                }
            }
            return try BandSportTargets(list)
        }
    }
}

extension SmartbandDriver {
    /// Runs the getter `command` and returns the answer `pick` finds among the band's answers, storing what the
    /// band pushes meanwhile.
    ///
    /// - Throws: ``DeviceError/Code/protocolViolation`` if the band does not answer with one.
    private func answer<Answer>(
        _ command: BandCommand, _ what: String, storingInto sink: any RecordSink,
        _ pick: (BandMessage) -> Answer?
    ) async throws(DeviceError) -> Answer {
        let answers = try await run(command, storingInto: sink).compactMap(pick)
        guard answers.count == 1, let answer = answers.first else {
            throw DeviceError(
                .protocolViolation, message: "the band answered \(answers.count) times with its \(what), not once")
        }
        return answer
    }

    /// The band's hardware options (``BandCommand/getHardwareOptions``); what it pushes meanwhile is stored.
    ///
    /// - Throws: ``DeviceError/Code/protocolViolation`` if the band does not say them once.
    public func hardwareOptions(storingInto sink: any RecordSink) async throws(DeviceError) -> BandHardwareOptions {
        try await answer(.getHardwareOptions, "options", storingInto: sink) {
            if case .hardwareOptions(let options) = $0 { options } else { nil }
        }
    }

    /// The band's 8 alarms, by id (0–7), `nil` for one never set (``BandCommand/getAlarms``).
    ///
    /// - Throws: ``DeviceError/Code/protocolViolation`` unless the band says each alarm once, in id order.
    public func alarms(storingInto sink: any RecordSink) async throws(DeviceError) -> [BandAlarm?] {
        var alarms: [BandAlarm?] = []
        for answer in try await run(.getAlarms, storingInto: sink) {
            guard case .alarm(let id, let alarm) = answer else { continue }
            guard id == alarms.count else {
                throw DeviceError(
                    .protocolViolation, message: "the band sent alarm \(id) where \(alarms.count) was due")
            }
            alarms.append(alarm)
        }
        guard alarms.count == 8 else {
            throw DeviceError(.protocolViolation, message: "the band sent \(alarms.count) alarms, not 8")
        }
        return alarms
    }

    /// The band's sedentary reminder (``BandCommand/getSedentaryReminder``).
    ///
    /// - Throws: ``DeviceError/Code/protocolViolation`` if the band does not say it once.
    public func sedentaryReminder(storingInto sink: any RecordSink) async throws(DeviceError)
        -> BandSedentaryReminder
    {
        try await answer(.getSedentaryReminder, "sedentary reminder", storingInto: sink) {
            if case .sedentaryReminder(let reminder) = $0 { reminder } else { nil }
        }
    }

    /// The band's wearer, `nil` when it was never told (``BandCommand/getPersonalInfo``).
    ///
    /// - Throws: ``DeviceError/Code/protocolViolation`` if the band does not say once.
    public func personalInfo(storingInto sink: any RecordSink) async throws(DeviceError) -> BandPersonalInfo? {
        try await answer(.getPersonalInfo, "wearer", storingInto: sink) { message -> BandPersonalInfo?? in
            if case .personalInfo(let info) = message { .some(info) } else { nil }
        }
    }

    /// The band's active sports with their targets, `nil` when none were set (``BandCommand/getSportTargets``).
    ///
    /// - Throws: ``DeviceError/Code/protocolViolation`` if the band does not say once.
    public func sportTargets(storingInto sink: any RecordSink) async throws(DeviceError) -> BandSportTargets? {
        try await answer(.getSportTargets, "sports", storingInto: sink) { message -> BandSportTargets?? in
            if case .sportTargets(let targets) = message { .some(targets) } else { nil }
        }
    }

    /// Reads the band's options and, when `changes` names any, changes those, writes the options back and returns
    /// what was written. Parts named wrongly, or a background on a model without one, are refused before anything
    /// is read or written.
    ///
    /// - Throws: ``BandSettingError`` naming the option; `DeviceError` if the band fails.
    public func changeHardwareOptions(_ changes: BandHardwareOptions.Changes, storingInto sink: any RecordSink)
        async throws
        -> BandHardwareOptions
    {
        try changes.check(for: entry.model)
        let options = try await hardwareOptions(storingInto: sink)
        guard !changes.isEmpty else { return options }
        let changed = try changes.applied(to: options)
        try await run(.setHardwareOptions(changed), storingInto: sink)
        return changed
    }

    /// Reads the sedentary reminder and, when `changes` names a part, changes it, writes the reminder back and
    /// returns what was written.
    ///
    /// - Throws: ``BandSettingError`` naming the part (before anything is read for a part wrong by itself);
    ///   `DeviceError` if the band fails.
    public func changeSedentaryReminder(_ changes: BandSedentaryReminder.Changes, storingInto sink: any RecordSink)
        async throws
        -> BandSedentaryReminder
    {
        try changes.check()
        let reminder = try await sedentaryReminder(storingInto: sink)
        guard !changes.isEmpty else { return reminder }
        let changed = try changes.applied(to: reminder)
        try await run(.setSedentary(changed), storingInto: sink)
        return changed
    }

    /// Reads alarm `id` and, when `changes` names a part, changes it, writes the alarm back and returns what was
    /// written; `nil` for an alarm not set when nothing is named.
    ///
    /// - Throws: ``BandSettingError`` naming the part (`alarm.id` before anything is read); `DeviceError` if the
    ///   band fails.
    public func changeAlarm(_ id: Int, _ changes: BandAlarm.Changes, storingInto sink: any RecordSink) async throws
        -> BandAlarm?
    {
        guard (0...7).contains(id) else { throw BandSettingError("alarm.id", "must be 0 to 7") }
        let alarm = try await alarms(storingInto: sink)[id]
        guard !changes.isEmpty else { return alarm }
        let changed = try changes.applied(to: alarm, id: id)
        try await run(.setAlarm(changed), storingInto: sink)
        return changed
    }

    /// Reads the wearer and, when `changes` names a part, changes it, writes the wearer back and returns what was
    /// written; `nil` for a band without a wearer when nothing is named.
    ///
    /// - Throws: ``BandSettingError`` naming the part; `DeviceError` if the band fails.
    public func changePersonalInfo(_ changes: BandPersonalInfo.Changes, storingInto sink: any RecordSink) async throws
        -> BandPersonalInfo?
    {
        try changes.check()
        let info = try await personalInfo(storingInto: sink)
        guard !changes.isEmpty else { return info }
        let changed = try changes.applied(to: info)
        try await run(.setPersonalInfo(changed), storingInto: sink)
        return changed
    }

    /// Reads the active sports and, when `changes` names any, sets or removes those, writes the sports back and
    /// returns what was written; `nil` for a band without sports when nothing is named.
    ///
    /// - Throws: ``BandSettingError`` naming the sport; `DeviceError` if the band fails.
    public func changeSportTargets(_ changes: BandSportTargets.Changes, storingInto sink: any RecordSink) async throws
        -> BandSportTargets?
    {
        try changes.check()
        let targets = try await sportTargets(storingInto: sink)
        guard !changes.isEmpty else { return targets }
        let changed = try changes.applied(to: targets)
        try await run(.setSportTargets(changed), storingInto: sink)
        return changed
    }
}
