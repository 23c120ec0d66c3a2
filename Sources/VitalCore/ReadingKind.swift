/// The kinds of reading VitalBridge keeps, each described once by its ``fields``.
///
/// Everything that writes or reads a reading field by field is derived from this description: the store's codec,
/// the callback's result object, the CSV columns of an export, the fleet file's keys and the FHIR codes. Adding a
/// field to a kind is one entry in its ``fields`` (and a property on its reading type), plus the device codec
/// that produces it.
///
/// ```swift
/// ReadingKind.bloodPressure.fields.map(\.name)   // ["sys", "dia", "hr", "arr"]
/// ReadingKind.bloodPressure.fields[0].loinc       // "8480-6"
/// ```
public enum ReadingKind: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    case bloodPressure = "blood_pressure"
    case glucose
    case weight
    case oximetry
    case temperature
    /// One day of an activity monitor's summary.
    case activity
    /// One day of a smartband.
    case bandDay = "band_day"
    case heartRate = "heart_rate"

    /// The kind's name in the store and in exports: `blood_pressure`, `band_day`.
    public var description: String { rawValue }

    /// The category of the kind's readings.
    public var category: VitalCategory {
        switch self {
        case .bloodPressure: .bloodPressure
        case .glucose: .bloodGlucose
        case .weight: .weight
        case .oximetry: .oximeter
        case .temperature: .thermometer
        case .activity, .bandDay: .activity
        case .heartRate: .heartRate
        }
    }

    /// Whether a reading of the kind is a whole day (dated, not timed): an activity or band day.
    public var isDay: Bool { self == .activity || self == .bandDay }

    /// The kind's fields, in the order results and the store write them.
    public var fields: [ReadingField] {
        switch self {
        case .bloodPressure: ReadingField.bloodPressure
        case .glucose: ReadingField.glucose
        case .weight: ReadingField.weight
        case .oximetry: ReadingField.oximetry
        case .temperature: ReadingField.temperature
        case .activity: ReadingField.activity
        case .bandDay: ReadingField.bandDay
        case .heartRate: ReadingField.heartRate
        }
    }

    /// The stored field `name` of the kind, or `nil`.
    public func field(named name: some StringProtocol) -> ReadingField? {
        fields.first { $0.name.map { $0 == name } ?? false }
    }

    /// A reading of the kind at `time` with every field at its empty value (0, no optional value, no sport): what
    /// ``LayeredReading/init(kind:measuredAt:values:)`` fills.
    func blank(at time: LayeredTimestamp) -> LayeredReading {
        switch self {
        case .bloodPressure: .bloodPressure(BloodPressureReading(systolic: 0, diastolic: 0, measuredAt: time))
        case .glucose: .glucose(GlucoseReading(mgPerDeciliter: 0, measuredAt: time))
        case .weight: .weight(WeightReading(kilograms: 0, measuredAt: time))
        case .oximetry: .oximetry(OximetryReading(oxygenSaturation: 0, heartRate: 0, measuredAt: time))
        case .temperature: .temperature(TemperatureReading(celsius: 0, measuredAt: time))
        case .activity:
            .activity(ActivityDay(date: time.day, steps: 0, calories: 0, sleepMinutes: 0, sleepEfficiency: 0))
        case .bandDay:
            .band(
                BandDay(
                    date: time.day, steps: 0, calories: 0, distance: 0, sleep: .init(deep: 0, light: 0, awake: 0),
                    heartRate: nil, sports: []))
        case .heartRate: .heartRate(HeartRateReading(heartRate: 0, rrIntervals: [], measuredAt: time))
        }
    }
}

/// The value of one field of a reading.
public enum FieldValue: Hashable, Sendable {
    /// A quantity, in the field's canonical unit.
    case number(Double)
    /// A count or a whole quantity.
    case integer(Int)
    case flag(Bool)
    /// A band day's finished sports, oldest first.
    case sports([BandDay.Sport])
    /// RR intervals in milliseconds, in order.
    case intervals([Double])
}

