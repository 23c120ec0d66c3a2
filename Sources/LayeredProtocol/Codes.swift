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

/// The operation a caller asks for (`cmd`, the spec's `LayeredAction`).
public enum LayeredAction: Int, CaseIterable, Hashable, Sendable {
    /// `0`: take a live measurement on a known device (`mac` required).
    case measure = 0
    /// `1`: add a device by Bluetooth scan or QR code.
    case add = 1
    /// `2`: read the records stored on a known device (`mac` required).
    case sync = 2
    /// `3`: add a device, then measure with it.
    case addMeasure = 3
    /// `4`: add a device, then sync its stored records.
    case addSync = 4
    /// `5`: add a device, sync its stored records, then measure.
    case addSyncMeasure = 5
    /// `6`: sync the stored records of a known device, then measure (`mac` required).
    case syncMeasure = 6

    /// The stages the action runs, in order.
    public var stages: [Stage] {
        switch self {
        case .measure: [.measure]
        case .add: [.add]
        case .sync: [.sync]
        case .addMeasure: [.add, .measure]
        case .addSync: [.add, .sync]
        case .addSyncMeasure: [.add, .sync, .measure]
        case .syncMeasure: [.sync, .measure]
        }
    }

    /// Whether the action has `stage`.
    public func includes(_ stage: Stage) -> Bool {
        switch (self, stage) {
        case (.measure, .measure), (.add, .add), (.sync, .sync): true
        case (.addMeasure, .add), (.addMeasure, .measure): true
        case (.addSync, .add), (.addSync, .sync): true
        case (.addSyncMeasure, _): true
        case (.syncMeasure, .sync), (.syncMeasure, .measure): true
        default: false
        }
    }

    /// Whether the action adds a device first (`addtype` required, `mac` not allowed).
    public var addsDevice: Bool { includes(.add) }

    /// Whether the action works on a device the caller names by `mac`.
    public var requiresMAC: Bool { !addsDevice }

    /// Whether the callback answers with a single status (`0`, `1`, `2`) rather than a composite one.
    public var hasSingleStatus: Bool { rawValue <= LayeredAction.sync.rawValue }

    /// Whether the action both syncs and measures, so its result is `{"measureresult":[…],"syncresult":[…]}`.
    public var hasCombinedResult: Bool { includes(.sync) && includes(.measure) }
}

/// The three stages an action is made of, in the order they run.
public enum Stage: Int, CaseIterable, Hashable, Sendable {
    case add
    case sync
    case measure

    /// The bit position of the stage's nibble in a composite ``ActionStatus``.
    var statusShift: Int {
        switch self {
        case .add: 4
        case .sync: 8
        case .measure: 12
        }
    }
}

/// How a device is added (`addtype`, the spec's `LayeredAddType`).
public enum AddType: Int, CaseIterable, Hashable, Sendable {
    /// `0`: find the paired device of the requested model by Bluetooth scan.
    case scan = 0
    /// `1`: read the device's MAC from its QR code.
    case qrCode = 1
}

/// The kind of BG5 strip code (`codetype`, the spec's `LayeredBGCodeType`).
public enum CodeType: Int, CaseIterable, Hashable, Sendable {
    /// `0`: the code is the text of the strip vial's QR code.
    case qrCode = 0
    /// `1`: any other strip code.
    case other = 1
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

/// Whether the hub asks the user before it connects to a scanned device (`popflag`).
public enum PopFlag: Int, CaseIterable, Hashable, Sendable {
    /// `0`: connect without a prompt.
    case noPrompt = 0
    /// `1`: show a prompt, which the user may decline.
    case prompt = 1
}

/// The platform a request came from; it decides the echo's name case, whether `appid` is required and the
/// default URL budget.
public enum Platform: String, CaseIterable, Hashable, Sendable {
    case ios
    case android

    /// The longest callback URL the platform's URL opener is trusted with, in characters.
    ///
    /// iOS: 20,000, as the spec says. Android: 200,000, our choice, well below the 1 MB Binder transaction
    /// limit an `Intent` travels through (two bytes a character).
    public var defaultCallbackBudget: Int {
        switch self {
        case .ios: 20_000
        case .android: 200_000
        }
    }
}

/// The protocol version the hub speaks (`ver`): `100`, the only one the spec defines.
public let layeredProtocolVersion = 100

/// The URL scheme the layered app answers to.
public let layeredAppScheme = "ihealth-layer"
