/// The fields of each reading kind: one line a field, with its store name, result key, CSV column, fleet key and
/// LOINC code. The fields code names (a device's decoder marking one unavailable, a provider answering one) are
/// static members, so that none is looked up by its name.
extension ReadingField {
    /// The systolic pressure of a blood pressure, mmHg.
    public static let systolic: ReadingField = FieldsOf<BloodPressureReading>.number(
        "sys", { $0.systolic }, { $0.systolic = $1 }, result: ["systolic"], .converted, column: .systolic,
        fleet: "systolic", loinc: "8480-6")

    /// The diastolic pressure of a blood pressure, mmHg.
    public static let diastolic: ReadingField = FieldsOf<BloodPressureReading>.number(
        "dia", { $0.diastolic }, { $0.diastolic = $1 }, result: ["diastolic"], .converted, column: .diastolic,
        fleet: "diastolic", loinc: "8462-4")

    /// The pulse a blood pressure monitor measured with the pressure, bpm.
    public static let bloodPressurePulse: ReadingField = FieldsOf<BloodPressureReading>.integer(
        "hr", { $0.heartRate }, { $0.heartRate = $1 }, result: ["heart_rate"], column: .heartRate, fleet: "pulse",
        loinc: "8867-4")

    /// A glucose reading's concentration, mg/dL.
    public static let bloodGlucose: ReadingField = FieldsOf<GlucoseReading>.number(
        "mgdl", { $0.mgPerDeciliter }, { $0.mgPerDeciliter = $1 }, result: ["blood_glucose"], .converted,
        column: .glucose,
        fleet: "glucose", loinc: "2339-0")

    /// A weight, kg.
    public static let bodyWeight: ReadingField = FieldsOf<WeightReading>.number(
        "kg", { $0.kilograms }, { $0.kilograms = $1 }, result: ["weight"], .converted, column: .weight,
        fleet: "weight",
        loinc: "29463-7")

    /// The body fat percentage of a body composition, which opens it.
    public static let bodyFat: ReadingField = composition(
        "fat", required: true, result: "body_fat", .tenths, column: .bodyFat, fleet: "bodyFat", loinc: "41982-0",
        get: { .number($0.bodyFatPercentage) },
        set: { composition, value in
            guard case .number(let fat) = value else { return false }
            // the other fields of a composition stay: marking the body fat unavailable keeps them
            composition.bodyFatPercentage = fat
            return true
        })

    /// The muscle mass of a body composition, kg.
    public static let muscleMass: ReadingField = composition(
        "muscle", { $0.muscleMass }, { $0.muscleMass = $1 }, result: "muscle_mass", .converted, column: .muscleMass)

    /// The fat-free mass of a body composition, kg.
    public static let fatFreeMass: ReadingField = composition(
        "ffm", { $0.fatFreeMass }, { $0.fatFreeMass = $1 }, result: "fat_free_mass", .converted,
        column: .fatFreeMass)

    /// The soft lean mass of a body composition, kg.
    public static let softLeanMass: ReadingField = composition(
        "slm", { $0.softLeanMass }, { $0.softLeanMass = $1 }, result: "soft_lean_mass", .converted,
        column: .softLeanMass)

    /// The body water mass of a body composition, kg.
    public static let bodyWaterMass: ReadingField = composition(
        "water", { $0.bodyWaterMass }, { $0.bodyWaterMass = $1 }, result: "body_water_mass", .converted,
        column: .bodyWaterMass)

    /// A temperature, °C.
    public static let bodyTemperature: ReadingField = FieldsOf<TemperatureReading>.number(
        "c", { $0.celsius }, { $0.celsius = $1 }, result: ["temperature"], .converted, column: .temperature,
        fleet: "temperature", loinc: "8310-5")

    /// An oximetry's oxygen saturation, %.
    public static let oxygenSaturation: ReadingField = FieldsOf<OximetryReading>.integer(
        "spo2", { $0.oxygenSaturation }, { $0.oxygenSaturation = $1 }, result: ["oxygen_saturation"], column: .spo2,
        fleet: "spo2",
        loinc: "2708-6")

    /// The pulse an oximeter measured with the saturation, bpm.
    public static let oximetryPulse: ReadingField = FieldsOf<OximetryReading>.integer(
        "hr", { $0.heartRate }, { $0.heartRate = $1 }, result: ["heart_rate"], column: .heartRate, fleet: "pulse",
        loinc: "8867-4")

