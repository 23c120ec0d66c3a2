/// The fields of each reading kind: one line a field, with its store name, result key, CSV column, fleet key and
/// LOINC code.
extension ReadingField {
    static let bloodPressure: [ReadingField] = [
        .number(
            "sys", \BloodPressureReading.systolic, result: ["systolic"], .converted, column: .systolic,
            fleet: "systolic", loinc: "8480-6"),
        .number(
            "dia", \BloodPressureReading.diastolic, result: ["diastolic"], .converted, column: .diastolic,
            fleet: "diastolic", loinc: "8462-4"),
        .integer(
            "hr", \BloodPressureReading.heartRate, result: ["heart_rate"], column: .heartRate, fleet: "pulse",
            loinc: "8867-4"),
        .flag(
            "arr", \BloodPressureReading.arrhythmia, result: ["arrhythmia"], column: .arrhythmia, fleet: "arrhythmia"),
    ]

    static let glucose: [ReadingField] = [
        .number(
            "mgdl", \GlucoseReading.mgPerDeciliter, result: ["blood_glucose"], .converted, column: .glucose,
            fleet: "glucose", loinc: "2339-0")
    ]

    static let weight: [ReadingField] = [
        .number(
            "kg", \WeightReading.kilograms, result: ["weight"], .converted, column: .weight, fleet: "weight",
            loinc: "29463-7"),
        composition(
            "fat", required: true, result: "body_fat", .tenths, column: .bodyFat, fleet: "bodyFat", loinc: "41982-0",
            get: { .number($0.bodyFatPercentage) },
            set: { composition, value in
                guard case .number(let fat) = value else { return false }
                composition = BodyComposition(bodyFatPercentage: fat)
                return true
            }),
        composition("musclepct", \.musclePercentage, result: "muscle_percentage", .tenths, column: .musclePercentage),
        composition("muscle", \.muscleMass, result: "muscle_mass", .converted, column: .muscleMass),
        composition("ffm", \.fatFreeMass, result: "fat_free_mass", .converted, column: .fatFreeMass),
        composition("slm", \.softLeanMass, result: "soft_lean_mass", .converted, column: .softLeanMass),
        composition("water", \.bodyWaterMass, result: "body_water_mass", .converted, column: .bodyWaterMass),
        composition(
            "bmr", required: false, result: "basal_metabolism", .whole, column: .basalMetabolism,
            get: { $0.basalMetabolism.map(FieldValue.integer) },
            set: { composition, value in
                guard case .integer(let energy) = value else { return false }
                composition.basalMetabolism = energy
                return true
            }),
        composition("imp", \.impedance, result: "impedance", .tenths, column: .impedance),
    ]

    static let temperature: [ReadingField] = [
        .number(
            "c", \TemperatureReading.celsius, result: ["temperature"], .converted, column: .temperature,
            fleet: "temperature", loinc: "8310-5")
    ]

    static let oximetry: [ReadingField] = [
        .integer(
            "spo2", \OximetryReading.oxygenSaturation, result: ["oxygen_saturation"], column: .spo2, fleet: "spo2",
            loinc: "2708-6"),
        .integer(
            "hr", \OximetryReading.heartRate, result: ["heart_rate"], column: .heartRate, fleet: "pulse",
            loinc: "8867-4"),
        .number(
            "pi", \OximetryReading.perfusionIndex, result: ["perfusion_index"], .tenths, column: .perfusionIndex,
            fleet: "pi"),
    ]

    static let activity: [ReadingField] = [
        .integer(
            "steps", \ActivityDay.steps, result: ["activedata", "steps"], column: .steps, fleet: "steps",
            loinc: "55423-8"),
        .integer(
            "cal", \ActivityDay.calories, result: ["activedata", "calories"], column: .calories, fleet: "calories"),
        .integer(
            "sleep", \ActivityDay.sleepMinutes, result: ["sleepdata", "sleeptime"], column: .sleep,
            fleet: "sleepMinutes"),
        .integer(
            "eff", \ActivityDay.sleepEfficiency, result: ["sleepdata", "sleepefficiency"], column: .sleepEfficiency,
            fleet: "sleepEfficiency"),
        .integer(
            "swim", \ActivityDay.swimMinutes, result: ["swimdata", "swimtime"], column: .swim, fleet: "swimMinutes"),
        .integer(
            "swimcal", \ActivityDay.swimCalories, result: ["swimdata", "calories"], column: .swimCalories,
            fleet: "swimCalories"),
    ]

