/// A device's Bluetooth MAC address as the protocol writes it: 12 hexadecimal digits, no separators.
///
/// Lower-case digits are accepted; the address is always written back in upper case (`004D3208D2F4`).
public struct MACAddress: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The 48-bit address.
    public let value: UInt64

    /// The address made of the 48 low bits of `value`; `nil` if higher bits are set.
    public init?(value: UInt64) {
        guard value >> 48 == 0 else { return nil }
        self.value = value
    }

    /// The address written as exactly 12 hexadecimal digits (either case), or `nil`.
    ///
    /// Inlinable, so that callers in other modules get it specialized for their string type rather than looking
    /// up `StringProtocol` conformances at run time.
    @inlinable
    public init?(_ text: some StringProtocol) {
        self.init(utf8: text.utf8)
    }

    /// The address written as exactly 12 hexadecimal digits (either case) in UTF-8, or `nil`.
    @inlinable
    public init?(utf8: some Sequence<UInt8>) {
        var value: UInt64 = 0
        var count = 0
        for byte in utf8 {
            guard let digit = hexDigitValue(byte), count < 12 else { return nil }
            value = value << 4 | UInt64(digit)
            count += 1
        }
        guard count == 12 else { return nil }
        self.value = value
    }

    /// The 12 upper-case hexadecimal digits.
    public var description: String {
        String(unsafeUninitializedCapacity: 12) { buffer in
            for index in 0..<12 {
                buffer[index] = upperHexDigits[Int((value >> UInt64(44 - 4 * index)) & 0xF)]
            }
            return 12
        }
    }

    public static func < (lhs: MACAddress, rhs: MACAddress) -> Bool { lhs.value < rhs.value }
}

/// The value of an ASCII hexadecimal digit, or `nil`.
@inlinable @inline(__always)
func hexDigitValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte &- UInt8(ascii: "0")
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte &- UInt8(ascii: "A") &+ 10
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte &- UInt8(ascii: "a") &+ 10
    default: nil
    }
}

@usableFromInline let upperHexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)
