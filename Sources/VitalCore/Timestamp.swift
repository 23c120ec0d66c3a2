#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A calendar day, as an activity monitor's daily summary is dated (`time`, written `yyyy-MM-dd`).
public struct CalendarDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Days since 1970-01-01 in the proleptic Gregorian calendar.
    public var daysSince1970: Int64

    public init(daysSince1970: Int64) { self.daysSince1970 = daysSince1970 }

    /// The day `year`-`month`-`day`, or `nil` if there is no such day or the year is outside 1–9999.
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1,
            day <= daysInMonth(year: year, month: month)
        else { return nil }
        daysSince1970 = daysFromCivil(year: year, month: month, day: day)
    }

    /// Parses `yyyy-MM-dd` (exactly four, two and two digits).
    @inlinable
    public init?(parsing text: some StringProtocol) { self.init(utf8: Array(text.utf8)) }

    /// Inlined into callers so that `text` is read by code specialized for its type, not through the generic
    /// `StringProtocol` witnesses, whose first use costs the Swift runtime metadata lookups.
    @usableFromInline
    init?(utf8 bytes: [UInt8]) {
        guard bytes.count == 10, let (year, month, day) = dateFields(bytes) else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// Year, month and day.
    public var components: (year: Int, month: Int, day: Int) { civilFromDays(daysSince1970) }

    /// `yyyy-MM-dd`.
    public var description: String {
        let (year, month, day) = components
        var bytes: [UInt8] = []
        bytes.reserveCapacity(10)
        appendDigits(year, count: 4, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(month, count: 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(day, count: 2, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    public static func < (lhs: CalendarDate, rhs: CalendarDate) -> Bool { lhs.daysSince1970 < rhs.daysSince1970 }
}

/// An instant to the second, written in UTC as `yyyy-MM-dd HH:mm:ss` (`measured_at`).
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Seconds since 1970-01-01 00:00:00 UTC.
    public var secondsSince1970: Int64

    public init(secondsSince1970: Int64) { self.secondsSince1970 = secondsSince1970 }

    /// The instant `date`, to the second (fractions are dropped, rounding toward the past).
    public init(_ date: Date) {
        secondsSince1970 = Int64(date.timeIntervalSince1970.rounded(.down))
    }

    /// The UTC instant with these fields, or `nil` if they do not name one in years 1–9999.
    public init?(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        guard let date = CalendarDate(year: year, month: month, day: day), (0...23).contains(hour),
            (0...59).contains(minute), (0...59).contains(second)
        else { return nil }
        secondsSince1970 = date.daysSince1970 * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    /// Parses `yyyy-MM-dd HH:mm:ss` in UTC, exactly as ``description`` writes it.
    @inlinable
    public init?(parsing text: some StringProtocol) { self.init(utf8: Array(text.utf8)) }

    @usableFromInline
    init?(utf8 bytes: [UInt8]) {
        guard bytes.count == 19, let (year, month, day) = dateFields(bytes), bytes[10] == UInt8(ascii: " "),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), let hour = digits(bytes, 11, 2),
            let minute = digits(bytes, 14, 2), let second = digits(bytes, 17, 2)
        else { return nil }
        self.init(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// The instant as a `Date`.
    public var date: Date { Date(timeIntervalSince1970: TimeInterval(secondsSince1970)) }

    /// The UTC day the instant falls on.
    public var day: CalendarDate {
        CalendarDate(
            daysSince1970: secondsSince1970 >= 0 ? secondsSince1970 / 86_400 : (secondsSince1970 - 86_399) / 86_400)
    }

    /// `yyyy-MM-dd HH:mm:ss` in UTC.
    public var description: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(19)
        append(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    func append(to bytes: inout [UInt8]) {
        let day = self.day
        let (year, month, dayOfMonth) = day.components
        let seconds = Int(secondsSince1970 - day.daysSince1970 * 86_400)
        appendDigits(year, count: 4, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(month, count: 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(dayOfMonth, count: 2, to: &bytes)
        bytes.append(UInt8(ascii: " "))
        appendDigits(seconds / 3600, count: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(seconds / 60 % 60, count: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(seconds % 60, count: 2, to: &bytes)
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.secondsSince1970 < rhs.secondsSince1970
    }
}

/// `value` as exactly `count` decimal digits (zero-padded; `value` must fit).
@inline(__always)
private func appendDigits(_ value: Int, count: Int, to bytes: inout [UInt8]) {
    var divisor = 1
    for _ in 1..<count { divisor *= 10 }
    var rest = value
    while divisor > 0 {
        bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
        rest %= divisor
        divisor /= 10
    }
}

/// The numbers of the `yyyy-MM-dd` that `bytes` starts with (not yet checked to name a day), or `nil`.
private func dateFields(_ bytes: [UInt8]) -> (year: Int, month: Int, day: Int)? {
    guard bytes.count >= 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
        let year = digits(bytes, 0, 4), let month = digits(bytes, 5, 2), let day = digits(bytes, 8, 2)
    else { return nil }
    return (year, month, day)
}

/// The number written by `count` ASCII digits at `start`, or `nil`.
private func digits(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int? {
    var value = 0
    for byte in bytes[start..<start + count] {
        guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
        value = value * 10 + Int(byte - UInt8(ascii: "0"))
    }
    return value
}

private func isLeapYear(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

private func daysInMonth(year: Int, month: Int) -> Int {
    switch month {
    case 2: isLeapYear(year) ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
private func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
    let y = Int64(month <= 2 ? year - 1 : year)
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let shiftedMonth = Int64(month > 2 ? month - 3 : month + 9)
    let dayOfYear = (153 * shiftedMonth + 2) / 5 + Int64(day) - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's `civil_from_days`).
private func civilFromDays(_ days: Int64) -> (year: Int, month: Int, day: Int) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let shiftedMonth = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
    let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
    let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    return (Int(year), Int(month), Int(day))
}