    /// An oximetry's perfusion index, %.
    public static let perfusionIndex: ReadingField = FieldsOf<OximetryReading>.number(
        "pi", { $0.perfusionIndex }, { $0.perfusionIndex = $1 }, result: ["perfusion_index"], .tenths,
        column: .perfusionIndex,
        fleet: "pi")

    static let bloodPressure: [ReadingField] = [
        systolic,
        diastolic,
        bloodPressurePulse,
        FieldsOf<BloodPressureReading>.flag(
            "arr", { $0.arrhythmia }, { $0.arrhythmia = $1 }, result: ["arrhythmia"], column: .arrhythmia,
            fleet: "arrhythmia"),
    ]

    static let glucose: [ReadingField] = [bloodGlucose]

    static let weight: [ReadingField] = [
        bodyWeight,
        bodyFat,
        composition(
            "musclepct", { $0.musclePercentage }, { $0.musclePercentage = $1 }, result: "muscle_percentage", .tenths,
            column: .musclePercentage),
        muscleMass,
        fatFreeMass,
        softLeanMass,
        bodyWaterMass,
        composition(
            "bmr", type: .integer, required: false, result: "basal_metabolism", .whole, column: .basalMetabolism,
            get: { $0.basalMetabolism.map(FieldValue.integer) },
            set: { composition, value in
                guard case .integer(let energy) = value else { return false }
                composition.basalMetabolism = energy
                return true
            }),
        composition("imp", { $0.impedance }, { $0.impedance = $1 }, result: "impedance", .tenths, column: .impedance),
    ]

    static let temperature: [ReadingField] = [bodyTemperature]

    static let oximetry: [ReadingField] = [
        oxygenSaturation,
        oximetryPulse,
        perfusionIndex,
        // results leave the wave out (the URL budget: up to 255 samples, about 1 KB a record); FHIR gives it as the
        // SpO2 observation's sampled-data component, CSV and `records` as its samples
        ReadingField(
            name: "wave", type: .samples, presence: .optional, resultPath: nil, resultRule: .whole, column: .wave,
            fleetKey: nil, loinc: nil,
            read: { reading in
                guard case .oximetry(let oximetry) = reading else { return nil }
                return oximetry.wave.map(FieldValue.samples)
            },
            write: { reading, value in
                // no samples: no wave (what marking it unavailable writes); else 1–255 samples, each 0–100
                guard case .oximetry(var oximetry) = reading, case .samples(let samples) = value,
                    samples.count <= OximetryReading.maximumWaveSamples,
                    samples.allSatisfy(OximetryReading.waveRange.contains)
                else { return false }
                oximetry.wave = samples.isEmpty ? nil : samples
                reading = .oximetry(oximetry)
                return true
            }),
    ]

    static let activity: [ReadingField] = [
        FieldsOf<ActivityDay>.integer(
            "steps", { $0.steps }, { $0.steps = $1 }, result: ["activedata", "steps"], column: .steps, fleet: "steps",
            loinc: "55423-8"),
        FieldsOf<ActivityDay>.integer(
            "cal", { $0.calories }, { $0.calories = $1 }, result: ["activedata", "calories"], column: .calories,
            fleet: "calories"),
        FieldsOf<ActivityDay>.integer(
            "sleep", { $0.sleepMinutes }, { $0.sleepMinutes = $1 }, result: ["sleepdata", "sleeptime"], column: .sleep,
            fleet: "sleepMinutes"),
        FieldsOf<ActivityDay>.integer(
            "eff", { $0.sleepEfficiency }, { $0.sleepEfficiency = $1 }, result: ["sleepdata", "sleepefficiency"],
            column: .sleepEfficiency,
            fleet: "sleepEfficiency"),
        FieldsOf<ActivityDay>.integer(
            "swim", { $0.swimMinutes }, { $0.swimMinutes = $1 }, result: ["swimdata", "swimtime"], column: .swim,
            fleet: "swimMinutes"),
        FieldsOf<ActivityDay>.integer(
            "swimcal", { $0.swimCalories }, { $0.swimCalories = $1 }, result: ["swimdata", "calories"],
            column: .swimCalories,
            fleet: "swimCalories"),
    ]

