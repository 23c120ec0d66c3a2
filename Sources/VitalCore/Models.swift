/// The iHealth device models of the layered-app protocol (`devicemodel`), with the spec's raw values.
///
/// The set is closed: a `devicemodel` the hub does not know cannot be served, so it is an invalid request.
public enum DeviceModel: Int, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    /// Blood pressure monitor BP5 (`100`).
    case bp5 = 100
    /// Blood pressure monitor BP3L (`101`).
    case bp3l = 101
    /// Blood pressure monitor BPTRACK, QR model string `KN550BT` (`102`).
    case bpTrack = 102
    /// Wrist blood pressure monitor BP7S (`103`).
    case bp7s = 103
    /// Wrist blood pressure monitor BP7 (`104`).
    case bp7 = 104
    /// Activity and sleep monitor AM3S (`200`).
    case am3s = 200
    /// Activity, sleep and swim monitor AM4 (`201`).
    case am4 = 201
    /// Pulse oximeter PO3 (`300`).
    case po3 = 300
    /// Blood glucose meter BG5 (`400`).
    case bg5 = 400
    /// Blood glucose meter BG1, plugged into the phone's audio jack (`402`).
    case bg1 = 402
    /// Scale HS4 (`500`).
    case hs4 = 500
    /// Scale HS4S (`501`).
    case hs4s = 501
    /// Scale HS2 (`502`).
    case hs2 = 502
    /// Thermometer THV3, QR model string `FDIR-V3` (`600`).
    case thv3 = 600
    /// Smartband Fit Pro 9614N (`700`): VitalBridge's extension of the protocol, not an iHealth model.
    case fitPro9614N = 700
    /// Smartband Fit Pulse 9615N (`701`): VitalBridge's extension.
    case fitPulse9615N = 701
    /// Smartband Smartee Training 9616N (`702`): VitalBridge's extension.
    case smarteeTraining9616N = 702
    /// A Bluetooth SIG Blood Pressure Service monitor of any maker (`900`): VitalBridge's extension, one of its
    /// generic SIG devices (the 900 range).
    case bloodPressureMonitor = 900
    /// A Bluetooth SIG Glucose Service meter of any maker (`901`): VitalBridge's extension.
    case glucoseMeter = 901
    /// A Bluetooth SIG Weight Scale Service scale of any maker, with Body Composition when it has it (`902`):
    /// VitalBridge's extension.
    case weightScale = 902
    /// A Bluetooth SIG Health Thermometer Service thermometer of any maker (`903`): VitalBridge's extension.
    case healthThermometer = 903
    /// A Bluetooth SIG Pulse Oximeter Service oximeter of any maker (`904`): VitalBridge's extension.
    case pulseOximeter = 904
    /// A Bluetooth SIG Heart Rate Service sensor of any maker (`905`): VitalBridge's extension.
    case heartRateSensor = 905

    /// The catalog name of the model, as the spec's `HealthDeviceType_<NAME>` writes it (`"BPTRACK"`, `"THV3"`); for
    /// VitalBridge's smartbands, the name their fleet entries and QR codes use (`"FitPro9614N"`).
    public var name: String {
        switch self {
        case .bp5: "BP5"
        case .bp3l: "BP3L"
        case .bpTrack: "BPTRACK"
        case .bp7s: "BP7S"
        case .bp7: "BP7"
        case .am3s: "AM3S"
        case .am4: "AM4"
        case .po3: "PO3"
        case .bg5: "BG5"
        case .bg1: "BG1"
        case .hs4: "HS4"
        case .hs4s: "HS4S"
        case .hs2: "HS2"
        case .thv3: "THV3"
        case .fitPro9614N: "FitPro9614N"
        case .fitPulse9615N: "FitPulse9615N"
        case .smarteeTraining9616N: "SmarteeTraining9616N"
        case .bloodPressureMonitor: "BPS"
        case .glucoseMeter: "GLS"
        case .weightScale: "WSS"
        case .healthThermometer: "HTS"
        case .pulseOximeter: "PLXS"
        case .heartRateSensor: "HRS"
        }
    }

    /// The model string printed in the device's QR code (`MODEL:MAC`), or `nil` for BG1, which has none.
    ///
    /// It differs from ``name`` for BPTRACK (`KN550BT`) and THV3 (`FDIR-V3`).
    public var qrModelString: String? {
        switch self {
        case .bpTrack: "KN550BT"
        case .thv3: "FDIR-V3"
        case .bg1: nil
        default: name
        }
    }

    /// The model a person names: its ``name`` or ``qrModelString`` (any case, ``init(modelString:)``), or its
    /// devicemodel number (`100`).
    public init?(nameOrNumber text: String) {
        guard let model = Self(modelString: text) ?? Int(text).flatMap(Self.init(rawValue:)) else { return nil }
        self = model
    }

    /// The model whose ``name`` or ``qrModelString`` is `string`, compared without regard to letter case.
    public init?(modelString string: some StringProtocol) {
        let upper = string.uppercased()
        guard
            let model = Self.allCases.first(where: { $0.name.uppercased() == upper || $0.qrModelString == upper })
        else {
            return nil
        }
        self = model
    }

    public var description: String { name }
}

