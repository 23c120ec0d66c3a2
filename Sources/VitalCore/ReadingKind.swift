/// The kinds of reading VitalBridge keeps, each described once by its ``fields``.
///
/// The store's columns, the callback's result object, the CSV columns of an export, the FHIR observations and the
/// simulator's fleet file are derived from this description. Adding a field to a kind is one entry in its
/// ``fields`` (and a property on its reading type), plus the device codec that produces it, and a migration adding
/// its column when the store keeps it.
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

    /// The kind's fields the store keeps (not computed from others), in the kind's order: each is a column of the
    /// store's `reading` table, named by its ``ReadingField/name``.
    public var storedFields: [ReadingField] { Self.storedFields[ordinal] }

    private static let storedFields: [[ReadingField]] = allCases.map { $0.fields.filter(\.isStored) }

    /// The kind's fields that have a column (``ReadingField/column``), in the columns' order.
    public var fieldsInColumnOrder: [ReadingField] { Self.columnOrders[ordinal] }

    private static let columnOrders: [[ReadingField]] = allCases.map { kind in
        kind.fields.filter { $0.column != nil }.sorted { $0.column!.rawValue < $1.column!.rawValue }
    }

    /// The kind's position in `allCases`: an index for tables kept per kind, cheaper than hashing the kind.
    public var ordinal: Int {
        switch self {
        case .bloodPressure: 0
        case .glucose: 1
        case .weight: 2
        case .oximetry: 3
        case .temperature: 4
        case .activity: 5
        case .bandDay: 6
        case .heartRate: 7
        }
    }

    /// The stored field `name` of the kind (``ReadingField/name``), or `nil`.
    public func field(named name: String) -> ReadingField? { fields.first { $0.name == name } }

    /// A reading of the kind at `time` with every field at its empty value (0, no optional value, no sport): what
    /// ``Reading/init(kind:measuredAt:values:annotations:)`` fills.
    func blank(at time: Timestamp) -> Reading {
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
    /// A band day's totals of each sport.
    case sportTotals([BandDay.SportTotal])
    /// A band day's sleep segments, in order.
    case sleepSegments([BandDay.SleepSegment])
    /// A pulse wave's samples, in order, each 0–100 (``OximetryReading/wave``).
    case samples([Int])
}

/// One field of a reading kind, with its name in every vocabulary VitalBridge writes: the store, the callback
/// result, the CSV export, the fleet file and FHIR.
///
/// A class, not a struct: readings are taken apart field by field on every sync and export, and a reference is one
/// word to copy where the description is ten.
public final class ReadingField: Sendable {
    /// What a field holds, which decides how text is read into it.
    public enum ValueType: Sendable {
        case number, integer, flag, sports, intervals, sportTotals, sleepSegments, samples
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
        /// A list of `{"type","steps","calories","distance"}` objects (distance in km or miles, `count` when the
        /// band sent one).
        case sportTotals
        /// A list of `{"type","start","end"}` objects, times in minutes of the day.
        case sleepSegments
    }

    /// The field's name in the store (`sys`); `nil` for a field computed from others (a band day's sleep time).
    public let name: String?
    public let type: ValueType
    public let presence: Presence
    /// Where a result object writes it: a key (`["systolic"]`) or a key in a nested object
    /// (`["activedata", "steps"]`); `nil` when results leave it out (RR intervals, a pulse wave).
    public let resultPath: [String]?
    public let resultRule: ResultRule
    /// Its column in a CSV export or a `records` table (which has one column for every kind).
    public let column: ReadingColumn?
    /// Its key in a fleet file's scripted reading (`systolic`, `pulse`); `nil` when a fleet cannot script it.
    public let fleetKey: String?
    /// The LOINC code of the quantity, for FHIR (`8480-6`, systolic blood pressure).
    public let loinc: String?
    let read: @Sendable (Reading) -> FieldValue?
    let write: (@Sendable (inout Reading, FieldValue) -> Bool)?

