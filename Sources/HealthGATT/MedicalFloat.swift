/// The special values of IEEE 11073-20601 SFLOAT and FLOAT, which exist only with exponent 0.
public enum SpecialFloatValue: String, Hashable, Sendable, CaseIterable {
    /// Not a Number.
    case nan = "NaN"
    /// Not at this resolution: the value cannot be represented with the available digits.
    case nres = "NRes"
    /// +INFINITY.
    case positiveInfinity = "+INFINITY"
    /// −INFINITY.
    case negativeInfinity = "-INFINITY"
    /// Reserved for future use.
    case reserved = "reserved"
}

/// IEEE 11073-20601 SFLOAT: a 16-bit decimal number, `mantissa × 10^exponent`, with a 4-bit two's-complement
/// exponent (−8…7) and a 12-bit two's-complement mantissa (−2048…2047).
///
/// With exponent 0, the mantissas `0x7FF` (NaN), `0x800` (NRes), `0x7FE` (+INFINITY), `0x802` (−INFINITY) and
/// `0x801` (reserved) are ``SpecialFloatValue``s. Every 16-bit pattern is a valid SFLOAT, and the value keeps its
/// exact bits: `120 × 10^0` and `12 × 10^1` are equal in value but not the same SFLOAT.
public struct SFloat: Hashable, Sendable, CustomStringConvertible {
    /// The 16 bits as sent.
    public let bits: UInt16

    public init(bits: UInt16) { self.bits = bits }

    /// The special value `special`.
    public init(_ special: SpecialFloatValue) {
        switch special {
        case .nan: bits = 0x07FF
        case .nres: bits = 0x0800
        case .positiveInfinity: bits = 0x07FE
        case .negativeInfinity: bits = 0x0802
        case .reserved: bits = 0x0801
        }
    }

    /// `mantissa × 10^exponent`, or `nil` if either is out of range or the pair would be a special value.
    public init?(mantissa: Int, exponent: Int) {
        guard (-2048...2047).contains(mantissa), (-8...7).contains(exponent),
            exponent != 0 || (-2045...2045).contains(mantissa)
        else { return nil }
        self.bits = UInt16(exponent & 0xF) << 12 | UInt16(mantissa & 0xFFF)
    }

    /// The shortest exact SFLOAT for `value` rounded to `fractionDigits` decimal places: the largest exponent
    /// whose mantissa represents the rounded value exactly (120.0 → 12 × 10^1). `nil` if the rounded value does
    /// not fit (more than four significant digits, or out of range) or `value` is not finite.
    public init?(_ value: Double, fractionDigits: Int) {
        guard
            let (mantissa, exponent) = shortestDecimal(
                value, fractionDigits: fractionDigits, mantissaRange: -2048...2047, exponentRange: -8...7,
                isSpecial: { $0 >= 2046 || $0 <= -2046 })
        else { return nil }
        self.init(mantissa: mantissa, exponent: exponent)
    }

    /// The special value, if this is one.
    public var special: SpecialFloatValue? {
        switch bits {
        case 0x07FF: .nan
        case 0x0800: .nres
        case 0x07FE: .positiveInfinity
        case 0x0802: .negativeInfinity
        case 0x0801: .reserved
        default: nil
        }
    }

    /// The signed 12-bit mantissa.
    public var mantissa: Int { Int(Int16(bitPattern: bits << 4) >> 4) }
    /// The signed 4-bit exponent.
    public var exponent: Int { Int(Int16(bitPattern: bits) >> 12) }

    /// The number, or `nil` for a special value.
    public var doubleValue: Double? {
        special == nil ? decimalValue(mantissa: mantissa, exponent: exponent) : nil
    }

    /// The exact decimal text (`18.9`, `1200`, `-0.05`) or the special value's name (`NaN`, `+INFINITY`).
    public var description: String {
        special?.rawValue ?? decimalText(mantissa: mantissa, exponent: exponent)
    }
}

/// IEEE 11073-20601 FLOAT: a 32-bit decimal number, `mantissa × 10^exponent`, with an 8-bit two's-complement
/// exponent and a 24-bit two's-complement mantissa.
///
/// With exponent 0, the mantissas `0x7FFFFF` (NaN), `0x800000` (NRes), `0x7FFFFE` (+INFINITY), `0x800002`
/// (−INFINITY) and `0x800001` (reserved) are ``SpecialFloatValue``s.
public struct MedicalFloat: Hashable, Sendable, CustomStringConvertible {
    /// The 32 bits as sent.
    public let bits: UInt32

    public init(bits: UInt32) { self.bits = bits }

