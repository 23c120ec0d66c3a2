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

/// How the FHIR export says what a device said beyond a reading's values (`ReadingAnnotations`).
///
/// - A value sent as an IEEE-11073 special value has no `valueQuantity` but a `dataAbsentReason` of
///   `http://terminology.hl7.org/CodeSystem/data-absent-reason`: NaN `not-a-number`, +INF `positive-infinity`,
///   -INF `negative-infinity`, NRes and reserved `error`; its text is the special value's name.
/// - A glucose meter's `resultTooHigh` and `resultTooLow` (the result is beyond what the meter can measure) are the
///   `interpretation` `>` (off scale high) and `<` (off scale low) of
///   `http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation`. No status says the value itself is
///   clinically high or low (`H`, `L`): a blood pressure monitor's `pulseRateTooHigh` is against the monitor's own
///   limit, so it is a note.
/// - Every other status is named in a `note`: `Device status: bodyMovement, irregularPulse`.
/// - A thermometer's site is the body temperature's `bodySite`: the SNOMED CT code of the HL7 Vital Signs body
///   temperature location value set where one fits (armpit 422543003, ear 117590005, finger 7569003, mouth
///   74262004, rectum 34402009, toe 29707007, tympanum 42859004), otherwise text alone (`body`,
///   `gastrointestinalTract`).
public enum FHIRAnnotations {
    static let dataAbsentReasonSystem = "http://terminology.hl7.org/CodeSystem/data-absent-reason"
    static let interpretationSystem = "http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation"

    /// The data-absent-reason code and display of a value sent as `special`.
    public static func dataAbsentReason(_ special: SpecialValue) -> (code: String, display: String) {
        switch special {
        case .nan: ("not-a-number", "Not a Number (NaN)")
        case .positiveInfinity: ("positive-infinity", "Positive Infinity (PINF)")
        case .negativeInfinity: ("negative-infinity", "Negative Infinity (NINF)")
        case .nres, .reserved: ("error", "Error")
        }
    }

    /// The statuses with an interpretation code.
    static let interpretations: [(status: ReadingStatus, code: String, display: String)] = [
        (ReadingStatus(name: "resultTooHigh")!, ">", "Off scale high"),
        (ReadingStatus(name: "resultTooLow")!, "<", "Off scale low"),
    ]

    /// A thermometer's sites: the status, its SNOMED CT body structure when one fits, and its text.
    static let sites: [(status: ReadingStatus, snomed: (code: String, display: String)?, text: String)] = [
        (ReadingStatus(name: "armpit")!, ("422543003", "Structure of axillary fossa"), "armpit"),
        (ReadingStatus(name: "body")!, nil, "body (general)"),
        (ReadingStatus(name: "ear")!, ("117590005", "Ear structure"), "ear"),
        (ReadingStatus(name: "finger")!, ("7569003", "Finger structure"), "finger"),
        (ReadingStatus(name: "gastrointestinalTract")!, nil, "gastrointestinal tract"),
        (ReadingStatus(name: "mouth")!, ("74262004", "Oral cavity structure"), "mouth"),
        (ReadingStatus(name: "rectum")!, ("34402009", "Rectum structure"), "rectum"),
        (ReadingStatus(name: "toe")!, ("29707007", "Toe structure"), "toe"),
        (ReadingStatus(name: "tympanum")!, ("42859004", "Tympanic membrane structure"), "tympanum (ear drum)"),
    ]

    /// The statuses that are not named in a note: the sites and those with an interpretation.
    static let sitesAndInterpretations: ReadingStatus = (sites.map(\.status) + interpretations.map(\.status))
        .reduce(into: []) { $0.insert($1) }
}
