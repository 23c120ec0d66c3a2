import VitalCore

/// The device families, one driver each.
public enum DeviceFamily: String, Hashable, Sendable, CaseIterable, Codable {
    case bloodPressure
    case glucose
    case scale
    case thermometer
    case pulseOximeter
    case activityMonitor
    /// The smartbands Fit Pro 9614N, Fit Pulse 9615N and Smartee Training 9616N (VitalBridge's `700`–`702`).
    case smartband
    /// Bluetooth SIG Heart Rate Service sensors (VitalBridge's `905`).
    case heartRateSensor
}

extension DeviceFamily {
    /// What a family is and does, described once: the drivers, the simulator and the engine's messages read it here
    /// instead of each switching over the families.
    public struct Traits: Sendable {
        /// The kind of reading the family's devices take.
        public let kind: ReadingKind
        /// A device of the family as a person calls it, for messages: `blood pressure monitor`.
        public let deviceName: String
        /// Whether the devices indicate their stored readings unasked, each deleted when confirmed: blood pressure
        /// monitors, scales and thermometers (the others delete only on a command).
        public let pushesStoredRecords: Bool
        /// Whether the devices send live samples while they measure (``LiveSample``): pulse oximeters (SpO2, pulse,
        /// PI and the pulse wave), blood pressure monitors (the Intermediate Cuff Pressure) and heart-rate sensors
        /// (each beat's rate and RR intervals).
        public let streamsLiveSamples: Bool
        /// The characteristic the family's devices send their readings on (their stored ones too, for those that push
        /// them); a scale that measures body composition sends them on Body Composition Measurement instead.
        public let measurementCharacteristic: CharacteristicID
        /// The characteristic a device may send its progress on while it measures, subscribed when it has it: a
        /// blood pressure monitor's Intermediate Cuff Pressure.
        public let progressCharacteristic: CharacteristicID?
        /// Whether the profile's measurements carry a user ID (Blood Pressure, Weight and Body Composition
        /// Measurement).
        public let carriesUserID: Bool
        /// The device's own error codes the hub knows (``DeviceErrorCodes``); thermometers, activity monitors,
        /// smartbands and heart-rate sensors report none.
        public let errorCodes: [Int: String]
    }

    /// What the family is and does.
    public var traits: Traits { Self.traits[self]! }

    private static let traits: [DeviceFamily: Traits] = [
        .bloodPressure: Traits(
            kind: .bloodPressure, deviceName: "blood pressure monitor", pushesStoredRecords: true,
            streamsLiveSamples: true, measurementCharacteristic: GATTCharacteristics.bloodPressureMeasurement,
            progressCharacteristic: GATTCharacteristics.intermediateCuffPressure,
            carriesUserID: true, errorCodes: DeviceErrorCodes.bloodPressure),
        .glucose: Traits(
            kind: .glucose, deviceName: "glucose meter", pushesStoredRecords: false, streamsLiveSamples: false,
            measurementCharacteristic: GATTCharacteristics.glucoseMeasurement,
            progressCharacteristic: nil, carriesUserID: false, errorCodes: DeviceErrorCodes.glucose),
        .scale: Traits(
            kind: .weight, deviceName: "scale", pushesStoredRecords: true, streamsLiveSamples: false,
            measurementCharacteristic: GATTCharacteristics.weightMeasurement,
            progressCharacteristic: nil, carriesUserID: true, errorCodes: DeviceErrorCodes.scale),
        .thermometer: Traits(
            kind: .temperature, deviceName: "thermometer", pushesStoredRecords: true, streamsLiveSamples: false,
            measurementCharacteristic: GATTCharacteristics.temperatureMeasurement,
            progressCharacteristic: nil, carriesUserID: false, errorCodes: [:]),
        .pulseOximeter: Traits(
            kind: .oximetry, deviceName: "pulse oximeter", pushesStoredRecords: false, streamsLiveSamples: true,
            measurementCharacteristic: GATTCharacteristics.plxSpotCheck,
            progressCharacteristic: nil, carriesUserID: false, errorCodes: DeviceErrorCodes.pulseOximeter),
        .activityMonitor: Traits(
            kind: .activity, deviceName: "activity monitor", pushesStoredRecords: false, streamsLiveSamples: false,
            measurementCharacteristic: GATTCharacteristics.activityRecords,
            progressCharacteristic: nil, carriesUserID: false, errorCodes: [:]),
        .smartband: Traits(
            kind: .bandDay, deviceName: "smartband", pushesStoredRecords: false, streamsLiveSamples: false,
            measurementCharacteristic: GATTCharacteristics.bandData,
            progressCharacteristic: nil, carriesUserID: false, errorCodes: [:]),
        .heartRateSensor: Traits(
            kind: .heartRate, deviceName: "heart-rate sensor", pushesStoredRecords: false, streamsLiveSamples: true,
            measurementCharacteristic: GATTCharacteristics.heartRateMeasurement,
            progressCharacteristic: nil, carriesUserID: false, errorCodes: [:]),
    ]

    /// The family of devices that take `reading`: a table lookup, as the simulator asks it of every record it sends.
    public init(of reading: Reading) { self = Self.byKind[reading.kind.ordinal] }

    /// The family of each kind, by the kind's `ordinal`, derived from the traits once.
    private static let byKind: [DeviceFamily] = ReadingKind.allCases.map { kind in
        allCases.first { $0.traits.kind == kind }!
    }
}