    /// The special value `special`.
    public init(_ special: SpecialFloatValue) {
        switch special {
        case .nan: bits = 0x007F_FFFF
        case .nres: bits = 0x0080_0000
        case .positiveInfinity: bits = 0x007F_FFFE
        case .negativeInfinity: bits = 0x0080_0002
        case .reserved: bits = 0x0080_0001
        }
    }

    /// `mantissa × 10^exponent`, or `nil` if either is out of range or the pair would be a special value.
    public init?(mantissa: Int, exponent: Int) {
        guard (-0x80_0000...0x7F_FFFF).contains(mantissa), (-128...127).contains(exponent),
            exponent != 0 || (-0x7F_FFFD...0x7F_FFFD).contains(mantissa)
        else { return nil }
        self.bits = UInt32(UInt8(truncatingIfNeeded: exponent)) << 24 | UInt32(mantissa & 0xFF_FFFF)
    }

    /// The shortest exact FLOAT for `value` rounded to `fractionDigits` decimal places; `nil` if it does not fit
    /// or `value` is not finite.
    public init?(_ value: Double, fractionDigits: Int) {
        guard
            let (mantissa, exponent) = shortestDecimal(
                value, fractionDigits: fractionDigits, mantissaRange: -0x80_0000...0x7F_FFFF, exponentRange: -128...127,
                isSpecial: { $0 >= 0x7F_FFFE || $0 <= -0x7F_FFFE })
        else { return nil }
        self.init(mantissa: mantissa, exponent: exponent)
    }

    /// The special value, if this is one.
    public var special: SpecialFloatValue? {
        switch bits {
        case 0x007F_FFFF: .nan
        case 0x0080_0000: .nres
        case 0x007F_FFFE: .positiveInfinity
        case 0x0080_0002: .negativeInfinity
        case 0x0080_0001: .reserved
        default: nil
        }
    }

    /// The signed 24-bit mantissa.
    public var mantissa: Int { Int(Int32(bitPattern: bits << 8) >> 8) }
    /// The signed 8-bit exponent.
    public var exponent: Int { Int(Int8(truncatingIfNeeded: bits >> 24)) }

    /// The number, or `nil` for a special value.
    public var doubleValue: Double? {
        special == nil ? decimalValue(mantissa: mantissa, exponent: exponent) : nil
    }

    /// The exact decimal text or the special value's name.
    public var description: String {
        special?.rawValue ?? decimalText(mantissa: mantissa, exponent: exponent)
    }
}

/// `mantissa × 10^exponent` as a `Double`, dividing for negative exponents so that `189 × 10^-1` is `18.9`.
func decimalValue(mantissa: Int, exponent: Int) -> Double {
    var power = 1.0
    for _ in 0..<abs(exponent) { power *= 10 }
    return exponent >= 0 ? Double(mantissa) * power : Double(mantissa) / power
}

/// `mantissa × 10^exponent` written exactly in decimal: `18.9`, `1200`, `-0.05`.
func decimalText(mantissa: Int, exponent: Int) -> String {
    let sign = mantissa < 0 ? "-" : ""
    var digits = String(mantissa.magnitude)
    if exponent >= 0 {
        if mantissa != 0 { digits += String(repeating: "0", count: exponent) }
        return sign + digits
    }
    let fraction = -exponent
    if digits.count <= fraction { digits = String(repeating: "0", count: fraction - digits.count + 1) + digits }
    let point = digits.index(digits.endIndex, offsetBy: -fraction)
    return sign + digits[..<point] + "." + digits[point...]
}

/// The representation of `value` rounded to `fractionDigits` with the largest exponent whose mantissa is exact.
func shortestDecimal(
    _ value: Double, fractionDigits: Int, mantissaRange: ClosedRange<Int>, exponentRange: ClosedRange<Int>,
    isSpecial: (Int) -> Bool
) -> (mantissa: Int, exponent: Int)? {
    guard value.isFinite, (0...18).contains(fractionDigits) else { return nil }
    var power = 1.0
    for _ in 0..<fractionDigits { power *= 10 }
    let scaled = (value * power).rounded(.toNearestOrAwayFromZero)
    guard abs(scaled) < 9e18 else { return nil }
    var mantissa = Int(scaled)
    var exponent = -fractionDigits
    if mantissa == 0 { return (0, 0) }
    while mantissa % 10 == 0, exponent < exponentRange.upperBound {
        mantissa /= 10
        exponent += 1
    }
    // An exponent below the range: the digits cannot be shifted exactly.
    guard exponentRange.contains(exponent), mantissaRange.contains(mantissa) else { return nil }
    if exponent == 0, isSpecial(mantissa) { return nil }
    return (mantissa, exponent)
}
