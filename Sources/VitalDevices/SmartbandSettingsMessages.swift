import HealthGATT
import VitalCore

// The smartband codec's settings: the bodies of the setters `07`–`10`, which the SDK document defines, shared with
// the answers `1A`–`1E` to the getters `16`–`1A`, which are VitalBridge's own (the document has setters and no
// getter). The rest of the codec is in SmartbandGATT.swift.

extension BandWriter {
    /// `nn (cc tttt)…`: the sports with their calorie targets; `00` for none (a band never given any).
    mutating func sportTargets(_ targets: BandSportTargets?) {
        let list = targets?.targets ?? []
        u8(list.count)
        for target in list {
            u8(Int(target.sport.rawValue))
            u16(target.calories)
        }
    }

    /// `ss vv hh mm ww`: an alarm after its id.
    mutating func alarm(_ alarm: BandAlarm) {
        flag(alarm.isOn)
        flag(alarm.isViable)
        u8(alarm.hour)
        u8(alarm.minute)
        u8(Int(alarm.weekdays.rawValue))
    }

    /// `ss hh hh ww`.
    mutating func sedentary(_ reminder: BandSedentaryReminder) {
        flag(reminder.isOn)
        u8(reminder.startHour)
        u8(reminder.endHour)
        u8(Int(reminder.weekdays.rawValue))
    }

    /// `gg hh ww aa tttttttt`.
    mutating func personalInfo(_ info: BandPersonalInfo) {
        u8(Int(info.gender.rawValue))
        u8(info.height)
        u8(info.weight)
        u8(info.age)
        u32(info.stepTarget)
    }

    /// `uu cc ss bs be wb ll le wr`, `wb` 0xFF for a model without a background choice.
    mutating func hardwareOptions(_ options: BandHardwareOptions) {
        u8(Int(options.units.rawValue))
        u8(Int(options.clock.rawValue))
        flag(options.autoSleep)
        u8(options.backlightStart)
        u8(options.backlightEnd)
        u8(options.whiteBackground.map { $0 ? 1 : 0 } ?? 0xFF)
        u8(Int(options.language.rawValue))
        flag(options.leSwitch)
        flag(options.wristSwitch)
    }
}

extension BandMessage {
    /// The bytes of a settings answer, `1A`–`1E`.
    var settingEncoded: [UInt8] {
        var writer = BandWriter()
        switch self {
        case .hardwareOptions(let options):
            writer.u8(0x1A)
            writer.hardwareOptions(options)
        case .alarm(let id, let alarm):
            writer.u8(0x1B)
            writer.u8(id)
            writer.flag(alarm != nil)
            if let alarm { writer.alarm(alarm) }
        case .sedentaryReminder(let reminder):
            writer.u8(0x1C)
            writer.sedentary(reminder)
        case .personalInfo(let info):
            writer.u8(0x1D)
            writer.flag(info != nil)
            if let info { writer.personalInfo(info) }
        case .sportTargets(let targets):
            writer.u8(0x1E)
            writer.sportTargets(targets)
        default: break
        }
        return writer.bytes
    }

    /// Decodes the body of a settings answer, `1A`–`1E`, with the setters' rules.
    static func settingMessage(_ type: Int, _ reader: inout ByteReader) throws(GATTError) -> BandMessage {
        switch type {
        case 0x1A: return .hardwareOptions(try reader.hardwareOptions())
        case 0x1B:
            let idOffset = reader.offset
            let id = try reader.u8("id")
            guard (0...7).contains(id) else { throw reader.error(.invalidValue, "id", at: idOffset) }
            // a rule broken is named at the alarm's id, as for `08`
            return .alarm(id: id, try reader.flag("set") ? try reader.alarm(id: id, start: idOffset) : nil)
        case 0x1C: return .sedentaryReminder(try reader.sedentary())
        case 0x1D: return .personalInfo(try reader.flag("set") ? try reader.personalInfo(start: reader.offset) : nil)
        default: return .sportTargets(try reader.sportTargets(allowingNone: true))
        }
    }
}

