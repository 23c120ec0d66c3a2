import HealthGATT
import Testing

@Suite("User ID of Weight Scale and Body Composition measurements")
struct UserIDTests {
    @Test("a weight's user ID is the byte after the time stamp, 255 the unknown user", arguments: [0, 1, 254, 255])
    func weight(user: UInt8) throws {
        let bytes = hex("06 B036 E807 03 01 08 00 00") + [user]
        let value = try WeightMeasurement(bytes: bytes)
        #expect(value.userID == user)
        #expect(value.encoded() == bytes)
        expectEveryPrefixShort(WeightMeasurement.self, bytes)
    }

    @Test("a weight without flag bit 2 has no user ID")
    func weightWithout() throws {
        #expect(try WeightMeasurement(bytes: hex("00 B036")).userID == nil)
        #expect(
            WeightMeasurement(system: .si, weight: MassValue(raw: 14_000), userID: 9).encoded() == hex("04 B036 09"))
    }

    @Test("a body composition's user ID follows the body fat, also when that is unsuccessful", arguments: [0, 3, 255])
    func bodyComposition(user: UInt8) throws {
        let bytes = hex("0404 FFFF") + [user] + hex("B036")
        let value = try BodyCompositionMeasurement(bytes: bytes)
        #expect(value.userID == user && value.bodyFatPercentage == 0xFFFF && value.weight == MassValue(raw: 14_000))
        #expect(value.encoded() == bytes)
        expectEveryPrefixShort(BodyCompositionMeasurement.self, bytes)
    }
}
