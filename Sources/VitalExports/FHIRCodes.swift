import VitalCore

/// One kind of `Observation` the FHIR export writes: what it measures, its LOINC code, its UCUM unit and the
/// FHIR R4 vital-signs profile it follows, if any.
///
/// A reading gives one Observation per quantity it holds: a blood pressure reading gives a `bloodPressure` panel
/// and, if the monitor measured the pulse, a `heartRate`; an oximetry reading gives `oxygenSaturation` and
/// `heartRate`; a weight with body composition gives `bodyWeight` and `bodyFat`; a heart-rate recording gives
/// `heartRate` and, with two or more accepted RR intervals, `heartRateVariability` (SDNN).
public enum FHIRObservationKind: String, CaseIterable, Hashable, Sendable {
    /// Blood pressure panel 85354-9, with systolic 8480-6 and diastolic 8462-4 components in `mm[Hg]`.
    case bloodPressure = "bp"
    /// Heart rate 8867-4, `/min`.
    case heartRate = "hr"
    /// Oxygen saturation 2708-6 (with 59408-5, by pulse oximetry), `%`.
    case oxygenSaturation = "spo2"
    /// Body temperature 8310-5, `Cel`.
    case bodyTemperature = "temp"
    /// Body weight 29463-7, `kg`.
    case bodyWeight = "weight"
    /// Glucose in blood by mass 2339-0, `mg/dL`.
    case glucoseMass = "glucose"
    /// Glucose in blood by moles 15074-8, `mmol/L`.
    case glucoseMolar = "glucose-molar"
    /// Percentage of body fat 41982-0, `%`.
    case bodyFat = "fat"
    /// Steps 55423-8 in a day, `{steps}`.
    case steps = "steps"
    /// Heart-rate variability 80404-7: the standard deviation of the RR intervals (SDNN), `ms`.
    case heartRateVariability = "hrv"

    /// The LOINC codes and their display names, the first being the Observation's code.
    public var loinc: [(code: String, display: String)] {
        switch self {
        case .bloodPressure: [("85354-9", "Blood pressure panel with all children optional")]
        case .heartRate: [("8867-4", "Heart rate")]
        case .oxygenSaturation:
            [
                ("2708-6", "Oxygen saturation in Arterial blood"),
                ("59408-5", "Oxygen saturation in Arterial blood by Pulse oximetry"),
            ]
        case .bodyTemperature: [("8310-5", "Body temperature")]
        case .bodyWeight: [("29463-7", "Body weight")]
        case .glucoseMass: [("2339-0", "Glucose [Mass/volume] in Blood")]
        case .glucoseMolar: [("15074-8", "Glucose [Moles/volume] in Blood")]
        case .bodyFat: [("41982-0", "Percentage of body fat Measured")]
        case .steps: [("55423-8", "Number of steps in unspecified time Pedometer")]
        case .heartRateVariability: [("80404-7", "R-R interval.standard deviation (Heart rate variability)")]
        }
    }

    /// The kind whose Observation code is `loinc` (a reading field's, `ReadingField.loinc`).
    public init?(loinc: String) {
        guard let kind = Self.allCases.first(where: { $0.loinc.first?.code == loinc }) else { return nil }
        self = kind
    }

    /// The Observation's `code.text`.
    public var text: String {
        switch self {
        case .bloodPressure: "Blood pressure"
        case .heartRate: "Heart rate"
        case .oxygenSaturation: "Oxygen saturation"
        case .bodyTemperature: "Body temperature"
        case .bodyWeight: "Body weight"
        case .glucoseMass, .glucoseMolar: "Blood glucose"
        case .bodyFat: "Body fat"
        case .steps: "Steps"
        case .heartRateVariability: "Heart rate variability (SDNN)"
        }
    }

    /// The UCUM code of the value (of each component, for the blood-pressure panel) and the unit as a person reads
    /// it.
    public var unit: (ucum: String, display: String) {
        switch self {
        case .bloodPressure: ("mm[Hg]", "mmHg")
        case .heartRate: ("/min", "beats/minute")
        case .oxygenSaturation, .bodyFat: ("%", "%")
        case .bodyTemperature: ("Cel", "C")
        case .bodyWeight: ("kg", "kg")
        case .glucoseMass: ("mg/dL", "mg/dL")
        case .glucoseMolar: ("mmol/L", "mmol/L")
        case .steps: ("{steps}", "steps")
        case .heartRateVariability: ("ms", "ms")
        }
    }

    /// The FHIR R4 vital-signs profile the Observation conforms to, for the kinds the vital-signs panel defines.
    public var profile: String? {
        let base = "http://hl7.org/fhir/StructureDefinition/"
        return switch self {
        case .bloodPressure: base + "bp"
        case .heartRate: base + "heartrate"
        case .oxygenSaturation: base + "oxygensat"
        case .bodyTemperature: base + "bodytemp"
        case .bodyWeight: base + "bodyweight"
        case .glucoseMass, .glucoseMolar, .bodyFat, .steps, .heartRateVariability: nil
        }
    }

    /// The systolic and diastolic components of the blood-pressure panel.
    static let bloodPressureComponents = [
        (code: "8480-6", display: "Systolic blood pressure"), (code: "8462-4", display: "Diastolic blood pressure"),
    ]
}
