import VitalCore
import VitalDevices

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A small deterministic generator (SplitMix64) whose state can be saved, so a device's generated values continue
/// across hub processes.
public struct SeededGenerator: RandomNumberGenerator, Hashable, Sendable {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// One simulated person, whose readings a device's generated history and its generated live measurements are:
/// plausible for one body over time, at the resolution the device sends.
///
/// What is drawn from the seed once is the person (their weight, body fat, blood pressure, resting pulse, fasting
/// glucose); what changes with time follows them smoothly. Each reading adds noise drawn from the generator it is
/// given, in time order:
/// - weight drifts with two slow waves (97 and 23 days; together at most 0.19 kg a day) and ±0.05 kg of noise, so
///   two readings never differ by 0.3 kg or more a day apart or less; body fat follows the same waves;
/// - blood pressure and pulse have a daily rhythm (highest in the late morning and afternoon, about 8 mmHg lower at
///   night) with beat-to-beat noise, inside physiological ranges; an irregular pulse now and then;
/// - glucose is near the fasting value early in the morning and after meals rises for two hours;
/// - temperature follows the body's daily rhythm (lowest before dawn);
/// - an activity monitor's days differ: more steps on some weekdays, a longer sleep at the weekend, a swim some days.
struct SimulatedPerson: Sendable {
    let weight: Double
    let bodyFat: Double
    let systolic: Double
    let diastolic: Double
    let pulse: Double
    let glucose: Double
    /// The phases of the slow waves, in radians.
    let slowPhase: Double
    let fastPhase: Double
    /// The weekday (0 = Thursday, 1970-01-01's) of the person's long walk, and whether they swim.
    let walkDay: Int
    let swims: Bool

    init(seed: UInt64) {
        // salted ("PERSON"), so that the person is not drawn from the numbers the device's records are
        var random = SeededGenerator(seed: seed ^ 0x5045_5253_4F4E)
        func draw(_ range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &random) }
        weight = draw(55...100)
        bodyFat = draw(14...32)
        systolic = draw(112...138)
        diastolic = systolic - draw(38...50)
        pulse = draw(58...78)
        glucose = draw(82...102)
        slowPhase = draw(0...(2 * .pi))
        fastPhase = draw(0...(2 * .pi))
        walkDay = Int.random(in: 0...6, using: &random)
        swims = Bool.random(using: &random)
    }

    /// The smooth part of the person's weight at `time`, in kg: two slow waves of 1.2 kg over 97 days and 0.4 kg
    /// over 23 days (together at most 2π × (1.2/97 + 0.4/23) ≈ 0.19 kg a day).
    func trend(at time: Timestamp) -> Double {
        let days = Double(time.secondsSince1970) / 86_400
        return 1.2 * sin(2 * .pi * days / 97 + slowPhase) + 0.4 * sin(2 * .pi * days / 23 + fastPhase)
    }

    /// The daily rhythm at `time`: 1 at `peak` o'clock (UTC, the hub's time), −1 twelve hours later.
    static func rhythm(at time: Timestamp, peak: Double) -> Double {
        let hour = Double(time.secondsSince1970 % 86_400) / 3_600
        return cos(2 * .pi * (hour - peak) / 24)
    }

    /// The person's reading on `entry`'s kind of device at `time`, with noise from `random`.
    func reading(
        for entry: CatalogEntry, at time: Timestamp, swim: Bool, composition: Bool,
        using random: inout SeededGenerator
    ) -> Reading {
        func noise(_ amplitude: Double) -> Double { Double.random(in: -amplitude...amplitude, using: &random) }
        func clamped(_ value: Double, _ range: ClosedRange<Double>) -> Double {
            min(max(value, range.lowerBound), range.upperBound)
        }
        switch entry.family {
        case .bloodPressure:
            let day = Self.rhythm(at: time, peak: 14)
            let systolic = clamped((systolic + 8 * day + noise(7)).rounded(), 90...185)
            let diastolic = clamped((diastolic + 5 * day + noise(5)).rounded(), 50...min(110, systolic - 25))
            let pulse = clamped((pulse + 7 * Self.rhythm(at: time, peak: 16) + noise(5)).rounded(), 48...110)
            // the irregular pulse bit is the arrhythmia flag and the status irregularPulse, as the hub decodes it
            let arrhythmia = Int.random(in: 0..<40, using: &random) == 0
            return .bloodPressure(
                BloodPressureReading(
                    systolic: systolic, diastolic: diastolic, heartRate: Int(pulse), arrhythmia: arrhythmia,
                    measuredAt: time, annotations: ReadingAnnotations(status: arrhythmia ? .irregularPulse : [])))
        case .glucose:
            let hour = Int(time.secondsSince1970 % 86_400 / 3_600)
            // two hours after the meals of 07:00, 12:00 and 19:00
            let afterMeal = [7, 12, 19].contains { hour >= $0 && hour < $0 + 2 }
            let value = glucose + (afterMeal ? Double.random(in: 25...70, using: &random) : noise(8))
            return .glucose(GlucoseReading(mgPerDeciliter: clamped(value.rounded(), 70...200), measuredAt: time))
        case .scale:
            // 0.005 kg steps; body fat in 0.1 % steps
            let trend = trend(at: time)
            let kilograms = ((weight + trend + noise(0.05)) * 200).rounded() / 200
            let fat = ((bodyFat + trend * 0.6 + noise(0.2)) * 10).rounded() / 10
            return .weight(
                WeightReading(
                    kilograms: kilograms, measuredAt: time,
                    bodyComposition: composition ? BodyComposition(bodyFatPercentage: clamped(fat, 5...50)) : nil))
        case .thermometer:
            let celsius = 36.6 + 0.3 * Self.rhythm(at: time, peak: 17) + noise(0.15)
            return .temperature(TemperatureReading(celsius: (celsius * 10).rounded() / 10, measuredAt: time))
        case .pulseOximeter:
            let pulse = clamped((pulse + 7 * Self.rhythm(at: time, peak: 16) + noise(5)).rounded(), 48...110)
            return .oximetry(
                OximetryReading(
                    oxygenSaturation: Int.random(in: 95...99, using: &random), heartRate: Int(pulse),
                    perfusionIndex: Double(Int.random(in: 10...80, using: &random)) / 10, measuredAt: time))
        case .smartband:
            preconditionFailure("a smartband records items by itself (BandLife), never readings")
        case .heartRateSensor:
            preconditionFailure("a heart-rate sensor streams beats (HeartRatePeripheral), never readings")
        case .activityMonitor:
            let weekday = Int((time.day.daysSince1970 % 7 + 7) % 7)
            let walk = weekday == walkDay
            // Saturday and Sunday (weekdays 2 and 3 counted from Thursday) are slept in
            let weekend = weekday == 2 || weekday == 3
            let steps = Int.random(in: walk ? 12_000...20_000 : 3_000...11_000, using: &random)
            let swimming = swim && swims && Int.random(in: 0..<3, using: &random) == 0
            let swimMinutes = swim ? (swimming ? Int.random(in: 20...60, using: &random) : 0) : nil
            return .activity(
                ActivityDay(
                    date: time.day, steps: steps, calories: steps / 22 + Int.random(in: 0...60, using: &random),
                    sleepMinutes: Int.random(in: weekend ? 450...560 : 340...470, using: &random),
                    sleepEfficiency: Int.random(in: 74...96, using: &random), swimMinutes: swimMinutes,
                    swimCalories: swimMinutes.map { $0 * 8 }))
        }
    }
}