    static let bandDay: [ReadingField] = [
        .integer("steps", \BandDay.steps, result: ["activedata", "steps"], column: .steps, loinc: "55423-8"),
        .integer("cal", \BandDay.calories, result: ["activedata", "calories"], column: .calories),
        .integer("dist", \BandDay.distance, result: ["activedata", "distance"], .distance, column: .distance),
        computed(result: ["sleepdata", "sleeptime"], column: .sleep) { $0.sleep.minutes },
        computed(result: ["sleepdata", "sleepefficiency"], column: .sleepEfficiency) { $0.sleep.efficiency },
        .integer("deep", \BandDay.sleep.deep, result: ["sleepdata", "deep"], column: .deepSleep),
        .integer("light", \BandDay.sleep.light, result: ["sleepdata", "light"], column: .lightSleep),
        .integer("awake", \BandDay.sleep.awake, result: ["sleepdata", "awake"], column: .awake),
        bandHeartRate("hrmin", \.minimum, result: "min", column: .heartRateMinimum),
        bandHeartRate("hravg", \.average, result: "avg", column: .heartRateAverage),
        bandHeartRate("hrmax", \.maximum, result: "max", column: .heartRateMaximum),
        bandHeartRate("hrn", \.minutes, result: "minutes", column: .heartRateMinutes),
        ReadingField(
            name: "sports", type: .sports, presence: .optional, resultPath: ["sportdata"], resultRule: .sports,
            column: .sports, fleetKey: nil, loinc: nil,
            read: { reading in
                guard case .band(let day) = reading else { return nil }
                return .sports(day.sports)
            },
            write: { reading, value in
                guard case .band(var day) = reading, case .sports(let sports) = value else { return false }
                day.sports = sports
                reading = .band(day)
                return true
            }),
    ]

    static let heartRate: [ReadingField] = [
        .integer("hr", \HeartRateReading.heartRate, result: ["heart_rate"], column: .heartRate, loinc: "8867-4"),
        // results leave the series out; FHIR gives its SDNN (heart-rate variability)
        ReadingField(
            name: "rr", type: .intervals, presence: .optional, resultPath: nil, resultRule: .whole,
            column: .rrIntervals, fleetKey: nil, loinc: "80404-7",
            read: { reading in
                guard case .heartRate(let recording) = reading, !recording.rrIntervals.isEmpty else { return nil }
                return .intervals(recording.rrIntervals)
            },
            write: { reading, value in
                guard case .heartRate(var recording) = reading, case .intervals(let intervals) = value,
                    intervals.allSatisfy({ $0.isFinite && $0 > 0 })
                else { return false }
                recording.rrIntervals = intervals
                reading = .heartRate(recording)
                return true
            }),
    ]
}

/// A reading type of one kind: how it sits in a ``LayeredReading``.
protocol KindReading: Sendable {
    static func extract(_ reading: LayeredReading) -> Self?
    var embedded: LayeredReading { get }
}

extension BloodPressureReading: KindReading {
    static func extract(_ reading: LayeredReading) -> Self? {
        if case .bloodPressure(let value) = reading { value } else { nil }
    }
    var embedded: LayeredReading { .bloodPressure(self) }
}

extension GlucoseReading: KindReading {
    static func extract(_ reading: LayeredReading) -> Self? {
        if case .glucose(let value) = reading { value } else { nil }
    }
    var embedded: LayeredReading { .glucose(self) }
}

extension WeightReading: KindReading {
    static func extract(_ reading: LayeredReading) -> Self? {
        if case .weight(let value) = reading { value } else { nil }
    }
    var embedded: LayeredReading { .weight(self) }
}

extension TemperatureReading: KindReading {
    static func extract(_ reading: LayeredReading) -> Self? {
        if case .temperature(let value) = reading { value } else { nil }
    }
    var embedded: LayeredReading { .temperature(self) }
}

