/// Date Time (0x2A08): a calendar date and time of day, as a device's clock shows it (no time zone).
///
/// `year` 1582–9999 or 0 (unknown), `month` 1–12 or 0 (unknown), `day` 1–31 or 0 (unknown), `hours` 0–23,
/// `minutes` 0–59, `seconds` 0–59. Other values are rejected as out of range.
public struct DateTime: GATTCharacteristic, Comparable {
    public static let uuid: UInt16 = 0x2A08
    public static let name = "Date Time"

    public var year: UInt16
    public var month: UInt8
    public var day: UInt8
    public var hours: UInt8
    public var minutes: UInt8
    public var seconds: UInt8

    /// A date and time; the fields are not checked (``encoded()`` writes them as given).
    public init(year: UInt16, month: UInt8, day: UInt8, hours: UInt8, minutes: UInt8, seconds: UInt8) {
        self.year = year
        self.month = month
        self.day = day
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
    }

    public init(bytes: [UInt8]) throws(GATTError) {
        var reader = ByteReader(bytes, characteristic: Self.name)
        self = try reader.dateTime("date_time")
        try reader.finish()
    }

    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(7)
        append(to: &bytes)
        return bytes
    }

    func append(to bytes: inout [UInt8]) {
        bytes.appendLE(year)
        bytes.append(contentsOf: [month, day, hours, minutes, seconds])
    }

    /// The first field out of range and its offset within the 7 bytes, or `nil`.
    var invalidField: (String, Int)? {
        if year != 0, !(1582...9999).contains(year) { return ("year", 0) }
        if month > 12 { return ("month", 2) }
        if day > 31 { return ("day", 3) }
        if hours > 23 { return ("hours", 4) }
        if minutes > 59 { return ("minutes", 5) }
        if seconds > 59 { return ("seconds", 6) }
        return nil
    }

    public static func < (lhs: DateTime, rhs: DateTime) -> Bool {
        (lhs.year, lhs.month, lhs.day, lhs.hours, lhs.minutes, lhs.seconds)
            < (rhs.year, rhs.month, rhs.day, rhs.hours, rhs.minutes, rhs.seconds)
    }
}
