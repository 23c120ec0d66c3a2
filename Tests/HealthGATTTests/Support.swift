import HealthGATT
import Testing
import VitalTestSupport

/// Bytes from a hex string with optional spaces: `"1E 8A00"`.
func hex(_ text: String) -> [UInt8] {
    let digits = text.filter { !$0.isWhitespace }.map { UInt8(String($0), radix: 16)! }
    return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
}

/// Checks that every proper prefix of `bytes` fails with `.short`, naming a field at an offset inside the prefix.
func expectEveryPrefixShort<C: GATTCharacteristic>(_ type: C.Type, _ bytes: [UInt8]) {
    for count in 0..<bytes.count {
        let error = #expect(throws: GATTError.self, "prefix of \(count) bytes") {
            try C(bytes: Array(bytes.prefix(count)))
        }
        #expect(error?.code == .short, "prefix of \(count) bytes")
        #expect((error?.offset ?? .max) <= count)
        #expect(error?.characteristic == C.name)
    }
}

/// Checks that `value` encodes and decodes back to itself, and that the bytes decode to an equal value.
func expectRoundTrip<C: GATTCharacteristic>(_ value: C, sourceLocation: SourceLocation = #_sourceLocation) {
    let bytes = value.encoded()
    #expect(throws: Never.self, sourceLocation: sourceLocation) {
        let decoded = try C(bytes: bytes)
        #expect(decoded == value, sourceLocation: sourceLocation)
        #expect(decoded.encoded() == bytes, sourceLocation: sourceLocation)
    }
}

/// Checks that one extra byte after a complete value is rejected as too long at the end.
func expectTrailingByteRejected<C: GATTCharacteristic>(_ type: C.Type, _ bytes: [UInt8]) {
    let error = #expect(throws: GATTError.self) { try C(bytes: bytes + [0]) }
    #expect(error?.code == .tooLong)
    #expect(error?.offset == bytes.count)
}

extension SeededGenerator {
    mutating func sfloat() -> SFloat {
        Bool.random(using: &self)
            ? SFloat(
                mantissa: Int.random(in: -2045...2045, using: &self), exponent: Int.random(in: -8...7, using: &self))!
            : SFloat(bits: UInt16.random(in: .min ... .max, using: &self))
    }

    mutating func dateTime() -> DateTime {
        DateTime(
            year: Bool.random(using: &self) ? 0 : UInt16.random(in: 1582...9999, using: &self),
            month: UInt8.random(in: 0...12, using: &self), day: UInt8.random(in: 0...31, using: &self),
            hours: UInt8.random(in: 0...23, using: &self), minutes: UInt8.random(in: 0...59, using: &self),
            seconds: UInt8.random(in: 0...59, using: &self))
    }

    mutating func maybe<T>(_ make: (inout SeededGenerator) -> T) -> T? {
        Bool.random(using: &self) ? make(&self) : nil
    }

    mutating func uint16() -> UInt16 { UInt16.random(in: .min ... .max, using: &self) }
    mutating func uint8() -> UInt8 { UInt8.random(in: .min ... .max, using: &self) }
}

let seeds: [UInt64] = [1, 7, 42, 1234, 99_999]
