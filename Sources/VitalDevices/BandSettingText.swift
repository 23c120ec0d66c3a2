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
