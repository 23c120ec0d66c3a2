import HealthGATT
import Testing

/// Real devices set flag bits the SIG reserved for future use; the Core Specification says a receiver ignores them.
/// A field such a bit announces comes after every field this version knows, so the known fields still decode.
@Suite("Reserved flag bits")
struct ReservedFlagTests {
    /// A value with only known flags, and the same value with every reserved flag bit set and two bytes of a
    /// field nobody here knows appended.
    static func decodeBoth<C: GATTCharacteristic>(_ type: C.Type, _ known: [UInt8], reserved: UInt8, flagsAt: Int = 0)
        throws -> (C, C, C)
    {
        var extended = known
        extended[flagsAt] |= reserved
        return (try C(bytes: known), try C(bytes: extended), try C(bytes: extended + [0xAB, 0xCD]))
    }

    static func expectIgnored<C: GATTCharacteristic>(
        _ type: C.Type, _ known: [UInt8], reserved: UInt8, flagsAt: Int = 0
    ) throws {
        let (plain, flagged, followed) = try decodeBoth(type, known, reserved: reserved, flagsAt: flagsAt)
        #expect(plain == flagged && plain == followed, "\(C.name)")
        #expect(flagged.encoded() == known, "\(C.name): encoding derives the flags from the fields it has")
    }

    @Test("are ignored, with the field they announce, in every measurement that has them")
    func ignored() throws {
        try Self.expectIgnored(
            BloodPressureMeasurement.self, hex("1E 7900 5100 6A00 E407 04 11 14 29 3B 4800 01 3D00"), reserved: 0xE0)
        try Self.expectIgnored(
            GlucoseMeasurement.self, hex("1B 0100 E307 02 1B 0B 0A 1E FBFF 1E00 12 0501"), reserved: 0xE0)
        try Self.expectIgnored(WeightMeasurement.self, hex("0E B036 E807 03 01 08 00 00 02 E500 D606"), reserved: 0xF0)
        try Self.expectIgnored(TemperatureMeasurement.self, hex("06 B00E00FE DC07 0C 05 0B 32 1B 04"), reserved: 0xF8)
        try Self.expectIgnored(
            PLXSpotCheckMeasurement.self, hex("1F 6200 4800 E807 03 01 08 00 00 2001 200000 1C00"), reserved: 0xE0)
        try Self.expectIgnored(
            PLXContinuousMeasurement.self, hex("1F 6200 4800 6100 4900 6300 4700 0000 010000 FF07"), reserved: 0xE0)
        try Self.expectIgnored(HeartRateMeasurement.self, hex("0E 48 3412"), reserved: 0xE0)
        // The 16-bit flags of body composition: bits 13–15 are in the second byte.
        try Self.expectIgnored(
            BodyCompositionMeasurement.self, hex("0604 EB00 E807 03 01 08 00 00 01 B036"), reserved: 0xE0, flagsAt: 1)
    }

    @Test("without a reserved bit, a byte after the known fields is still rejected")
    func trailingStillRejected() {
        let error = #expect(throws: GATTError.self) { try TemperatureMeasurement(bytes: hex("00 B00E00FE 00")) }
        #expect(error?.code == .tooLong)
    }
}
