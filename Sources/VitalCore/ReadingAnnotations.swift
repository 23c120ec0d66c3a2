/// What a device said about a reading beyond its values: the status it reported, the fields it could not measure,
/// whose reading it is, and the time its own clock gave.
///
/// Every reading kind carries one (``Reading/annotations``); a device that reports none of this leaves it
/// empty (``none``), and a reading with empty annotations is written exactly as before they existed.
///
/// ```swift
/// var reading = Reading.bloodPressure(.init(systolic: 0, diastolic: 80, heartRate: 71, measuredAt: time))
/// reading.markUnavailable(ReadingKind.bloodPressure.fields[0], .nan)   // the cuff sent 0x07FF for systolic
/// reading.annotations.status = [.bodyMovement]
/// reading.annotations.status.names                                      // ["bodyMovement"]
/// ```
public struct ReadingAnnotations: Hashable, Sendable {
    /// The statuses the device reported, by name (``ReadingStatus``).
    public var status: ReadingStatus
    /// The fields the device sent a special value for instead of a number: they are not in the reading's values
    /// (``ReadingField/value(in:)`` is `nil` for them), and this says why.
    public var unavailable: UnavailableFields
    /// The user index the device gave the reading (Blood Pressure and Weight Scale / Body Composition user ID); 255
    /// is the profiles' "unknown user". `nil`: the device keeps no users.
    public var userIndex: UInt8?
    /// The time the device's clock gave the reading, when ``Reading/measuredAt`` is that time corrected by the
    /// offset read from the device's clock in the same session; `nil` when the two are the same.
    public var deviceTime: Timestamp?

    public init(
        status: ReadingStatus = [], unavailable: UnavailableFields = UnavailableFields(), userIndex: UInt8? = nil,
        deviceTime: Timestamp? = nil
    ) {
        self.status = status
        self.unavailable = unavailable
        self.userIndex = userIndex
        self.deviceTime = deviceTime
    }

    /// No status, every field measured, no user, the device's time is the reading's.
    public static let none = ReadingAnnotations()

    /// Whether there is nothing to say: the reading is written as one without annotations.
    public var isEmpty: Bool { self == .none }

    /// The user index the profiles reserve for "unknown user".
    public static let unknownUser: UInt8 = 255
}

/// An IEEE 11073-20601 special value a device sent in place of a number (Bluetooth SIG SFLOAT and FLOAT).
public enum SpecialValue: UInt8, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    /// Not a number: the device could not measure the value (`0x07FF` in an SFLOAT).
    case nan = 1
    /// Not at this resolution (`0x0800`).
    case nres
    /// Above the measurable range (`0x07FE`).
    case positiveInfinity
    /// Below the measurable range (`0x0802`).
    case negativeInfinity
    /// Reserved for future use (`0x0801`).
    case reserved

    /// Its name in results, exports and the fleet file: `NaN`, `NRes`, `+INF`, `-INF`, `reserved`.
    public var description: String {
        switch self {
        case .nan: "NaN"
        case .nres: "NRes"
        case .positiveInfinity: "+INF"
        case .negativeInfinity: "-INF"
        case .reserved: "reserved"
        }
    }

    /// The special value named `name` (``description``).
    public init?(name: some StringProtocol) {
        guard let value = Self.allCases.first(where: { $0.description == name }) else { return nil }
        self = value
    }
}

/// The fields of a reading a device sent a special value for, each with its ``SpecialValue``: four bits per field,
/// by the field's position in its kind's ``ReadingKind/fields`` (every kind has fewer than 16). A plain value,
/// copied without reference counting: every reading carries one.
public struct UnavailableFields: Hashable, Sendable {
    /// Four bits per field position; 0 is "measured".
    public private(set) var bits: UInt64

    public init() { bits = 0 }

    /// Whether every field was measured.
    public var isEmpty: Bool { bits == 0 }

    /// The special value sent for the field at `position` in its kind's fields, or `nil` when it was measured.
    public subscript(position: Int) -> SpecialValue? {
        get {
            guard bits != 0, position < 16 else { return nil }
            return SpecialValue(rawValue: UInt8(truncatingIfNeeded: bits >> (4 * UInt64(position)) & 0xF))
        }
        set {
            precondition(position < 16, "a kind has fewer than 16 fields")
            let shift = 4 * UInt64(position)
            bits = bits & ~(0xF << shift) | UInt64(newValue?.rawValue ?? 0) << shift
        }
    }

    /// The positions of the unavailable fields, in order, with their special values.
    public var positions: [(position: Int, value: SpecialValue)] {
        (0..<16).compactMap { position in self[position].map { (position, $0) } }
    }
}

