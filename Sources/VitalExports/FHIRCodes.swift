import VitalCore

/// One kind of `Observation` the FHIR export writes: what it measures, its LOINC code, its UCUM unit and the
/// FHIR R4 vital-signs profile it follows, if any.
///
/// A reading gives one Observation per quantity it holds: a blood pressure reading gives a `bloodPressure` panel
/// and, if the monitor measured the pulse, a `heartRate`; an oximetry reading gives `oxygenSaturation` and
/// `heartRate`; a weight with body composition gives `bodyWeight` and `bodyFat`; a heart-rate recording gives
/// `heartRate` and, with two or more accepted RR intervals, `heartRateVariability` (SDNN).
///
/// Each kind is one row of the table below: its codes, text, unit and profile together.
public struct FHIRObservationKind: Hashable, Sendable {
    /// The kind's short name, in the identifiers the export makes: `bp`, `glucose-molar`.
    public let id: String
    /// The LOINC codes and their display names, the first being the Observation's code.
    public let loinc: [(code: String, display: String)]
    /// The Observation's `code.text`.
    public let text: String
    /// The UCUM code of the value (of each component, for the blood-pressure panel) and the unit as a person reads
    /// it.
    public let unit: (ucum: String, display: String)
    /// The FHIR R4 vital-signs profile the Observation conforms to, for the kinds the vital-signs panel defines.
    public let profile: String?

    private init(
        _ id: String, _ loinc: [(code: String, display: String)], text: String, unit: (ucum: String, display: String),
        profile: String? = nil
    ) {
        self.id = id
        self.loinc = loinc
        self.text = text
        self.unit = unit
        self.profile = profile.map { "http://hl7.org/fhir/StructureDefinition/" + $0 }
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.id == rhs.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }

    /// Blood pressure panel 85354-9, with systolic 8480-6 and diastolic 8462-4 components in `mm[Hg]`.
    public static let bloodPressure = Self(
        "bp", [("85354-9", "Blood pressure panel with all children optional")], text: "Blood pressure",
        unit: ("mm[Hg]", "mmHg"), profile: "bp")
    /// Heart rate 8867-4, `/min`.
    public static let heartRate = Self(
        "hr", [("8867-4", "Heart rate")], text: "Heart rate", unit: ("/min", "beats/minute"), profile: "heartrate")
    /// Oxygen saturation 2708-6 (with 59408-5, by pulse oximetry), `%`.
    public static let oxygenSaturation = Self(
        "spo2",
        [
            ("2708-6", "Oxygen saturation in Arterial blood"),
            ("59408-5", "Oxygen saturation in Arterial blood by Pulse oximetry"),
        ], text: "Oxygen saturation", unit: ("%", "%"), profile: "oxygensat")
    /// Body temperature 8310-5, `Cel`.
    public static let bodyTemperature = Self(
        "temp", [("8310-5", "Body temperature")], text: "Body temperature", unit: ("Cel", "C"), profile: "bodytemp")
    /// Body weight 29463-7, `kg`.
    public static let bodyWeight = Self(
        "weight", [("29463-7", "Body weight")], text: "Body weight", unit: ("kg", "kg"), profile: "bodyweight")
    /// Glucose in blood by mass 2339-0, `mg/dL`.
    public static let glucoseMass = Self(
        "glucose", [("2339-0", "Glucose [Mass/volume] in Blood")], text: "Blood glucose", unit: ("mg/dL", "mg/dL"))
    /// Glucose in blood by moles 15074-8, `mmol/L`.
    public static let glucoseMolar = Self(
        "glucose-molar", [("15074-8", "Glucose [Moles/volume] in Blood")], text: "Blood glucose",
        unit: ("mmol/L", "mmol/L"))
    /// Percentage of body fat 41982-0, `%`.
    public static let bodyFat = Self(
        "fat", [("41982-0", "Percentage of body fat Measured")], text: "Body fat", unit: ("%", "%"))
    /// Steps 55423-8 in a day, `{steps}`.
    public static let steps = Self(
        "steps", [("55423-8", "Number of steps in unspecified time Pedometer")], text: "Steps",
        unit: ("{steps}", "steps"))
    /// Heart-rate variability 80404-7: the standard deviation of the RR intervals (SDNN), `ms`.
    public static let heartRateVariability = Self(
        "hrv", [("80404-7", "R-R interval.standard deviation (Heart rate variability)")],
        text: "Heart rate variability (SDNN)", unit: ("ms", "ms"))

    /// Every kind, in the order above.
    public static let allCases: [Self] = [
        .bloodPressure, .heartRate, .oxygenSaturation, .bodyTemperature, .bodyWeight, .glucoseMass, .glucoseMolar,
        .bodyFat, .steps, .heartRateVariability,
    ]

    /// The kind whose Observation code is `loinc` (a reading field's, `ReadingField.loinc`).
    public init?(loinc: String) {
        guard let kind = Self.allCases.first(where: { $0.loinc.first?.code == loinc }) else { return nil }
        self = kind
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