/// One field of a reading kind, with its name in every vocabulary VitalBridge writes: the store, the callback
/// result, the CSV export, the fleet file and FHIR.
public struct ReadingField: Sendable {
    /// What a field holds, which decides how text is read into it.
    public enum ValueType: Sendable {
        case number, integer, flag, sports, intervals
    }

    /// Whether a reading has the field.
    public enum Presence: Hashable, Sendable {
        /// Every reading of the kind has it.
        case required
        /// A device may not report it.
        case optional
        /// It comes with the other fields of `group` (a body composition, a band day's heart-rate minutes): the
        /// first field of the group opens it, and a group's `required` fields are all there when any field is.
        case grouped(String, required: Bool)
    }

    /// How a callback's result object writes the field.
    public enum ResultRule: Hashable, Sendable {
        /// A quantity in the category's canonical unit, converted to the requested unit and rounded to its digits.
        case converted
        /// A whole number as it is.
        case whole
        /// Rounded to one decimal (percentages, impedance).
        case tenths
        /// `1` or `0`.
        case flag
        /// Metres, written in km or miles with two decimals.
        case distance
        /// A list of `{"type","start","end","calories"}` objects, present even when empty.
        case sports
    }

    /// The field's name in the store (`sys`); `nil` for a field computed from others (a band day's sleep time).
    public let name: String?
    public let type: ValueType
    public let presence: Presence
    /// Where a result object writes it: a key (`["systolic"]`) or a key in a nested object
    /// (`["activedata", "steps"]`); `nil` when results leave it out (RR intervals).
    public let resultPath: [String]?
    public let resultRule: ResultRule
    /// Its column in a CSV export or a `records` table (which has one column for every kind).
    public let column: ReadingColumn?
    /// Its key in a fleet file's scripted reading (`systolic`, `pulse`); `nil` when a fleet cannot script it.
    public let fleetKey: String?
    /// The LOINC code of the quantity, for FHIR (`8480-6`, systolic blood pressure).
    public let loinc: String?
    let read: @Sendable (LayeredReading) -> FieldValue?
    let write: (@Sendable (inout LayeredReading, FieldValue) -> Bool)?

    /// The field's value in `reading`; `nil` when the reading does not have it (an optional quantity not
    /// reported, or a reading of another kind).
    public func value(in reading: LayeredReading) -> FieldValue? { read(reading) }

    /// Whether the store keeps the field (it is not computed from others).
    public var isStored: Bool { write != nil }
}

extension LayeredReading {
    /// The reading's kind.
    public var kind: ReadingKind {
        switch self {
        case .bloodPressure: .bloodPressure
        case .glucose: .glucose
        case .weight: .weight
        case .oximetry: .oximetry
        case .temperature: .temperature
        case .activity: .activity
        case .band: .bandDay
        case .heartRate: .heartRate
        }
    }

    /// The fields the reading has, in the kind's order, with their values.
    public var fieldValues: [(field: ReadingField, value: FieldValue)] {
        kind.fields.compactMap { field in field.read(self).map { (field, $0) } }
    }

    /// A reading of `kind` taken at `measuredAt` (a day's start, for a day kind) from the values of its stored
    /// fields; `nil` when a required field is missing, a value is of the wrong type, a field is given twice, or a
    /// grouped field comes without the ones its group requires.
    public init?(kind: ReadingKind, measuredAt: LayeredTimestamp, values: [(field: ReadingField, value: FieldValue)]) {
        var reading = kind.blank(at: measuredAt)
        var given: Set<String> = []
        var groups: Set<String> = []
        for field in kind.fields where field.isStored {
            let matches = values.filter { $0.field.name == field.name }
            guard matches.count <= 1 else { return nil }
            guard let value = matches.first?.value else {
                if field.presence == .required { return nil }
                continue
            }
            if case .grouped(let group, _) = field.presence { groups.insert(group) }
            guard let write = field.write, write(&reading, value) else { return nil }
            given.insert(field.name!)
        }
        // every value is one of the kind's stored fields, and each group present is whole
        guard given.count == values.count else { return nil }
        for field in kind.fields {
            if case .grouped(let group, required: true) = field.presence, groups.contains(group),
                !given.contains(field.name!)
            {
                return nil
            }
        }
        self = reading
    }
}