extension OximetryReading: KindReading {
    static func extract(_ reading: LayeredReading) -> Self? {
        if case .oximetry(let value) = reading { value } else { nil }
    }
    var embedded: LayeredReading { .oximetry(self) }
}

extension ActivityDay: KindReading {
    static func extract(_ reading: LayeredReading) -> Self? {
        if case .activity(let value) = reading { value } else { nil }
    }
    var embedded: LayeredReading { .activity(self) }
}

extension BandDay: KindReading {
    static func extract(_ reading: LayeredReading) -> Self? {
        if case .band(let value) = reading { value } else { nil }
    }
    var embedded: LayeredReading { .band(self) }
}

extension HeartRateReading: KindReading {
    static func extract(_ reading: LayeredReading) -> Self? {
        if case .heartRate(let value) = reading { value } else { nil }
    }
    var embedded: LayeredReading { .heartRate(self) }
}

/// A Swift value a field holds: a quantity, a count or a flag.
protocol FieldScalar: Sendable {
    static var valueType: ReadingField.ValueType { get }
    var fieldValue: FieldValue { get }
    init?(_ value: FieldValue)
}

extension Double: FieldScalar {
    static var valueType: ReadingField.ValueType { .number }
    var fieldValue: FieldValue { .number(self) }
    init?(_ value: FieldValue) {
        guard case .number(let number) = value else { return nil }
        self = number
    }
}

extension Int: FieldScalar {
    static var valueType: ReadingField.ValueType { .integer }
    var fieldValue: FieldValue { .integer(self) }
    init?(_ value: FieldValue) {
        guard case .integer(let integer) = value else { return nil }
        self = integer
    }
}

extension Bool: FieldScalar {
    static var valueType: ReadingField.ValueType { .flag }
    var fieldValue: FieldValue { .flag(self) }
    init?(_ value: FieldValue) {
        guard case .flag(let flag) = value else { return nil }
        self = flag
    }
}

extension ReadingField {
    /// A field of `R` held at `path`; `path` to an optional makes it an optional field.
    private static func scalar<R: KindReading, V: FieldScalar>(
        _ name: String, _ path: WritableKeyPath<R, V> & Sendable, presence: Presence = .required, result: [String]?,
        _ rule: ResultRule, column: ReadingColumn?, fleet: String?, loinc: String?
    ) -> ReadingField {
        ReadingField(
            name: name, type: V.valueType, presence: presence, resultPath: result, resultRule: rule, column: column,
            fleetKey: fleet, loinc: loinc, read: { R.extract($0).map { $0[keyPath: path].fieldValue } },
            write: { reading, value in
                guard var typed = R.extract(reading), let scalar = V(value) else { return false }
                typed[keyPath: path] = scalar
                reading = typed.embedded
                return true
            })
    }

    private static func optionalScalar<R: KindReading, V: FieldScalar>(
        _ name: String, _ path: WritableKeyPath<R, V?> & Sendable, result: [String]?, _ rule: ResultRule,
        column: ReadingColumn?, fleet: String?, loinc: String?
    ) -> ReadingField {
        ReadingField(
            name: name, type: V.valueType, presence: .optional, resultPath: result, resultRule: rule, column: column,
            fleetKey: fleet, loinc: loinc, read: { R.extract($0).flatMap { $0[keyPath: path]?.fieldValue } },
            write: { reading, value in
                guard var typed = R.extract(reading), let scalar = V(value) else { return false }
                typed[keyPath: path] = scalar
                reading = typed.embedded
                return true
            })
    }

    static func number<R: KindReading>(
        _ name: String, _ path: WritableKeyPath<R, Double> & Sendable, result: [String], _ rule: ResultRule,
        column: ReadingColumn, fleet: String? = nil, loinc: String? = nil
    ) -> ReadingField {
        scalar(name, path, result: result, rule, column: column, fleet: fleet, loinc: loinc)
    }

    static func number<R: KindReading>(
        _ name: String, _ path: WritableKeyPath<R, Double?> & Sendable, result: [String], _ rule: ResultRule,
        column: ReadingColumn, fleet: String? = nil, loinc: String? = nil
    ) -> ReadingField {
        optionalScalar(name, path, result: result, rule, column: column, fleet: fleet, loinc: loinc)
    }