/// The statuses a device reports with a reading, by the names results, exports and the fleet file use (the
/// Bluetooth SIG profiles' own, in lower camel case).
///
/// Each status has a fixed bit (the store keeps the set as a whole number), never reused: new statuses take new
/// bits.
///
/// | Profile | Names |
/// |---|---|
/// | Blood Pressure Measurement Status | `bodyMovement`, `cuffTooLoose`, `irregularPulse`, `pulseRateTooHigh`, `pulseRateTooLow`, `improperPosition` |
/// | Glucose Sensor Status Annunciation | `deviceBatteryLow`, `sensorMalfunction`, `sampleSizeInsufficient`, `stripInsertionError`, `stripTypeIncorrect`, `resultTooHigh`, `resultTooLow`, `temperatureTooHigh`, `temperatureTooLow`, `readInterrupted`, `generalDeviceFault`, `timeFault` |
/// | PLX Measurement Status | `measurementOngoing`, `earlyEstimatedData`, `validatedData`, `fullyQualifiedData`, `dataFromMeasurementStorage`, `dataForDemonstration`, `dataForTesting`, `calibrationOngoing`, `measurementUnavailable`, `questionableMeasurement`, `invalidMeasurement` |
/// | PLX Device and Sensor Status | `extendedDisplayUpdateOngoing`, `equipmentMalfunction`, `signalProcessingIrregularity`, `inadequateSignal`, `poorSignal`, `lowPerfusion`, `erraticSignal`, `nonpulsatileSignal`, `questionablePulse`, `signalAnalysisOngoing`, `sensorInterference`, `sensorUnconnectedToUser`, `unknownSensorConnected`, `sensorDisplaced`, `sensorMalfunctioning`, `sensorDisconnected` |
/// | Weight Scale, Body Composition | `measurementUnsuccessful` |
/// | Temperature Type (the site) | `armpit`, `body`, `ear`, `finger`, `gastrointestinalTract`, `mouth`, `rectum`, `toe`, `tympanum` |
/// | The device's clock | `deviceClockNotSet` (PLX flag), `timeUnverified` (no offset could be read: the time is the device's, uncorrected) |
public struct ReadingStatus: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// Every status's name, by bit.
    public static let names: [String] = [
        // Blood Pressure Measurement Status: bits 0-5
        "bodyMovement", "cuffTooLoose", "irregularPulse", "pulseRateTooHigh", "pulseRateTooLow", "improperPosition",
        // Glucose Sensor Status Annunciation: 6-17
        "deviceBatteryLow", "sensorMalfunction", "sampleSizeInsufficient", "stripInsertionError", "stripTypeIncorrect",
        "resultTooHigh", "resultTooLow", "temperatureTooHigh", "temperatureTooLow", "readInterrupted",
        "generalDeviceFault", "timeFault",
        // PLX Measurement Status: 18-28
        "measurementOngoing", "earlyEstimatedData", "validatedData", "fullyQualifiedData",
        "dataFromMeasurementStorage", "dataForDemonstration", "dataForTesting", "calibrationOngoing",
        "measurementUnavailable", "questionableMeasurement", "invalidMeasurement",
        // PLX Device and Sensor Status: 29-44
        "extendedDisplayUpdateOngoing", "equipmentMalfunction", "signalProcessingIrregularity", "inadequateSignal",
        "poorSignal", "lowPerfusion", "erraticSignal", "nonpulsatileSignal", "questionablePulse",
        "signalAnalysisOngoing", "sensorInterference", "sensorUnconnectedToUser", "unknownSensorConnected",
        "sensorDisplaced", "sensorMalfunctioning", "sensorDisconnected",
        // Weight Scale and Body Composition: 45
        "measurementUnsuccessful",
        // Temperature Type: 46-54
        "armpit", "body", "ear", "finger", "gastrointestinalTract", "mouth", "rectum", "toe", "tympanum",
        // the device's clock: 55-56
        "deviceClockNotSet", "timeUnverified",
    ]

    private static func bit(_ name: String) -> Self { Self(rawValue: 1 << UInt64(names.firstIndex(of: name)!)) }

    public static let bodyMovement = bit("bodyMovement")
    public static let cuffTooLoose = bit("cuffTooLoose")
    public static let irregularPulse = bit("irregularPulse")
    public static let pulseRateTooHigh = bit("pulseRateTooHigh")
    public static let pulseRateTooLow = bit("pulseRateTooLow")
    public static let improperPosition = bit("improperPosition")
    public static let measurementUnsuccessful = bit("measurementUnsuccessful")
    public static let deviceClockNotSet = bit("deviceClockNotSet")
    public static let timeUnverified = bit("timeUnverified")

    /// The status named `name`, one of the `names` every status has.
    public init?(name: some StringProtocol) {
        guard let bit = Self.names.firstIndex(where: { $0 == name }) else { return nil }
        self.init(rawValue: 1 << UInt64(bit))
    }

    /// The statuses named `names`; `nil` when one is not a status's name.
    public init?(names: some Sequence<some StringProtocol>) {
        var status: Self = []
        for name in names {
            guard let one = Self(name: name) else { return nil }
            status.insert(one)
        }
        self = status
    }

    /// The statuses a profile's status field sets: bit `n` of `bits` (of its `count` defined ones) is the `n`-th
    /// status from the one named `first`. The glucose Sensor Status Annunciation is
    /// `ReadingStatus(profileBits: UInt64(annunciation.rawValue), first: "deviceBatteryLow", count: 12)`.
    public init(profileBits bits: UInt64, first name: String, count: Int) {
        let first = Self.names.firstIndex(of: name)!
        let mask: UInt64 = count >= 64 ? .max : (1 << UInt64(count)) - 1
        self.init(rawValue: (bits & mask) << UInt64(first))
    }

    /// The names of the statuses set, in bit order.
    public var names: [String] {
        guard rawValue != 0 else { return [] }
        return Self.names.indices.filter { rawValue & (1 << UInt64($0)) != 0 }.map { Self.names[$0] }
    }

    /// The names, comma-separated: `bodyMovement,irregularPulse`.
    public var description: String { names.joined(separator: ",") }

    /// The statuses set as a person reads them, in bit order: `["body movement", "irregular pulse"]`. Machine
    /// formats (CSV, JSON, FHIR) keep the `names`; what a person reads (the report, the records table) says these.
    public var words: [String] { names.map(Self.words) }

    /// Status `name` in words: split before each capital and lower-cased (`timeUnverified` → `time unverified`).
    public static func words(_ name: some StringProtocol) -> String {
        var words = ""
        for character in name {
            if character.isUppercase, !words.isEmpty { words.append(" ") }
            words += character.lowercased()
        }
        return words
    }
}