extension BandCommand {
    /// The getter of op code `opCode`, `16`–`1A`; `nil` for another.
    static func getter(_ opCode: Int) -> BandCommand? {
        switch opCode {
        case 0x16: .getHardwareOptions
        case 0x17: .getAlarms
        case 0x18: .getSedentaryReminder
        case 0x19: .getPersonalInfo
        case 0x1A: .getSportTargets
        default: nil
        }
    }
}

extension ByteReader {
    /// `nn (cc tttt)…`, checked as ``BandSportTargets`` checks them; `nil` for `00` when `allowingNone`.
    mutating func sportTargets(allowingNone: Bool) throws(GATTError) -> BandSportTargets? {
        let start = offset
        let count = try u8("count")
        var targets: [(sport: BandSport, calories: Int)] = []
        for index in 0..<count {
            let sport = BandSport(rawValue: UInt8(try u8("sports[\(index)]")))
            targets.append((sport, try u16("sports[\(index)].target")))
        }
        if count == 0, allowingNone { return nil }
        return try setting(start) { () throws(BandSettingError) in try BandSportTargets(targets) }
    }

    /// `ss vv hh mm ww` of alarm `id`; a value the rules refuse is an error at `start`.
    mutating func alarm(id: Int, start: Int) throws(GATTError) -> BandAlarm {
        let (on, viable) = (try flag("on"), try flag("viable"))
        let (hour, minute) = (try u8("hour"), try u8("minute"))
        let weekdays = BandWeekdays(rawValue: UInt8(try u8("weekdays")))
        return try setting(start) { () throws(BandSettingError) in
            try BandAlarm(id: id, isOn: on, isViable: viable, hour: hour, minute: minute, weekdays: weekdays)
        }
    }

    /// `ss hh hh ww`.
    mutating func sedentary() throws(GATTError) -> BandSedentaryReminder {
        let start = offset
        let on = try flag("on")
        let (from, to) = (try u8("startHour"), try u8("endHour"))
        let weekdays = BandWeekdays(rawValue: UInt8(try u8("weekdays")))
        return try setting(start) { () throws(BandSettingError) in
            try BandSedentaryReminder(isOn: on, startHour: from, endHour: to, weekdays: weekdays)
        }
    }

    /// `gg hh ww aa tttttttt`; a value the rules refuse is an error at `start`.
    mutating func personalInfo(start: Int) throws(GATTError) -> BandPersonalInfo {
        let genderOffset = offset
        guard let gender = BandPersonalInfo.Gender(rawValue: UInt8(try u8("gender"))) else {
            throw error(.invalidValue, "gender", at: genderOffset)
        }
        let (height, weight, age) = (try u8("height"), try u8("weight"), try u8("age"))
        let target = try u32("stepTarget")
        return try setting(start) { () throws(BandSettingError) in
            try BandPersonalInfo(gender: gender, height: height, weight: weight, age: age, stepTarget: target)
        }
    }

    /// `uu cc ss bs be wb ll le wr`.
    mutating func hardwareOptions() throws(GATTError) -> BandHardwareOptions {
        let start = offset
        guard let units = BandHardwareOptions.Units(rawValue: UInt8(try u8("units"))) else {
            throw error(.invalidValue, "units", at: start)
        }
        guard let clock = BandHardwareOptions.Clock(rawValue: UInt8(try u8("clock"))) else {
            throw error(.invalidValue, "clock", at: start + 1)
        }
        let autoSleep = try flag("autoSleep")
        let (from, to) = (try u8("backlightStart"), try u8("backlightEnd"))
        let backgroundOffset = offset
        let background = try u8("background")
        guard background <= 1 || background == 0xFF else {
            throw error(.invalidValue, "background", at: backgroundOffset)
        }
        let languageOffset = offset
        guard let language = BandHardwareOptions.Language(rawValue: UInt8(try u8("language"))) else {
            throw error(.invalidValue, "language", at: languageOffset)
        }
        let (le, wrist) = (try flag("leSwitch"), try flag("wristSwitch"))
        return try setting(start) { () throws(BandSettingError) in
            try BandHardwareOptions(
                units: units, clock: clock, autoSleep: autoSleep, backlightStart: from, backlightEnd: to,
                whiteBackground: background == 0xFF ? nil : background == 1, language: language, leSwitch: le,
                wristSwitch: wrist)
        }
    }
}