    init(
        name: String?, type: ValueType, presence: Presence, resultPath: [String]?, resultRule: ResultRule,
        column: ReadingColumn?, fleetKey: String?, loinc: String?,
        read: @escaping @Sendable (Reading) -> FieldValue?,
        write: (@Sendable (inout Reading, FieldValue) -> Bool)?
    ) {
        self.name = name
        self.type = type
        self.presence = presence
        self.resultPath = resultPath
        self.resultRule = resultRule
        self.column = column
        self.fleetKey = fleetKey
        self.loinc = loinc
        self.read = read
        self.write = write
    }

    /// The field's value in `reading`; `nil` when the reading does not have it (an optional quantity not
    /// reported, or a reading of another kind).
    public func value(in reading: Reading) -> FieldValue? {
        guard let value = read(reading) else { return nil }
        let unavailable = reading.annotations.unavailable
        guard !unavailable.isEmpty else { return value }
        // a field the device sent a special value for has only its placeholder
        guard let position = reading.kind.fields.firstIndex(where: { $0 === self }), unavailable[position] != nil
        else { return value }
        return nil
    }

    /// Whether the store keeps the field (it is not computed from others).
    public var isStored: Bool { write != nil }
}

extension Reading {
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
        kind.fields.compactMap { field in field.value(in: self).map { (field, $0) } }
    }

    /// A reading of `kind` taken at `measuredAt` (a day's start, for a day kind) from the values of its stored
    /// fields; `nil` when a required field is missing, a value is of the wrong type, a field is given twice, or a
    /// grouped field comes without the ones its group requires. A field `annotations` says is unavailable is not
    /// missing: it is not among `values`.
    public init?(
        kind: ReadingKind, measuredAt: Timestamp, values: [(field: ReadingField, value: FieldValue)],
        annotations: ReadingAnnotations = .none
    ) {
        let fields = kind.fields
        // values in the kind's order, as the store writes them, are taken in one pass; any other order (or a field
        // given twice) is put in order first
        var cursor = 0
        for (field, _) in values {
            guard let index = fields[cursor...].firstIndex(where: { $0 === field }) else {
                guard let ordered = Self.ordered(values, of: fields) else { return nil }
                self.init(kind: kind, measuredAt: measuredAt, values: ordered, annotations: annotations)
                return
            }
            cursor = index + 1
        }
        var reading = kind.blank(at: measuredAt)
        var next = 0
        var openGroups: [String] = []
        let unavailable = annotations.unavailable
        for (position, field) in fields.enumerated() {
            guard next < values.count, values[next].field === field else {
                if field.presence == .required && field.isStored && unavailable[position] == nil { return nil }
                continue
            }
            guard unavailable[position] == nil else { return nil }
            let value = values[next].value
            next += 1
            guard let write = field.write else { return nil }
            if case .grouped(let group, _) = field.presence, !openGroups.contains(group) { openGroups.append(group) }
            guard write(&reading, value) else { return nil }
        }
        // each group present is whole
        if !openGroups.isEmpty {
            for (position, field) in fields.enumerated() where !values.contains(where: { $0.field === field }) {
                if case .grouped(let group, required: true) = field.presence, openGroups.contains(group),
                    unavailable[position] == nil
                {
                    return nil
                }
            }
        }
        if !annotations.isEmpty {
            // the unavailable fields' placeholders, as markUnavailable writes them
            for (field, value) in VitalCore.unavailableFields(of: kind, annotations.unavailable) {
                reading.markUnavailable(field, value)
            }
            reading.annotations = annotations
        }
        self = reading
    }

    /// `values` in the order of `fields`; `nil` when one is not among them or two are the same field.
    private static func ordered(_ values: [(field: ReadingField, value: FieldValue)], of fields: [ReadingField])
        -> [(field: ReadingField, value: FieldValue)]?
    {
        var ordered: [(field: ReadingField, value: FieldValue)] = []
        for field in fields {
            let matches = values.filter { $0.field === field }
            guard matches.count <= 1 else { return nil }
            ordered += matches
        }
        return ordered.count == values.count ? ordered : nil
    }
}
