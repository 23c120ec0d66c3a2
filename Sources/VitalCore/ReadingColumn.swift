/// A column of a CSV export and of the `records` table, in canonical units. Every kind's fields share one set of
/// columns, in this order; a ``ReadingField`` names its own (``ReadingField/column``).
public enum ReadingColumn: Int, CaseIterable, Hashable, Sendable {
    case systolic, diastolic, heartRate, arrhythmia, glucose, weight, spo2, perfusionIndex, temperature, steps
    case calories, sleep, sleepEfficiency, swim, swimCalories, distance, deepSleep, lightSleep, awake
    case heartRateMinimum, heartRateAverage, heartRateMaximum, heartRateMinutes, sports, rrIntervals
    case bodyFat, musclePercentage, muscleMass, fatFreeMass, softLeanMass, bodyWaterMass, basalMetabolism, impedance
    /// A band day's totals of each sport, and its sleep segments (last: a CSV reader that counts columns reads
    /// the earlier ones where they were).
    case sportTotals, sleepSegments
    /// A pulse oximeter's pulse wave: its samples (0–100), last so that the columns before it keep their places.
    case wave

    /// The field alone, for the table: `systolic`.
    public var field: String {
        switch self {
        case .systolic: "systolic"
        case .diastolic: "diastolic"
        case .heartRate: "heart_rate"
        case .arrhythmia: "arrhythmia"
        case .glucose: "glucose"
        case .weight: "weight"
        case .spo2: "spo2"
        case .perfusionIndex: "perfusion_index"
        case .temperature: "temperature"
        case .steps: "steps"
        case .calories: "calories"
        case .sleep: "sleep"
        case .sleepEfficiency: "sleep_efficiency"
        case .swim: "swim"
        case .swimCalories: "swim_calories"
        case .distance: "distance"
        case .deepSleep: "deep_sleep"
        case .lightSleep: "light_sleep"
        case .awake: "awake"
        case .heartRateMinimum: "heart_rate_min"
        case .heartRateAverage: "heart_rate_avg"
        case .heartRateMaximum: "heart_rate_max"
        case .heartRateMinutes: "heart_rate_minutes"
        case .sports: "sports"
        case .rrIntervals: "rr_intervals"
        case .bodyFat: "body_fat"
        case .musclePercentage: "muscle"
        case .muscleMass: "muscle_mass"
        case .fatFreeMass: "fat_free_mass"
        case .softLeanMass: "soft_lean_mass"
        case .bodyWaterMass: "body_water_mass"
        case .basalMetabolism: "basal_metabolism"
        case .impedance: "impedance"
        case .sportTotals: "sport_totals"
        case .sleepSegments: "sleep_segments"
        case .wave: "wave"
        }
    }

    /// The unit as a person reads it (`mmHg`, `mg/dL`, `%`); empty for a count or a flag.
    public var unit: String {
        switch self {
        case .systolic, .diastolic: "mmHg"
        case .heartRate, .heartRateMinimum, .heartRateAverage, .heartRateMaximum: "bpm"
        case .arrhythmia, .steps, .heartRateMinutes, .sports, .rrIntervals, .sportTotals, .sleepSegments, .wave: ""
        case .distance: "m"
        case .glucose: "mg/dL"
        case .weight, .muscleMass, .fatFreeMass, .softLeanMass, .bodyWaterMass: "kg"
        case .spo2, .perfusionIndex, .sleepEfficiency, .bodyFat, .musclePercentage: "%"
        case .basalMetabolism: "kJ"
        case .impedance: "ohm"
        case .temperature: "°C"
        case .calories, .swimCalories: "kcal"
        case .sleep, .swim, .deepSleep, .lightSleep, .awake: "min"
        }
    }

    /// The CSV header and JSON key: the field with its unit, `systolic_mmHg`, `glucose_mg_dL`.
    public var name: String {
        switch unit {
        case "": field
        case "%": field + "_percent"
        case "°C": field + "_C"
        case "mg/dL": field + "_mg_dL"
        default: field + "_" + unit
        }
    }
}
