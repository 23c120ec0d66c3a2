import HealthGATT
import Testing
import VitalCore

@testable import HealthGATTJSON

/// `gatt decode`'s numbers: every SFLOAT and FLOAT written exactly, as JSON a strict parser reads, and documents in the
/// SIG's field order.
@Suite struct GATTNumberJSONTests {
    /// The document of `hex` decoded as `characteristic`, serialized as `gatt decode` prints it.
    static func printed(_ characteristic: String, _ bytes: [UInt8]) throws -> String {
        let document = try #require(GATTDecoder.named(characteristic)).decode(bytes)
        return String(decoding: try gattJSON(document).serialized(pretty: true), as: UTF8.self)
    }

    /// The members of a printed bare number, read back by VitalCore's parser, which refuses `NaN` and `Infinity`.
    static func members(_ text: String) throws -> [(key: String, value: JSON)] {
        guard case .object(let members) = try JSON.parse(Array(text.utf8)) else {
            Issue.record("not an object: \(text)")
            return []
        }
        return members
    }

    /// A number's value as significant digits and a power of ten, with no trailing zero in the digits: `3700 × 10^-2`
    /// and `37` are both `("37", 0)`. Read from decimal text (`-0.005`), or from a mantissa and exponent: two ways that
    /// share no code with the writer.
    static func normalized(text: String) -> (negative: Bool, digits: String, power: Int) {
        let negative = text.hasPrefix("-")
        let unsigned = negative ? String(text.dropFirst()) : text
        let parts = unsigned.split(separator: ".", omittingEmptySubsequences: false)
        let fraction = parts.count == 2 ? String(parts[1]) : ""
        return normalized(negative: negative, digits: String(parts[0]) + fraction, power: -fraction.count)
    }

    static func normalized(mantissa: Int, exponent: Int) -> (negative: Bool, digits: String, power: Int) {
        normalized(negative: mantissa < 0, digits: String(mantissa.magnitude), power: exponent)
    }

    private static func normalized(negative: Bool, digits: String, power: Int) -> (
        negative: Bool, digits: String, power: Int
    ) {
        var digits = Substring(digits.drop { $0 == "0" })
        var power = power
        while digits.last == "0" {
            digits.removeLast()
            power += 1
        }
        return digits.isEmpty ? (false, "0", 0) : (negative, String(digits), power)
    }

    /// Checks that the printed bare number of `bytes` is exactly `mantissa × 10^exponent`, or its special value's name.
    static func check(_ kind: String, _ bytes: [UInt8], mantissa: Int, exponent: Int, special: SpecialFloatValue?)
        throws
    {
        let members = try Self.members(try printed(kind, bytes))
        let value = try #require(members.first { $0.key == "value" }?.value)
        if let special {
            guard case .string(special.rawValue) = value else { throw Failure("\(bytes): \(value), not \(special)") }
            return
        }
        guard case .number(let text) = value else { throw Failure("\(bytes): \(value) is not a number") }
        #expect(!text.contains("e") && !text.contains("E"))
        guard normalized(text: text) == normalized(mantissa: mantissa, exponent: exponent) else {
            throw Failure("\(kind) \(bytes): \(text), not \(mantissa) × 10^\(exponent)")
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test("every one of the 65,536 SFLOATs prints as its exact value, or its special value's name")
    func everySFloat() throws {
        for bits in 0...UInt16.max {
            let number = SFloat(bits: bits)
            try Self.check(
                "sfloat", [UInt8(bits & 0xFF), UInt8(bits >> 8)], mantissa: number.mantissa,
                exponent: number.exponent, special: number.special)
        }
    }

    @Test(
        "every FLOAT exponent, with the mantissas at the ends of the range and between, prints exactly",
        arguments: [0, 1, -1, 10, 370, -370, 1_000_000, 8_388_604, -8_388_606, 8_388_605, 123_456, -7])
    func everyFloatExponent(mantissa: Int) throws {
        for exponent in -128...127 {
            let bits = UInt32(UInt8(bitPattern: Int8(exponent))) << 24 | UInt32(mantissa & 0xFF_FFFF)
            let number = MedicalFloat(bits: bits)
            try Self.check(
                "float", (0..<4).map { UInt8(truncatingIfNeeded: bits >> (8 * $0)) }, mantissa: number.mantissa,
                exponent: number.exponent, special: number.special)
        }
    }

    @Test("370 × 10^127, which printed as a bare NaN, prints as its 130 digits")
    func largeFloat() throws {
        let members = try Self.members(try Self.printed("float", [0x72, 0x01, 0x00, 0x7F]))
        #expect(members.map(\.key) == ["value", "mantissa", "exponent"])
        guard case .number(let text) = members[0].value else { throw Failure("\(members[0].value)") }
        #expect(text == "370" + String(repeating: "0", count: 127))
        guard case .number("370") = members[1].value, case .number("127") = members[2].value else {
            throw Failure("\(members)")
        }
    }

    @Test("the FLOAT special values print as their names, without a mantissa or exponent")
    func floatSpecials() throws {
        for special in SpecialFloatValue.allCases {
            let bits = MedicalFloat(special).bits
            let members = try Self.members(
                try Self.printed("float", (0..<4).map { UInt8(truncatingIfNeeded: bits >> (8 * $0)) }))
            #expect(members.map(\.key) == ["value"])
            guard case .string(special.rawValue) = members[0].value else { throw Failure("\(members)") }
        }
    }

    @Test("a document's members come in the SIG's field order")
    func fieldOrder() throws {
        // Nordic Android-BLE-Common-Library BloodPressureMeasurementDataCallbackTest (full)
        let bytes = GATTDecoder.bytes(hex: "1E 8A00 5800 7800 0000 04 11 14 29 3B 3C00 01 2700")!
        let members = try Self.members(try Self.printed("2A35", bytes))
        #expect(
            members.map(\.key) == [
                "unit", "systolic", "diastolic", "mean_arterial_pressure", "time_stamp", "pulse_rate", "user_id",
                "measurement_status",
            ])
        guard case .object(let time) = members[4].value else { throw Failure("\(members[4])") }
        #expect(time.map(\.key) == ["year", "month", "day", "hours", "minutes", "seconds"])
    }

    @Test("a property name is written in snake case as JSONEncoder wrote it")
    func snakeCaseKeys() {
        let cases = [
            ("meanArterialPressure", "mean_arterial_pressure"), ("userId", "user_id"), ("hba1c", "hba1c"),
            ("spO2", "sp_o2"), ("myURLKey", "my_url_key"), ("raw", "raw"), ("rrIntervals", "rr_intervals"),
        ]
        for (property, key) in cases { #expect(snakeCase(property) == key) }
    }
}
