import VitalCore

/// What one status a device reports does to the quality of its reading's values (``Quality/init(of:)``).
public struct QualityRule: Hashable, Sendable {
    /// What the status does to the quality.
    public enum Effect: Hashable, Sendable {
        /// The device says the value is no valid measurement of the user: the quality is 0, whatever else it says.
        case invalid
        /// The value stands, with less confidence: this many points off 100.
        case deduct(Int)
    }

    /// The status, one of `ReadingStatus.names`.
    public var status: String
    public var effect: Effect

    public init(_ status: String, _ effect: Effect) {
        self.status = status
        self.effect = effect
    }
}

extension Quality {
    /// Points off for a warning that the value may be off by more than the device's stated accuracy: the
    /// measurement's conditions were wrong (movement, cuff fit, position) or its signal was poor.
    public static let seriousWarning = 30
    /// Points off for a warning that leaves the value standing: an irregular or out-of-range pulse during a blood
    /// pressure measurement, or a value the device does not yet call final.
    public static let minorWarning = 10
    /// The perfusion index (%) under which a pulse oximeter's signal counts as weak: a reading with a lower PI counts
    /// as one with the status `lowPerfusion` (once, whether the device also says so or not).
    public static let lowPerfusionIndex = 0.4

    /// Every status that lowers the quality, in `ReadingStatus.names` order: the Blood Pressure Measurement Status,
    /// the PLX Measurement Status, the PLX Device and Sensor Status. A status not here (a PLX `validatedData`,
    /// `fullyQualifiedData`, `dataFromMeasurementStorage` or `extendedDisplayUpdateOngoing`, a thermometer's site,
    /// the device's clock) says nothing against the value.
    public static let rules: [QualityRule] = [
        // Blood Pressure Measurement Status
        .init("bodyMovement", .deduct(seriousWarning)),
        .init("cuffTooLoose", .deduct(seriousWarning)),
        .init("irregularPulse", .deduct(minorWarning)),
        .init("pulseRateTooHigh", .deduct(minorWarning)),
        .init("pulseRateTooLow", .deduct(minorWarning)),
        .init("improperPosition", .deduct(seriousWarning)),
        // PLX Measurement Status
        .init("measurementOngoing", .deduct(minorWarning)),
        .init("earlyEstimatedData", .deduct(minorWarning)),
        .init("dataForDemonstration", .invalid),
        .init("dataForTesting", .invalid),
        .init("calibrationOngoing", .deduct(minorWarning)),
        .init("measurementUnavailable", .invalid),
        .init("questionableMeasurement", .deduct(seriousWarning)),
        .init("invalidMeasurement", .invalid),
        // PLX Device and Sensor Status
        .init("equipmentMalfunction", .invalid),
        .init("signalProcessingIrregularity", .deduct(seriousWarning)),
        .init("inadequateSignal", .deduct(seriousWarning)),
        .init("poorSignal", .deduct(seriousWarning)),
        .init("lowPerfusion", .deduct(seriousWarning)),
        .init("erraticSignal", .deduct(seriousWarning)),
        .init("nonpulsatileSignal", .deduct(seriousWarning)),
        .init("questionablePulse", .deduct(seriousWarning)),
        .init("signalAnalysisOngoing", .deduct(minorWarning)),
        .init("sensorInterference", .deduct(seriousWarning)),
        .init("sensorUnconnectedToUser", .invalid),
        .init("unknownSensorConnected", .deduct(seriousWarning)),
        .init("sensorDisplaced", .deduct(seriousWarning)),
        .init("sensorMalfunctioning", .invalid),
        .init("sensorDisconnected", .invalid),
    ]

    /// The confidence in the values of `reading`, from what its device reported with it: 100, less the points of
    /// each status of ``rules`` the reading has (never below 0), and 0 when one of them says the value is invalid. A
    /// blood pressure reading's arrhythmia flag counts as `irregularPulse`, and an oximeter's perfusion index under
    /// ``lowPerfusionIndex`` as `lowPerfusion` (each once). Every value a reading supplies gets its quality.
    ///
    /// ```swift
    /// var reading = Reading.bloodPressure(.init(systolic: 128, diastolic: 84, measuredAt: time))
    /// reading.annotations.status = [.bodyMovement, .irregularPulse]
    /// Quality(of: reading)   // 60: 100 − 30 (body movement) − 10 (irregular pulse)
    /// ```
    ///
    /// `nil` for a kind ShareVitalSigns has no sign for (only blood pressure, oximetry and temperature have).
    public init?(of reading: Reading) {
        var status = reading.annotations.status
        switch reading {
        case .bloodPressure(let bloodPressure):
            if bloodPressure.arrhythmia == true { status.formUnion(Self.status("irregularPulse")) }
        case .oximetry(let oximetry):
            // an unavailable PI is 0 in the reading, and no measurement of perfusion
            let measured = !reading.unavailableFields.contains { $0.field.column == .perfusionIndex }
            if measured, let index = oximetry.perfusionIndex, index < Self.lowPerfusionIndex {
                status.formUnion(Self.status("lowPerfusion"))
            }
        case .temperature:
            break
        default:
            return nil
        }
        var points = 100
        var invalid = false
        for rule in Self.rules where status.contains(Self.status(rule.status)) {
            switch rule.effect {
            case .invalid: invalid = true
            case .deduct(let deducted): points -= deducted
            }
        }
        self.init(invalid ? 0 : max(points, 0))
    }

    /// The status named `name`, one of `ReadingStatus.names`.
    private static func status(_ name: String) -> ReadingStatus {
        guard let status = ReadingStatus(name: name) else { preconditionFailure("\(name) is no status's name") }
        return status
    }
}