/// The unit a caller wants results in (`unit`, the spec's `VitalUnit`).
public enum VitalUnit: Int, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    /// `0`: blood glucose in mmol/L.
    case mmolPerLiter = 0
    /// `1`: blood glucose in mg/dL.
    case mgPerDeciliter = 1
    /// `2`: blood pressure in mmHg.
    case mmHg = 2
    /// `3`: blood pressure in kPa.
    case kPa = 3
    /// `4`: weight in kilograms.
    case kilogram = 4
    /// `5`: weight in pounds.
    case pound = 5
    /// `6`: weight in stones.
    case stone = 6
    /// `7`: temperature in degrees Celsius.
    case celsius = 7
    /// `8`: temperature in degrees Fahrenheit.
    case fahrenheit = 8
    /// `9`: distance in miles (activity monitors).
    case mile = 9
    /// `10`: distance in kilometres (activity monitors).
    case kilometre = 10

    /// The category whose quantities the unit measures.
    public var category: VitalCategory {
        switch self {
        case .mmolPerLiter, .mgPerDeciliter: .bloodGlucose
        case .mmHg, .kPa: .bloodPressure
        case .kilogram, .pound, .stone: .weight
        case .celsius, .fahrenheit: .thermometer
        case .mile, .kilometre: .activity
        }
    }

    /// The unit's usual symbol (`"mmHg"`, `"mg/dL"`, `"°C"`).
    public var symbol: String {
        switch self {
        case .mmolPerLiter: "mmol/L"
        case .mgPerDeciliter: "mg/dL"
        case .mmHg: "mmHg"
        case .kPa: "kPa"
        case .kilogram: "kg"
        case .pound: "lb"
        case .stone: "st"
        case .celsius: "°C"
        case .fahrenheit: "°F"
        case .mile: "mi"
        case .kilometre: "km"
        }
    }

    public var description: String { symbol }
}

/// The user's sex in an activity monitor profile (`sex`, the spec's `UserSex`).
public enum UserSex: Int, CaseIterable, Hashable, Sendable {
    /// `0`
    case female = 0
    /// `1`
    case male = 1
}

/// Whether an activity monitor records swimming (`swim`, the spec's `SwimSwitch`).
public enum SwimSwitch: Int, CaseIterable, Hashable, Sendable {
    /// `0`
    case off = 0
    /// `1`
    case on = 1
}

/// The user profile an activity monitor (AM3S, AM4) is bound to, sent with its add and sync requests.
public struct ActivityProfile: Hashable, Sendable {
    /// `userid`: 1–2147483647.
    public var userID: Int32
    /// `age` in years: 1–255.
    public var age: UInt8
    /// `sex`.
    public var sex: UserSex
    /// `height` in centimetres: 1–255.
    public var height: UInt8
    /// `weight` in kilograms: 1–255.
    public var weight: UInt8
    /// `swim`: whether the monitor records swimming.
    public var swim: SwimSwitch
    /// `unit`: the distance unit the monitor shows, ``VitalUnit/mile`` or ``VitalUnit/kilometre``.
    public var distanceUnit: VitalUnit

    public init(
        userID: Int32, age: UInt8, sex: UserSex, height: UInt8, weight: UInt8, swim: SwimSwitch,
        distanceUnit: VitalUnit
    ) {
        self.userID = userID
        self.age = age
        self.sex = sex
        self.height = height
        self.weight = weight
        self.swim = swim
        self.distanceUnit = distanceUnit
    }
}

extension VitalUnit {
    /// The unit a person names: its symbol in any case (`mmol/L`, `mmhg`, `lb`), `C` or `F` for the degrees, and
    /// `mile` or `miles`.
    public init?(userText text: String) {
        let lowered = text.lowercased()
        let aliases: [String: VitalUnit] = ["c": .celsius, "f": .fahrenheit, "mile": .mile, "miles": .mile]
        if let unit = aliases[lowered] {
            self = unit
            return
        }
        guard let unit = VitalUnit.allCases.first(where: { $0.symbol.lowercased() == lowered }) else { return nil }
        self = unit
    }

    /// Every unit's symbol, for an error's list of what a person may name.
    public static var userTexts: String { allCases.map(\.symbol).joined(separator: ", ") }
}
