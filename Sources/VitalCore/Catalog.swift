/// What a device measures.
public enum VitalCategory: String, CaseIterable, Hashable, Sendable {
    case bloodPressure
    case bloodGlucose
    case weight
    case oximeter
    case thermometer
    case activity
    /// Heart rate and RR intervals (VitalBridge's generic SIG heart-rate sensors).
    case heartRate

    /// The unit results are given in when the request has no `unit`: mmHg, mg/dL, kg, °C, km; `nil` for the
    /// oximeter, whose SpO2 (%), pulse rate (bpm) and perfusion index (%) have no alternative unit, and for heart
    /// rate (bpm).
    public var defaultUnit: VitalUnit? {
        switch self {
        case .bloodPressure: .mmHg
        case .bloodGlucose: .mgPerDeciliter
        case .weight: .kilogram
        case .oximeter: nil
        case .thermometer: .celsius
        case .activity: .kilometre
        case .heartRate: nil
        }
    }

    /// The units a request may ask for; empty for the oximeter, which accepts and ignores any `unit`.
    public var units: [VitalUnit] { VitalUnit.allCases.filter { $0.category == self } }
}

extension DeviceModel {
    /// What the model measures.
    public var category: VitalCategory {
        switch self {
        case .bp5, .bp3l, .bpTrack, .bp7s, .bp7, .bloodPressureMonitor: .bloodPressure
        case .am3s, .am4, .fitPro9614N, .fitPulse9615N, .smarteeTraining9616N: .activity
        case .po3, .pulseOximeter: .oximeter
        case .bg5, .bg1, .glucoseMeter: .bloodGlucose
        case .hs4, .hs4s, .hs2, .weightScale: .weight
        case .thv3, .healthThermometer: .thermometer
        case .heartRateSensor: .heartRate
        }
    }

    /// Whether the model keeps a user profile (`userid`, `age`, `sex`, `height`, `weight`, `swim`) that the caller
    /// binds when it adds or syncs the device: the activity monitors AM3S and AM4. The smartbands take none (their
    /// wearer is set with `vitalbridge band personal`).
    public var hasUserProfile: Bool { self == .am3s || self == .am4 }

    /// Whether the model is one of VitalBridge's smartbands (`700`–`702`), which push what they record once.
    public var isSmartband: Bool { rawValue / 100 == 7 }

    /// Whether the model is one of VitalBridge's generic SIG devices (the 900 range): any maker's device of a
    /// Bluetooth SIG health profile, found by the service it advertises rather than by its name.
    public var isStandardProfile: Bool { rawValue / 100 == 9 }

    /// Whether a measurement needs a strip code (`codetype` and `code`): BG5.
    public var requiresStripCode: Bool { self == .bg5 }
}