/// The Bluetooth profile a family speaks: a SIG service, or VitalBridge's documented vendor service for the
/// activity monitors, which no SIG profile fits.
public enum DeviceProfile: String, Hashable, Sendable {
    /// Blood Pressure Service (0x1810).
    case bloodPressure
    /// Glucose Service (0x1808) with the Record Access Control Point.
    case glucose
    /// Weight Scale Service (0x181D); with Body Composition Service (0x181B) where the model measures it.
    case weightScale
    /// Health Thermometer Service (0x1809).
    case healthThermometer
    /// Pulse Oximeter Service (0x1822) with the Record Access Control Point for stored spot-checks.
    case pulseOximeter
    /// VitalBridge's activity service (``VendorGATT/activityService``).
    case vendorActivity
    /// VitalBridge's smartband service (``SmartbandGATT/service``).
    case smartband
    /// Heart Rate Service (0x180D).
    case heartRate

    /// Whether the profile needs a bond before the hub can read it: the Glucose Profile requires an encrypted link
    /// for its service, which a device gives only to a central it bonded with; the other profiles here also answer
    /// a central that did not pair.
    public var requiresBonding: Bool { self == .glucose }

    /// The primary service UUID a central scans for.
    public var serviceUUID: UInt16 {
        switch self {
        case .bloodPressure: 0x1810
        case .glucose: 0x1808
        case .weightScale: 0x181D
        case .healthThermometer: 0x1809
        case .pulseOximeter: 0x1822
        case .vendorActivity: VendorGATT.activityService
        case .smartband: SmartbandGATT.service
        case .heartRate: 0x180D
        }
    }
}

/// How the hub reaches a device.
public enum DeviceReach: String, Hashable, Sendable {
    /// Over Bluetooth Low Energy: found by scanning, then connected.
    case bluetooth
    /// Plugged into the phone (BG1's audio jack): never scanned for, connected directly.
    case wired
}

/// What the hub knows about a model: its family, profile, reach and capabilities.
public struct CatalogEntry: Hashable, Sendable {
    public let model: DeviceModel
    public let family: DeviceFamily
    public let profile: DeviceProfile
    public let reach: DeviceReach
    /// Whether the model takes a live measurement on request (the capability matrix's cmd 0).
    public let measuresLive: Bool
    /// Whether the model keeps readings the hub can sync (the capability matrix's cmd 2).
    public let storesRecords: Bool
    /// Whether the scale also measures body composition (Body Composition Service, 0x181B).
    public let measuresBodyComposition: Bool
    /// The name the device advertises, e.g. `BP5 11070`.
    public var advertisedNamePrefix: String { model.name }

    /// The characteristic the model sends its readings on (its stored ones too, for devices that push them): its
    /// family's, or Body Composition Measurement for a scale that measures it.
    public var measurementCharacteristic: CharacteristicID {
        measuresBodyComposition ? GATTCharacteristics.bodyComposition : family.traits.measurementCharacteristic
    }
}

/// Every model of the layered protocol and how the hub talks to it.
public enum DeviceCatalog {
    /// The entry of `model`.
    public static func entry(for model: DeviceModel) -> CatalogEntry {
        let family: DeviceFamily
        let profile: DeviceProfile
        switch model.category {
        case .bloodPressure: (family, profile) = (.bloodPressure, .bloodPressure)
        case .bloodGlucose: (family, profile) = (.glucose, .glucose)
        case .weight: (family, profile) = (.scale, .weightScale)
        case .thermometer: (family, profile) = (.thermometer, .healthThermometer)
        case .oximeter: (family, profile) = (.pulseOximeter, .pulseOximeter)
        case .activity where model.isSmartband: (family, profile) = (.smartband, .smartband)
        case .activity: (family, profile) = (.activityMonitor, .vendorActivity)
        case .heartRate: (family, profile) = (.heartRateSensor, .heartRate)
        }
        return CatalogEntry(
            model: model, family: family, profile: profile, reach: model == .bg1 ? .wired : .bluetooth,
            measuresLive: measuresLive(model), storesRecords: storesRecords(model),
            measuresBodyComposition: model == .hs4s)
    }

    /// Whether `model` takes a measurement the hub starts: the device's own facts, which the layered protocol's
    /// support matrix states too (`measure`).
    private static func measuresLive(_ model: DeviceModel) -> Bool {
        switch model {
        case .bp3l, .bp5, .bp7, .po3, .bg5, .bg1, .hs4, .hs4s, .hs2, .thv3: true
        case .bloodPressureMonitor, .glucoseMeter, .weightScale, .healthThermometer, .pulseOximeter, .heartRateSensor:
            true
        case .bpTrack, .bp7s, .am3s, .am4, .fitPro9614N, .fitPulse9615N, .smarteeTraining9616N: false
        }
    }

    /// Whether `model` keeps records the hub reads (the protocol's `sync`).
    private static func storesRecords(_ model: DeviceModel) -> Bool {
        switch model {
        case .bp5, .bpTrack, .bp7s, .bp7, .am3s, .am4, .po3, .bg5, .hs4, .hs4s, .hs2, .thv3: true
        case .fitPro9614N, .fitPulse9615N, .smarteeTraining9616N: true
        case .bloodPressureMonitor, .glucoseMeter, .weightScale, .healthThermometer, .pulseOximeter: true
        case .bp3l, .bg1, .heartRateSensor: false
        }
    }

    /// Every entry, in the protocol's model order.
    public static var all: [CatalogEntry] { DeviceModel.allCases.map(entry(for:)) }
}