    static func integer<R: KindReading>(
        _ name: String, _ path: WritableKeyPath<R, Int> & Sendable, result: [String], _ rule: ResultRule = .whole,
        column: ReadingColumn, fleet: String? = nil, loinc: String? = nil
    ) -> ReadingField {
        scalar(name, path, result: result, rule, column: column, fleet: fleet, loinc: loinc)
    }

    static func integer<R: KindReading>(
        _ name: String, _ path: WritableKeyPath<R, Int?> & Sendable, result: [String], column: ReadingColumn,
        fleet: String? = nil, loinc: String? = nil
    ) -> ReadingField {
        optionalScalar(name, path, result: result, .whole, column: column, fleet: fleet, loinc: loinc)
    }

    static func flag<R: KindReading>(
        _ name: String, _ path: WritableKeyPath<R, Bool?> & Sendable, result: [String], column: ReadingColumn,
        fleet: String? = nil
    ) -> ReadingField {
        optionalScalar(name, path, result: result, .flag, column: column, fleet: fleet, loinc: nil)
    }

    /// A field of a weight's body composition, which its body fat opens.
    private static func composition(
        _ name: String, required: Bool, result: String, _ rule: ResultRule, column: ReadingColumn,
        fleet: String? = nil, loinc: String? = nil, get: @escaping @Sendable (BodyComposition) -> FieldValue?,
        set: @escaping @Sendable (inout BodyComposition, FieldValue) -> Bool
    ) -> ReadingField {
        ReadingField(
            name: name, type: name == "bmr" ? .integer : .number, presence: .grouped("composition", required: required),
            resultPath: [result], resultRule: rule, column: column, fleetKey: fleet, loinc: loinc,
            read: { WeightReading.extract($0)?.bodyComposition.flatMap(get) },
            write: { reading, value in
                guard var weight = WeightReading.extract(reading) else { return false }
                // only the body fat opens a composition: the others come with it
                var composition = weight.bodyComposition ?? BodyComposition(bodyFatPercentage: .nan)
                guard weight.bodyComposition != nil || required, set(&composition, value) else { return false }
                weight.bodyComposition = composition
                reading = weight.embedded
                return true
            })
    }

    /// An optional quantity of a weight's body composition, in %, kg or Ω.
    private static func composition(
        _ name: String, _ path: WritableKeyPath<BodyComposition, Double?> & Sendable, result: String,
        _ rule: ResultRule,
        column: ReadingColumn
    ) -> ReadingField {
        composition(
            name, required: false, result: result, rule, column: column,
            get: { $0[keyPath: path].map(FieldValue.number) },
            set: { composition, value in
                guard case .number(let number) = value else { return false }
                composition[keyPath: path] = number
                return true
            })
    }

    /// One of the four figures of a band day's heart-rate minutes, which come together.
    private static func bandHeartRate(
        _ name: String, _ path: WritableKeyPath<BandDay.HeartRate, Int> & Sendable, result: String,
        column: ReadingColumn
    ) -> ReadingField {
        ReadingField(
            name: name, type: .integer, presence: .grouped("heartRate", required: true),
            resultPath: ["heartratedata", result], resultRule: .whole, column: column, fleetKey: nil, loinc: nil,
            read: { BandDay.extract($0)?.heartRate.map { .integer($0[keyPath: path]) } },
            write: { reading, value in
                guard var day = BandDay.extract(reading), case .integer(let figure) = value else { return false }
                var heartRate = day.heartRate ?? BandDay.HeartRate(minimum: 0, average: 0, maximum: 0, minutes: 0)
                heartRate[keyPath: path] = figure
                day.heartRate = heartRate
                reading = day.embedded
                return true
            })
    }

    /// A band day's figure computed from its stored fields: written in results and exports, never stored.
    private static func computed(
        result: [String], column: ReadingColumn, _ figure: @escaping @Sendable (BandDay) -> Int
    ) -> ReadingField {
        ReadingField(
            name: nil, type: .integer, presence: .required, resultPath: result, resultRule: .whole, column: column,
            fleetKey: nil, loinc: nil, read: { BandDay.extract($0).map { .integer(figure($0)) } }, write: nil)
    }
}
