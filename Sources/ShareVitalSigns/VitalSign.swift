/// A ShareVitalSigns vital sign, or a combination of them: powers of two, combined by bitwise OR.
///
/// The basic signs are HR 1, RR 2, SPO2 4, TEMP 8, BPSYS 16, BPDIA 32, RRTAPS 64 and POFILES 128; the combinations
/// with a name of their own are BP 48, PO 5, RRATE 66 and POWITHFILES 133.
public struct VitalSign: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Heart rate (`1`).
    public static let hr = VitalSign(rawValue: 1)
    /// Respiratory rate (`2`).
    public static let rr = VitalSign(rawValue: 2)
    /// Oxygen saturation (`4`).
    public static let spo2 = VitalSign(rawValue: 4)
    /// Temperature (`8`).
    public static let temp = VitalSign(rawValue: 8)
    /// Systolic blood pressure (`16`).
    public static let bpSys = VitalSign(rawValue: 16)
    /// Diastolic blood pressure (`32`).
    public static let bpDia = VitalSign(rawValue: 32)
    /// Respiratory rate counted by taps (`64`).
    public static let rrTaps = VitalSign(rawValue: 64)
    /// Pulse-oximetry files (`128`).
    public static let poFiles = VitalSign(rawValue: 128)
    /// Blood pressure: BPSYS | BPDIA (`48`).
    public static let bp: VitalSign = [.bpSys, .bpDia]
    /// Pulse oximetry: HR | SPO2 (`5`).
    public static let po: VitalSign = [.hr, .spo2]
    /// Respiratory rate: RR | RRTAPS (`66`).
    public static let rrate: VitalSign = [.rr, .rrTaps]
    /// Pulse oximetry with files: PO | POFILES (`133`).
    public static let poWithFiles: VitalSign = [.po, .poFiles]

    /// The signs and combinations with a name, with their names and URL schemes (`nil`: none of its own).
    public static let named: [(sign: VitalSign, name: String, scheme: String?)] = [
        (.hr, "HR", "svs-hr"), (.rr, "RR", "svs-rr"), (.spo2, "SPO2", "svs-spo2"), (.temp, "TEMP", "svs-temp"),
        (.bpSys, "BPSYS", "svs-bpsys"), (.bpDia, "BPDIA", "svs-bpdia"), (.rrTaps, "RRTAPS", "svs-rrtaps"),
        (.poFiles, "POFILES", "svs-pofiles"), (.bp, "BP", "svs-bp"), (.po, "PO", "svs-po"),
        (.rrate, "RRATE", "svs-rrate"), (.poWithFiles, "POWITHFILES", nil),
    ]

    /// Every bit a sign may have: the eight basic signs.
    public static let all = VitalSign(rawValue: 255)

    /// The sign's name (`BP`), or its code for a combination without one.
    public var name: String? { Self.named.first { $0.sign == self }?.name }

    /// The URL scheme a provider of this sign registers (`svs-bp`); `nil` for a combination without one
    /// (POWITHFILES), which cannot be requested.
    public var scheme: String? { Self.named.first { $0.sign == self }?.scheme ?? nil }

    /// The sign of `scheme` (`svs-bp` → BP), compared without regard to case.
    public init?(scheme: String) {
        let lower = scheme.lowercased()
        guard let entry = Self.named.first(where: { $0.scheme == lower }) else { return nil }
        self = entry.sign
    }

    /// The sign named `name` (`BP`, `spo2`) or written as its code (`48`).
    public init?(parsing text: String) {
        if let code = Int(text), code > 0, code <= Self.all.rawValue {
            self.init(rawValue: code)
        } else if let entry = Self.named.first(where: { $0.name == text.uppercased() }) {
            self = entry.sign
        } else {
            return nil
        }
    }

    /// The integral binary exponent of the code (C's `ilogb`): the index of its highest sign, under which its value
    /// is kept (`<exponent>` and `<exponent>-qual`). BP 48 and BPDIA 32 are both 5; RRATE 66 and RRTAPS 64 are 6.
    /// `nil` for no sign.
    public var exponent: Int? { rawValue > 0 ? Int.bitWidth - 1 - rawValue.leadingZeroBitCount : nil }

    /// The basic signs the code holds, lowest first.
    public var basicSigns: [VitalSign] {
        (0..<8).map { VitalSign(rawValue: 1 << $0) }.filter { contains($0) }
    }

    /// Whether a provider of these signs provides `requested`: at least every requested sign
    /// (`provider & requested == requested`).
    public func provides(_ requested: VitalSign) -> Bool { rawValue & requested.rawValue == requested.rawValue }

    public var description: String { name.map { "\($0) (\(rawValue))" } ?? "\(rawValue)" }
}

/// The state a requester writes with its request: a new request (`1`) or a resumed one (`2`).
public enum RequestState: Int, Hashable, Sendable, CaseIterable {
    case new = 1
    case resume = 2
}

/// A provider's confidence in a value, 0 to 100.
public struct Quality: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let value: Int

    /// `nil` outside 0–100.
    public init?(_ value: Int) {
        guard (0...100).contains(value) else { return nil }
        self.value = value
    }

    public static func < (left: Quality, right: Quality) -> Bool { left.value < right.value }
    public var description: String { "\(value)" }
}

/// A vital sign's value: a number or a string, as the document's `passVitalSign` functions pass them.
public enum SignValue: Hashable, Sendable, CustomStringConvertible {
    case number(Int)
    case text(String)

    public var description: String {
        switch self {
        case .number(let number): "\(number)"
        case .text(let text): text
        }
    }
}
