import VitalCore
import VitalDevices

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

/// Physiologically plausible readings, already at the resolution the device sends.
enum ReadingGenerator {
    static func reading(
        for entry: CatalogEntry, at time: LayeredTimestamp, swim: Bool, composition: Bool,
        using random: inout SeededGenerator
    ) -> LayeredReading {
        func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
        switch entry.family {
        case .bloodPressure:
            let systolic = int(100...160)
            let diastolic = systolic - int(30...55)
            return .bloodPressure(
                BloodPressureReading(
                    systolic: Double(systolic), diastolic: Double(max(diastolic, 55)), heartRate: int(52...98),
                    arrhythmia: int(0...19) == 0, measuredAt: time))
        case .glucose:
            return .glucose(GlucoseReading(mgPerDeciliter: Double(int(72...190)), measuredAt: time))
        case .scale:
            // 50.000 to 110.000 kg in 0.005 kg steps; body fat 8.0 to 40.0 % in 0.1 % steps
            let kilograms = Double(int(10_000...22_000) * 5) / 1000
            return .weight(
                WeightReading(
                    kilograms: kilograms, measuredAt: time,
                    bodyComposition: composition ? BodyComposition(bodyFatPercentage: Double(int(80...400)) / 10) : nil
                ))
        case .thermometer:
            return .temperature(TemperatureReading(celsius: Double(int(360...378)) / 10, measuredAt: time))
        case .pulseOximeter:
            return .oximetry(
                OximetryReading(
                    oxygenSaturation: int(91...100), heartRate: int(55...100),
                    perfusionIndex: Double(int(5...100)) / 10,
                    measuredAt: time))
        case .smartband:
            preconditionFailure("a smartband records items by itself (BandLife), never readings")
        case .heartRateSensor:
            preconditionFailure("a heart-rate sensor streams beats (HeartRatePeripheral), never readings")
        case .activityMonitor:
            let swimMinutes = swim ? int(0...60) : nil
            return .activity(
                ActivityDay(
                    date: time.day, steps: int(500...18_000), calories: int(80...900), sleepMinutes: int(300...540),
                    sleepEfficiency: int(70...98), swimMinutes: swimMinutes, swimCalories: swimMinutes.map { $0 * 8 }))
        }
    }
}
