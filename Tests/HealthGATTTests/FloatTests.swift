import Testing

@testable import HealthGATT

@Suite("SFloat")
struct SFloatTests {
    @Test("special values are the spec's bit patterns, with exponent 0 only")
    func specials() {
        let expected: [(UInt16, SpecialFloatValue)] = [
            (0x07FF, .nan), (0x0800, .nres), (0x07FE, .positiveInfinity), (0x0802, .negativeInfinity),
            (0x0801, .reserved),
        ]
        for (bits, special) in expected {
            #expect(SFloat(bits: bits).special == special)
            #expect(SFloat(special).bits == bits)
            #expect(SFloat(bits: bits).doubleValue == nil)
            #expect(SFloat(bits: bits).description == special.rawValue)
            // the same mantissa with another exponent is an ordinary number
            let shifted = SFloat(bits: bits | 0x1000)
            #expect(shifted.special == nil)
            #expect(shifted.exponent == 1)
        }
        #expect(SFloat(bits: 0x17FF).doubleValue == 20470)
    }

    @Test(
        "decodes two's-complement exponent and mantissa",
        arguments: [
            // From Nordic's Android-BLE-Common-Library BloodPressureMeasurementDataCallbackTest: 18.9 = 0xF0BD.
            (0xF0BD, 189, -1, "18.9"), (0x0078, 120, 0, "120"), (0x008A, 138, 0, "138"),
            (0xF16C, 364, -1, "36.4"), (0x0FFF, -1, 0, "-1"), (0x0801 | 0x2000, -2047, 2, "-204700"),
            (0x8001, 1, -8, "0.00000001"), (0x7001, 1, 7, "10000000"), (0xE7FB, 2043, -2, "20.43"),
            (0x0000, 0, 0, "0"), (0xFF9C, -100, -1, "-10.0"),
        ] as [(UInt16, Int, Int, String)])
    func decode(bits: UInt16, mantissa: Int, exponent: Int, text: String) {
        let value = SFloat(bits: bits)
        #expect(value.mantissa == mantissa)
        #expect(value.exponent == exponent)
        #expect(value.description == text)
        #expect(SFloat(mantissa: mantissa, exponent: exponent)?.bits == bits)
    }

    @Test("every 16-bit pattern is kept exactly")
    func everyPattern() {
        for bits in UInt16.min...UInt16.max {
            let value = SFloat(bits: bits)
            if value.special == nil {
                #expect(SFloat(mantissa: value.mantissa, exponent: value.exponent)?.bits == bits)
            }
        }
    }

    @Test("encoding picks the shortest exact representation for a precision")
    func shortest() {
        #expect(SFloat(120.0, fractionDigits: 1).map { ($0.mantissa, $0.exponent) } ?? (0, 0) == (12, 1))
        #expect(SFloat(18.9, fractionDigits: 1)?.bits == 0xF0BD)
        #expect(SFloat(36.45, fractionDigits: 2) == nil)  // 3645 needs more than 12 bits
        #expect(SFloat(36.45, fractionDigits: 1)?.description == "36.5")
        #expect(SFloat(0, fractionDigits: 3)?.bits == 0)
        #expect(SFloat(-0.05, fractionDigits: 2)?.description == "-0.05")
        #expect(SFloat(2045, fractionDigits: 0)?.description == "2045")
        #expect(SFloat(2046, fractionDigits: 0) == nil)  // would be +INFINITY with exponent 0
        #expect(SFloat(20460, fractionDigits: 0)?.description == "20460")
        #expect(SFloat(12345, fractionDigits: 0) == nil)  // five significant digits
        #expect(SFloat(.nan, fractionDigits: 1) == nil)
        #expect(SFloat(.infinity, fractionDigits: 1) == nil)
        #expect(SFloat(1e-9, fractionDigits: 9) == nil)  // exponent below −8
        #expect(SFloat(mantissa: 2047, exponent: 0) == nil)
        #expect(SFloat(mantissa: 2048, exponent: 1) == nil)
        #expect(SFloat(mantissa: 1, exponent: 8) == nil)
    }

    @Test("encoding then decoding gives the rounded value", arguments: [0.0, 1, 18.9, 36.6, 98.6, 120, 0.5, 204.7])
    func roundTrip(value: Double) throws {
        let encoded = try #require(SFloat(value, fractionDigits: 1))
        #expect(encoded.doubleValue == value)
    }
}

@Suite("MedicalFloat")
struct MedicalFloatTests {
    @Test("special values are the spec's bit patterns")
    func specials() {
        let expected: [(UInt32, SpecialFloatValue)] = [
            (0x007F_FFFF, .nan), (0x0080_0000, .nres), (0x007F_FFFE, .positiveInfinity),
            (0x0080_0002, .negativeInfinity), (0x0080_0001, .reserved),
        ]
        for (bits, special) in expected {
            #expect(MedicalFloat(bits: bits).special == special)
            #expect(MedicalFloat(special).bits == bits)
            #expect(MedicalFloat(bits: bits | 0x0100_0000).special == nil)
        }
    }

    @Test("decodes the Nordic thermometer vector 0xFE000EB0 as 37.60")
    func nordic() {
        // Nordic Android-BLE-Common-Library TemperatureMeasurementDataCallbackTest: B0 0E 00 FE = 37.60 °C.
        let value = MedicalFloat(bits: 0xFE00_0EB0)
        #expect(value.mantissa == 3760 && value.exponent == -2)
        #expect(value.description == "37.60")
        #expect(value.doubleValue == 37.6)
        #expect(MedicalFloat(37.6, fractionDigits: 2)?.bits == 0xFF00_0178)  // shortest: 376 × 10^-1
    }

    @Test("mantissa and exponent cover their two's-complement ranges")
    func ranges() {
        #expect(MedicalFloat(mantissa: -0x80_0000, exponent: 5)?.mantissa == -0x80_0000)
        #expect(MedicalFloat(mantissa: 0x7F_FFFF, exponent: -128)?.exponent == -128)
        #expect(MedicalFloat(mantissa: 0x7F_FFFF, exponent: 0) == nil)
        #expect(MedicalFloat(mantissa: 0x7F_FFFD, exponent: 0)?.special == nil)
        #expect(MedicalFloat(mantissa: 1, exponent: 128) == nil)
        #expect(MedicalFloat(-40.5, fractionDigits: 1)?.description == "-40.5")
    }
}
