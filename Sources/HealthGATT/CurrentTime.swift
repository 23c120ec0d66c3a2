/// Current Time (0x2A2B) of the Current Time Service (0x1805): a device's clock as it reads now, with why it was
/// last adjusted (10 bytes).
///
/// The value is an Exact Time 256 (a Date Time, the day of the week 1–7 from Monday, or 0 when unknown, and the
/// fractions of the second in 1/256 s) followed by the Adjust Reason flags: bit 0 manual time update, bit 1
/// external reference time update, bit 2 change of time zone, bit 3 change of DST; bits 4–7 are reserved and
/// ignored. Days of the week 8–255 are reserved and rejected. A clock that was never set may read a Date Time of
/// zeros (every field unknown).
public struct CurrentTime: GATTCharacteristic {
    public static let uuid: UInt16 = 0x2A2B
    public static let name = "Current Time"
    /// The Current Time Service.
    public static let service: UInt16 = 0x1805

    /// Why the clock was last adjusted (Adjust Reason).
    public struct AdjustReason: OptionSet, Hashable, Sendable {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let manualTimeUpdate = AdjustReason(rawValue: 1)
        public static let externalReferenceTimeUpdate = AdjustReason(rawValue: 1 << 1)
        public static let changeOfTimeZone = AdjustReason(rawValue: 1 << 2)
        public static let changeOfDST = AdjustReason(rawValue: 1 << 3)
    }

    /// The date and time the clock shows.
    public var dateTime: DateTime
    /// The day of the week, 1 (Monday) to 7 (Sunday); 0 when unknown.
    public var dayOfWeek: UInt8
    /// The fraction of the second, in 1/256 s.
    public var fractions256: UInt8
    public var adjustReason: AdjustReason

    public init(dateTime: DateTime, dayOfWeek: UInt8 = 0, fractions256: UInt8 = 0, adjustReason: AdjustReason = []) {
        self.dateTime = dateTime
        self.dayOfWeek = dayOfWeek
        self.fractions256 = fractions256
        self.adjustReason = adjustReason
    }

    public init(bytes: [UInt8]) throws(GATTError) {
        var reader = ByteReader(bytes, characteristic: Self.name)
        dateTime = try reader.dateTime("exact_time_256.date_time")
        let at = reader.offset
        dayOfWeek = try reader.uint8("exact_time_256.day_of_week")
        guard dayOfWeek <= 7 else { throw reader.error(.reservedValue, "exact_time_256.day_of_week", at: at) }
        fractions256 = try reader.uint8("exact_time_256.fractions256")
        adjustReason = AdjustReason(rawValue: try reader.uint8("adjust_reason") & 0x0F)
        try reader.finish()
    }

    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(10)
        dateTime.append(to: &bytes)
        bytes += [dayOfWeek, fractions256, adjustReason.rawValue]
        return bytes
    }

    /// Whether the clock shows a Date Time of zeros: it was never set, and says no time at all.
    public var isUnknown: Bool { dateTime.year == 0 || dateTime.month == 0 || dateTime.day == 0 }
}
