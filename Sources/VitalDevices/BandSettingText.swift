/// The band's settings as a person writes them: days, sports and times of day.
extension BandWeekdays {
    /// The days `text` names, separated by commas: `mon`, `tue`, `wed`, `thu`, `fri`, `sat`, `sun`, `weekdays`,
    /// `weekend` and `every-day`, in any case.
    ///
    /// - Throws: ``BandSettingError`` naming the first word that is not a day.
    public init(parsing text: String) throws(BandSettingError) {
        let names: [String: BandWeekdays] = [
            "mon": .monday, "tue": .tuesday, "wed": .wednesday, "thu": .thursday, "fri": .friday, "sat": .saturday,
            "sun": .sunday, "weekdays": [.monday, .tuesday, .wednesday, .thursday, .friday],
            "weekend": [.saturday, .sunday], "every-day": .everyDay,
        ]
        self = []
        for name in text.lowercased().split(separator: ",", omittingEmptySubsequences: false) {
            guard let day = names[String(name)] else {
                throw BandSettingError(
                    "days", "'\(name)' is not a day (mon, tue, wed, thu, fri, sat, sun, weekdays, weekend, every-day)")
            }
            formUnion(day)
        }
    }
}

extension BandSport {
    /// The sport `name` names: its name in the band's table (`walk`, `cycling`) or its code (`0x88`), in any case.
    public init?(named name: String) {
        let name = name.lowercased()
        if name.hasPrefix("0x") {
            guard let code = UInt8(name.dropFirst(2), radix: 16) else { return nil }
            self.init(rawValue: code)
        } else {
            guard let sport = Self.table.first(where: { $0.name == name })?.sport else { return nil }
            self = sport
        }
    }
}

/// A time of day on the band's clock, `HH:mm` (00:00 to 23:59): an alarm's or a schedule's.
public struct BandTimeOfDay: Hashable, Sendable {
    public var hour: Int
    public var minute: Int

    /// `HH:mm`, two digits each, 00:00 to 23:59; `nil` for anything else.
    public init?(parsing text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 }), let hour = Int(parts[0]),
            let minute = Int(parts[1]), (0...23).contains(hour), (0...59).contains(minute)
        else { return nil }
        (self.hour, self.minute) = (hour, minute)
    }
}

extension BandWeekdays {
    /// The days as ``init(parsing:)`` reads them (`mon,fri`, `weekdays`, `weekend`, `every-day`, or `no day`),
    /// then `, every week` or `, once`.
    public var text: String {
        let days = subtracting(.repeatsWeekly)
        let names: [(BandWeekdays, String)] = [
            (.everyDay, "every-day"), ([.monday, .tuesday, .wednesday, .thursday, .friday], "weekdays"),
            ([.saturday, .sunday], "weekend"),
        ]
        let short: [(BandWeekdays, String)] = [
            (.monday, "mon"), (.tuesday, "tue"), (.wednesday, "wed"), (.thursday, "thu"), (.friday, "fri"),
            (.saturday, "sat"), (.sunday, "sun"),
        ]
        let listed =
            names.first { $0.0 == days }?.1 ?? short.filter { days.contains($0.0) }.map(\.1).joined(separator: ",")
        return (listed.isEmpty ? "no day" : listed) + (contains(.repeatsWeekly) ? ", every week" : ", once")
    }
}

/// `on` or `off`.
private func word(_ on: Bool) -> String { on ? "on" : "off" }

/// `HH:mm`.
private func time(_ hour: Int, _ minute: Int) -> String {
    (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
}

extension BandHardwareOptions {
    /// One line per option, `name: value`, named and written as `band options` takes them.
    public var lines: [String] {
        [
            "units: \(units == .metric ? "metric" : "imperial")", "clock: \(clock == .twelveHour ? 12 : 24)",
            "auto-sleep: \(word(autoSleep))", "backlight: \(backlightStart)-\(backlightEnd)",
        ] + (whiteBackground.map { ["white-background: \(word($0))"] } ?? []) + [
            "language: \(language == .english ? "english" : "chinese")", "le: \(word(leSwitch))",
            "wrist: \(word(wristSwitch))",
        ]
    }
}

extension BandAlarm {
    /// `alarm 7: on, 06:30, mon,fri, every week`, with `(it will not ring)` when it will not.
    public var line: String {
        "alarm \(id): \(word(isOn)), \(time(hour, minute)), \(weekdays.text)" + (rings ? "" : " (it will not ring)")
    }
}

extension BandSedentaryReminder {
    /// `sedentary reminder: on, 9 to 17, weekdays, every week`.
    public var line: String { "sedentary reminder: \(word(isOn)), \(startHour) to \(endHour), \(weekdays.text)" }
}

extension BandPersonalInfo {
    /// `wearer: woman, 168 cm, 60 kg, 41 years, 8000 steps a day`.
    public var line: String {
        "wearer: \(gender == .man ? "man" : "woman"), \(height) cm, \(weight) kg, \(age) years, \(stepTarget) steps a day"
    }
}

extension BandSportTargets {
    /// One line per active sport: `walk: 300 kcal`.
    public var lines: [String] { targets.map { "\($0.sport): \($0.calories) kcal" } }
}

extension BandStatus {
    /// `bound: yes, to user 1111` (or `bound: no`), then one line per switch: `sport data: on`.
    public var lines: [String] {
        [
            "bound: " + (boundUserID.map { "yes, to user \($0)" } ?? "no"), "sport data: \(word(sportData))",
            "hourly heart rate: \(word(hourlyHeartRate))", "camera mode: \(word(cameraMode))",
        ]
    }
}

extension BandSupportedSports {
    /// `at most 5 active at once`, then a line per sport: its code, its name in the document's table, and the
    /// band's own name and unit from `names` when it gave them, e.g. `0x1  walk  走路 (步)`.
    public func lines(names: [BandSportName]) -> [String] {
        ["at most \(maximumActive) active at once"]
            + sports.map { sport in
                let own = names.first { $0.sport == sport }.map { "  \($0.name) (\($0.unit))" } ?? ""
                return "0x\(String(sport.rawValue, radix: 16, uppercase: true))  \(sport)\(own)"
            }
    }
}