    static let bandDay: [ReadingField] = [
        FieldsOf<BandDay>.integer(
            "steps", { $0.steps }, { $0.steps = $1 }, result: ["activedata", "steps"], column: .steps, loinc: "55423-8"),
        FieldsOf<BandDay>.integer(
            "cal", { $0.calories }, { $0.calories = $1 }, result: ["activedata", "calories"], column: .calories),
        FieldsOf<BandDay>.integer(
            "dist", { $0.distance }, { $0.distance = $1 }, result: ["activedata", "distance"], .distance,
            column: .distance),
        // the lists are left out (nil) when empty: a day stored before they were kept is written as it was
        ReadingField(
            name: "sporttotals", type: .sportTotals, presence: .optional, resultPath: ["activedata", "sports"],
            resultRule: .sportTotals, column: .sportTotals, fleetKey: nil, loinc: nil,
            read: { reading in
                guard case .band(let day) = reading, !day.sportTotals.isEmpty else { return nil }
                return .sportTotals(day.sportTotals)
            },
            write: { reading, value in
                guard case .band(var day) = reading, case .sportTotals(let totals) = value else { return false }
                day.sportTotals = totals
                reading = .band(day)
                return true
            }),
        computed(result: ["sleepdata", "sleeptime"], column: .sleep) { $0.sleep.minutes },
        computed(result: ["sleepdata", "sleepefficiency"], column: .sleepEfficiency) { $0.sleep.efficiency },
        FieldsOf<BandDay>.integer(
            "deep", { $0.sleep.deep }, { $0.sleep.deep = $1 }, result: ["sleepdata", "deep"], column: .deepSleep),
        FieldsOf<BandDay>.integer(
            "light", { $0.sleep.light }, { $0.sleep.light = $1 }, result: ["sleepdata", "light"], column: .lightSleep),
        FieldsOf<BandDay>.integer(
            "awake", { $0.sleep.awake }, { $0.sleep.awake = $1 }, result: ["sleepdata", "awake"], column: .awake),
        ReadingField(
            name: "sleepsegs", type: .sleepSegments, presence: .optional, resultPath: ["sleepdata", "segments"],
            resultRule: .sleepSegments, column: .sleepSegments, fleetKey: nil, loinc: nil,
            read: { reading in
                guard case .band(let day) = reading, !day.sleepSegments.isEmpty else { return nil }
                return .sleepSegments(day.sleepSegments)
            },
            write: { reading, value in
                guard case .band(var day) = reading, case .sleepSegments(let segments) = value,
                    segments.allSatisfy({ (1...6).contains($0.type) && (0..<1440).contains($0.start) })
                        && segments.allSatisfy({ (0..<1440).contains($0.end) })
                else { return false }
                day.sleepSegments = segments
                reading = .band(day)
                return true
            }),
        bandHeartRate("hrmin", { $0.minimum }, { $0.minimum = $1 }, result: "min", column: .heartRateMinimum),
        bandHeartRate("hravg", { $0.average }, { $0.average = $1 }, result: "avg", column: .heartRateAverage),
        bandHeartRate("hrmax", { $0.maximum }, { $0.maximum = $1 }, result: "max", column: .heartRateMaximum),
        bandHeartRate("hrn", { $0.minutes }, { $0.minutes = $1 }, result: "minutes", column: .heartRateMinutes),
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

    static let heartRate: [ReadingField] = [recordedHeartRate, rrIntervals]

    /// A heart-rate recording's rate, bpm.
    public static let recordedHeartRate: ReadingField = FieldsOf<HeartRateReading>.integer(
        "hr", { $0.heartRate }, { $0.heartRate = $1 }, result: ["heart_rate"], column: .heartRate, loinc: "8867-4")

    /// A heart-rate recording's RR intervals, seconds. Results leave the series out; FHIR gives its SDNN (heart-rate
    /// variability).
    public static let rrIntervals = ReadingField(
        name: "rr", type: .intervals, presence: .optional, resultPath: nil, resultRule: .whole, column: .rrIntervals,
        fleetKey: nil, loinc: "80404-7",
        read: { reading in HeartRateReading.extract(reading).map { .intervals($0.rrIntervals) } },
        write: { reading, value in
            guard var recording = HeartRateReading.extract(reading), case .intervals(let intervals) = value,
                intervals.allSatisfy({ $0.isFinite && $0 > 0 })
            else { return false }
            recording.rrIntervals = intervals
            reading = recording.embedded
            return true
        })
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

/// The fields of reading type `R`, each read and written by a pair of closures (not key paths, whose application
/// costs hundreds of instructions at run time on every reading of a sync or an export).
enum FieldsOf<R: KindReading> {
    private static func scalar<V: FieldScalar>(
        _ name: String, _ get: @escaping @Sendable (R) -> V?, _ set: @escaping @Sendable (inout R, V) -> Void,
        presence: ReadingField.Presence, result: [String], _ rule: ReadingField.ResultRule, column: ReadingColumn,
        fleet: String?, loinc: String?
    ) -> ReadingField {
        ReadingField(
            name: name, type: V.valueType, presence: presence, resultPath: result, resultRule: rule, column: column,
            fleetKey: fleet, loinc: loinc, read: { R.extract($0).flatMap(get)?.fieldValue },
            write: { reading, value in
                guard var typed = R.extract(reading), let scalar = V(value) else { return false }
                set(&typed, scalar)
                reading = typed.embedded
                return true
            })
    }

    static func number(
        _ name: String, _ get: @escaping @Sendable (R) -> Double, _ set: @escaping @Sendable (inout R, Double) -> Void,
        result: [String], _ rule: ReadingField.ResultRule, column: ReadingColumn, fleet: String? = nil,
        loinc: String? = nil
    ) -> ReadingField {
        scalar(name, get, set, presence: .required, result: result, rule, column: column, fleet: fleet, loinc: loinc)
    }

    static func number(
        _ name: String, _ get: @escaping @Sendable (R) -> Double?, _ set: @escaping @Sendable (inout R, Double) -> Void,
        result: [String], _ rule: ReadingField.ResultRule, column: ReadingColumn, fleet: String? = nil,
        loinc: String? = nil
    ) -> ReadingField {
        scalar(name, get, set, presence: .optional, result: result, rule, column: column, fleet: fleet, loinc: loinc)
    }

    static func integer(
        _ name: String, _ get: @escaping @Sendable (R) -> Int, _ set: @escaping @Sendable (inout R, Int) -> Void,
        result: [String], _ rule: ReadingField.ResultRule = .whole, column: ReadingColumn, fleet: String? = nil,
        loinc: String? = nil
    ) -> ReadingField {
        scalar(name, get, set, presence: .required, result: result, rule, column: column, fleet: fleet, loinc: loinc)
    }

    static func integer(
        _ name: String, _ get: @escaping @Sendable (R) -> Int?, _ set: @escaping @Sendable (inout R, Int) -> Void,
        result: [String], column: ReadingColumn, fleet: String? = nil, loinc: String? = nil
    ) -> ReadingField {
        scalar(name, get, set, presence: .optional, result: result, .whole, column: column, fleet: fleet, loinc: loinc)
    }

    static func flag(
        _ name: String, _ get: @escaping @Sendable (R) -> Bool?, _ set: @escaping @Sendable (inout R, Bool) -> Void,
        result: [String], column: ReadingColumn, fleet: String? = nil
    ) -> ReadingField {
        scalar(name, get, set, presence: .optional, result: result, .flag, column: column, fleet: fleet, loinc: nil)
    }
}

extension ReadingField {
    /// A field of a weight's body composition, which its body fat opens.
    private static func composition(
        _ name: String, type: ValueType = .number, required: Bool, result: String, _ rule: ResultRule,
        column: ReadingColumn,
        fleet: String? = nil, loinc: String? = nil, get: @escaping @Sendable (BodyComposition) -> FieldValue?,
        set: @escaping @Sendable (inout BodyComposition, FieldValue) -> Bool
    ) -> ReadingField {
        ReadingField(
            name: name, type: type, presence: .grouped("composition", required: required),
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
        _ name: String, _ get: @escaping @Sendable (BodyComposition) -> Double?,
        _ set: @escaping @Sendable (inout BodyComposition, Double) -> Void, result: String, _ rule: ResultRule,
        column: ReadingColumn
    ) -> ReadingField {
        composition(
            name, required: false, result: result, rule, column: column, get: { get($0).map(FieldValue.number) },
            set: { composition, value in
                guard case .number(let number) = value else { return false }
                set(&composition, number)
                return true
            })
    }

    /// One of the four figures of a band day's heart-rate minutes, which come together.
    private static func bandHeartRate(
        _ name: String, _ get: @escaping @Sendable (BandDay.HeartRate) -> Int,
        _ set: @escaping @Sendable (inout BandDay.HeartRate, Int) -> Void, result: String, column: ReadingColumn
    ) -> ReadingField {
        ReadingField(
            name: name, type: .integer, presence: .grouped("heartRate", required: true),
            resultPath: ["heartratedata", result], resultRule: .whole, column: column, fleetKey: nil, loinc: nil,
            read: { BandDay.extract($0)?.heartRate.map { .integer(get($0)) } },
            write: { reading, value in
                guard var day = BandDay.extract(reading), case .integer(let figure) = value else { return false }
                var heartRate = day.heartRate ?? BandDay.HeartRate(minimum: 0, average: 0, maximum: 0, minutes: 0)
                set(&heartRate, figure)
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