extension Reading {
    /// What the device said about the reading beyond its values.
    public var annotations: ReadingAnnotations {
        get { visit(Annotations()) }
        set { update(SetAnnotations(annotations: newValue)) }
    }

    private struct Annotations: PayloadVisitor {
        func visit<Payload: KindReading>(_ payload: Payload) -> ReadingAnnotations { payload.annotations }
    }

    private struct SetAnnotations: PayloadUpdate {
        let annotations: ReadingAnnotations
        func update<Payload: KindReading>(_ payload: inout Payload) { payload.annotations = annotations }
    }

    /// Marks `field` (one of the reading's kind's fields) as not measured: the device sent `value` for it. Its value
    /// in the reading becomes its empty one (0, or none), so that two readings with the same field unavailable are
    /// equal, and ``ReadingField/value(in:)`` no longer gives it.
    ///
    /// - Precondition: `field` is a stored field of the reading's kind.
    public mutating func markUnavailable(_ field: ReadingField, _ value: SpecialValue) {
        let fields = kind.fields
        guard let position = fields.firstIndex(where: { $0 === field }), let write = field.write else {
            preconditionFailure("\(field.name ?? "a computed field") is not a stored field of a \(kind)")
        }
        switch field.type {
        case .number: _ = write(&self, .number(0))
        case .integer: _ = write(&self, .integer(0))
        case .flag: _ = write(&self, .flag(false))
        case .sports: _ = write(&self, .sports([]))
        case .intervals: _ = write(&self, .intervals([]))
        case .sportTotals: _ = write(&self, .sportTotals([]))
        case .sleepSegments: _ = write(&self, .sleepSegments([]))
        case .samples: _ = write(&self, .samples([]))
        }
        annotations.unavailable[position] = value
    }

    /// The fields the device sent a special value for, with the value: what results leave out and FHIR gives a
    /// `dataAbsentReason` for.
    public var unavailableFields: [(field: ReadingField, value: SpecialValue)] {
        VitalCore.unavailableFields(of: kind, annotations.unavailable)
    }
}

/// The fields of `kind` that `unavailable` names, with their special values.
func unavailableFields(of kind: ReadingKind, _ unavailable: UnavailableFields) -> [(
    field: ReadingField, value: SpecialValue
)] {
    guard !unavailable.isEmpty else { return [] }
    let fields = kind.fields
    return unavailable.positions.compactMap { position, value in
        position < fields.count ? (fields[position], value) : nil
    }
}
