/// A decimal number with a fixed number of fraction digits, as results carry them: `120`, `5.6`, `70.25`.
///
/// Results are rounded once, to the digits their unit allows, and written exactly; parsing the text back gives
/// the same significand and scale, so a callback survives a build and parse unchanged.
public struct FixedDecimal: Hashable, Sendable, CustomStringConvertible {
    /// The number times 10^``scale``.
    public var significand: Int64
    /// The number of fraction digits written, 0–9.
    public var scale: Int

    public init(significand: Int64, scale: Int) {
        precondition((0...9).contains(scale), "a FixedDecimal has 0 to 9 fraction digits")
        self.significand = significand
        self.scale = scale
    }

    /// A whole number.
    public init(_ integer: Int) { self.init(significand: Int64(integer), scale: 0) }

    /// `value` rounded half away from zero to `scale` fraction digits, or `nil` if it is not finite or too large.
    ///
    /// The value is nudged by one part in 10^9 away from zero before rounding, so that a half written inexactly
    /// in binary (`2.25` stored as `2.2499999…`) rounds as the decimal it stands for.
    public init?(rounding value: Double, scale: Int) {
        guard value.isFinite, (0...9).contains(scale) else { return nil }
        var power = 1.0
        for _ in 0..<scale { power *= 10 }
        let scaled = value * power
        let rounded = (scaled + scaled * 1e-9).rounded(.toNearestOrAwayFromZero)
        guard abs(rounded) < 9e15 else { return nil }
        self.init(significand: Int64(rounded), scale: scale)
    }

    /// The number as a `Double` (exact for the magnitudes results have).
    public var doubleValue: Double {
        var power = 1.0
        for _ in 0..<scale { power *= 10 }
        return Double(significand) / power
    }

    public var description: String {
        var bytes: [UInt8] = []
        append(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    public func append(to bytes: inout [UInt8]) {
        if significand < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = significand.magnitude
        var count = 1
        while count < 19, magnitude >= powersOfTen[count] { count += 1 }
        count = max(count, scale + 1)
        for position in 0..<count {
            if position == count - scale { bytes.append(UInt8(ascii: ".")) }
            let power = count - 1 - position
            let digit = magnitude / powersOfTen[power] % 10
            bytes.append(UInt8(ascii: "0") + UInt8(digit))
        }
    }
}

/// 10^0 … 10^18.
private let powersOfTen: [UInt64] = (0..<19).map { (0..<$0).reduce(1) { value, _ in value * 10 } }
