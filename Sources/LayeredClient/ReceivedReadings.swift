import LayeredProtocol
import VitalCore

/// A value with its unit, exactly as a callback writes it (`120` mmHg, `5.6` mmol/L, `154.3` lb).
public struct Quantity: Hashable, Sendable, CustomStringConvertible {
    public var value: FixedDecimal
    public var unit: VitalUnit

    public init(_ value: FixedDecimal, _ unit: VitalUnit) {
        self.value = value
        self.unit = unit
    }

    public var description: String { "\(value) \(unit)" }
}

/// One reading of a callback, typed, with its values in the unit the request asked for.
public struct ReceivedReading: Hashable, Sendable, CustomStringConvertible {
    /// Whether the request took the reading, or it was stored before (in the device's memory, or by the hub for
    /// this caller).
    public enum Origin: String, Hashable, Sendable {
        /// The live measurement of this request.
        case measured
        /// A reading stored before: a synced record, or one the hub still had for the caller.
        case stored
    }

    /// What the reading measured. A value the device could not measure (named in ``ReceivedReading/unavailable``)
    /// is `nil`; any other value the kind always has is there, or the callback is refused.
    public enum Value: Hashable, Sendable {
        /// Blood pressure; the pulse and the arrhythmia flag when the monitor reports them.
        case bloodPressure(systolic: Quantity?, diastolic: Quantity?, heartRate: Int?, arrhythmia: Bool?)
        /// Blood glucose.
        case glucose(Quantity?)
        /// Body weight, with the body composition a composition scale adds.
        case weight(Quantity?, composition: ReceivedComposition?)
        /// SpO2 in percent and the pulse rate; the perfusion index when the oximeter reports it.
        case oximetry(oxygenSaturation: Int?, heartRate: Int?, perfusionIndex: FixedDecimal?)
        /// Body temperature.
        case temperature(Quantity?)
        /// A day of activity (`yyyy-MM-dd`): steps, calories, and the distance when the device reports one. The
        /// rest of the day (sleep, swimming, heart rate, sports) is ``ReceivedReading/day``.
        case activity(day: String, steps: Int, calories: Int, distance: Quantity?)
        /// A heart rate in beats per minute.
        case heartRate(Int?)
    }

    public var origin: Origin
    public var value: Value
    /// When it was measured; `nil` for an activity day, which is dated by ``Value/activity(day:steps:calories:distance:)``.
    public var measuredAt: Timestamp?
    /// The result object as the callback sent it.
    public var object: ResultObject
    /// The statuses the device reported with the reading (`flags`), those this version knows by name.
    public var status: ReadingStatus
    /// Every name `flags` gave, known or not, in order.
    public var flags: [String]
    /// The values the device could not measure (`unavailable`), by result key, with the special value it sent
    /// (`systolic` → NaN). A special value this version does not know is left out.
    public var unavailable: [ResultKey: SpecialValue]
    /// The rest of an activity day: its sleep, swimming, heart rate and sports; `nil` for a reading of another kind.
    public var day: ReceivedDay?

    public var description: String {
        let time = measuredAt.map { " at \($0)" } ?? ""
        let said = flags.isEmpty && unavailable.isEmpty ? "" : " [\(saidDescription)]"
        func text(_ value: (some CustomStringConvertible)?, _ key: ResultKey) -> String {
            value.map { "\($0)" } ?? unavailable[key].map { "\($0)" } ?? "-"
        }
        switch value {
        case .bloodPressure(let systolic, let diastolic, let heartRate, let arrhythmia):
            let pulse = heartRate.map { ", pulse \($0)/min" } ?? ""
            let flag = arrhythmia.map { $0 ? ", irregular heartbeat" : "" } ?? ""
            let unit = (systolic ?? diastolic).map { " \($0.unit)" } ?? ""
            return "blood pressure \(text(systolic?.value, .systolic))/\(text(diastolic?.value, .diastolic))\(unit)"
                + "\(pulse)\(flag)\(time)\(said)"
        case .glucose(let glucose): return "glucose \(text(glucose, .bloodGlucose))\(time)\(said)"
        case .weight(let weight, let composition):
            return "weight \(text(weight, .weight))\(composition?.bodyFat.map { ", body fat \($0) %" } ?? "")"
                + "\(time)\(said)"
        case .oximetry(let saturation, let heartRate, let perfusion):
            return "SpO2 \(text(saturation, .oxygenSaturation)) %, pulse \(text(heartRate, .heartRate))/min"
                + "\(perfusion.map { ", PI \($0) %" } ?? "")\(time)\(said)"
        case .temperature(let temperature): return "temperature \(text(temperature, .temperature))\(time)\(said)"
        case .activity(let date, let steps, let calories, let distance):
            let rest = day.map { $0.description.isEmpty ? "" : "; \($0)" } ?? ""
            return "activity \(date): \(steps) steps, \(calories) kcal\(distance.map { ", \($0)" } ?? "")\(rest)\(said)"
        case .heartRate(let rate): return "heart rate \(text(rate, .heartRate))/min\(time)\(said)"
        }
    }

    /// The flags, then each unavailable value as `key=special`: `bodyMovement, systolic=NaN`.
    private var saidDescription: String {
        (flags + unavailable.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key)=\($0.value)" })
            .joined(separator: ", ")
    }
}

/// What an activity day says beyond its steps, calories and distance: an activity monitor's sleep and swimming, a
/// band's sleep phases, heart rate and sports. A member the callback does not carry is `nil` (an unmeasured one is
/// in ``ReceivedReading/unavailable``).
///
/// ```swift
/// // {"time":"2026-11-20","activedata":{…},"sleepdata":{"sleeptime":420,"sleepefficiency":85},"swimdata":{…}}
/// reading.day?.sleep?.minutes   // 420
/// reading.day?.description      // sleep 420 min (efficiency 85 %); swim 30 min, 210 kcal
/// ```
public struct ReceivedDay: Hashable, Sendable, CustomStringConvertible {
    /// `sleepdata`: minutes asleep and the efficiency (0–100); a band's minutes of deep and light sleep and awake.
    public struct Sleep: Hashable, Sendable {
        public var minutes: Int?
        public var efficiency: Int?
        public var deep: Int?
        public var light: Int?
        public var awake: Int?
    }

    /// `swimdata`: minutes swum and the calories.
    public struct Swim: Hashable, Sendable {
        public var minutes: Int?
        public var calories: Int?
    }

    /// `heartratedata`: a band's lowest, average and highest rate (beats per minute) over its minutes with a rate.
    public struct HeartRate: Hashable, Sendable {
        public var minimum: Int?
        public var average: Int?
        public var maximum: Int?
        public var minutes: Int?
    }

    /// One of `sportdata`: a band's finished sport, by its sport code, from `start` to `end` (`HH:mm:ss`), with
    /// the steps and distance (in the request's unit) the hub sends, and the band's `detail_data` when it sent one.
    public struct Sport: Hashable, Sendable {
        /// `detail`: the band's `detail_data` of a sport, those members it sent.
        public struct Detail: Hashable, Sendable {
            /// Repetitions (sit-ups, push-ups, rope skips, pull-ups).
            public var count: Int?
            /// The band's own measure, without a unit.
            public var activity: Int?
            /// In the request's unit, km by default.
            public var distance: FixedDecimal?
        }

        public var type: Int
        public var start: String
        public var end: String
        public var calories: Int?
        public var steps: Int?
        /// In the request's unit, km by default.
        public var distance: FixedDecimal?
        public var detail: Detail?
    }

    /// One of `activedata.sports`: a band's totals of one sport over the day.
    public struct SportTotal: Hashable, Sendable {
        /// The band's sport code (1 is walking).
        public var type: Int
        /// Steps over the day.
        public var steps: Int?
        /// Kilocalories over the day.
        public var calories: Int?
        /// In the request's unit, km by default.
        public var distance: FixedDecimal?
        /// Repetitions, when the band counted them.
        public var count: Int?
    }

    /// One of `sleepdata.segments`: a segment of a band's night, as the hub keeps it (type 1–6, minutes of the
    /// day).
    public typealias SleepSegment = BandDay.SleepSegment

    public var sleep: Sleep?
    public var swim: Swim?
    public var heartRate: HeartRate?
    /// The sports, in the callback's order; empty when it lists none.
    public var sports: [Sport]
    /// `activedata.sports`, in the callback's order; empty when it lists none.
    public var sportTotals: [SportTotal] = []
    /// `sleepdata.segments`, in the callback's order; empty when it lists none.
    public var sleepSegments: [SleepSegment] = []
    /// `leftout`: the lists the hub left out of a day too large for one callback (`sleepdata.segments`,
    /// `activedata.sports`); empty when it left none out.
    public var leftOut: [String] = []

    /// Each part the day has, `; `-separated: `sleep 420 min (efficiency 85 %, deep 130, light 250, awake 40 min);
    /// swim 30 min, 210 kcal; heart rate 52/68/131 /min (min/avg/max) over 900 min; sports 0x01 07:10:00–07:40:00
    /// 120 kcal, 0x88 18:00:00–18:45:00 310 kcal; sport totals 0x01 8421 steps, 312 kcal, distance 6.12, 0x02 0 steps,
    /// 80 kcal, distance 0.00, 220 reps; sleep segments start 00:40, light 00:40–01:20, end 06:40, placed 06:40–06:43`.
    /// Empty when the day has none of them.
    public var description: String {
        var parts: [String] = []
        func join(_ items: [String?]) -> String { items.compactMap { $0 }.joined(separator: ", ") }
        if let sleep {
            let phases = join([
                sleep.efficiency.map { "efficiency \($0) %" }, sleep.deep.map { "deep \($0)" },
                sleep.light.map { "light \($0)" }, sleep.awake.map { "awake \($0)" },
            ])
            let unit = sleep.deep != nil || sleep.light != nil || sleep.awake != nil ? " min" : ""
            parts.append(
                "sleep" + (sleep.minutes.map { " \($0) min" } ?? "") + (phases.isEmpty ? "" : " (\(phases)\(unit))"))
        }
        if let swim {
            let said = join([swim.minutes.map { "\($0) min" }, swim.calories.map { "\($0) kcal" }])
            parts.append("swim" + (said.isEmpty ? "" : " \(said)"))
        }
        if let rate = heartRate {
            let values = [rate.minimum, rate.average, rate.maximum].map { $0.map(String.init) ?? "-" }
            parts.append(
                "heart rate \(values.joined(separator: "/")) /min (min/avg/max)"
                    + (rate.minutes.map { " over \($0) min" } ?? ""))
        }
        if !sports.isEmpty {
            let listed = sports.map { sport in
                let code = String(sport.type, radix: 16, uppercase: true)
                return "0x\(code.count < 2 ? "0" + code : code) \(sport.start)–\(sport.end)"
                    + (sport.calories.map { " \($0) kcal" } ?? "") + (sport.steps.map { " \($0) steps" } ?? "")
                    + (sport.detail?.count.map { " \($0) reps" } ?? "")
            }
            parts.append("sports " + listed.joined(separator: ", "))
        }
        if !sportTotals.isEmpty {
            let listed = sportTotals.map { total in
                let code = String(total.type, radix: 16, uppercase: true)
                let said = join([
                    total.steps.map { "\($0) steps" }, total.calories.map { "\($0) kcal" },
                    total.distance.map { "distance \($0)" }, total.count.map { "\($0) reps" },
                ])
                return "0x\(code.count < 2 ? "0" + code : code)" + (said.isEmpty ? "" : " " + said)
            }
            parts.append("sport totals " + listed.joined(separator: ", "))
        }
        if !sleepSegments.isEmpty {
            parts.append("sleep segments " + sleepSegments.map { $0.text() }.joined(separator: ", "))
        }
        if !leftOut.isEmpty { parts.append("left out " + leftOut.joined(separator: ", ")) }
        return parts.joined(separator: "; ")
    }
}

/// The body composition a scale sent with a weight; masses in the weight's unit.
public struct ReceivedComposition: Hashable, Sendable {
    public var bodyFat: FixedDecimal?
    public var musclePercentage: FixedDecimal?
    public var muscleMass: Quantity?
    public var fatFreeMass: Quantity?
    public var softLeanMass: Quantity?
    public var bodyWaterMass: Quantity?
    /// Basal metabolism in kJ.
    public var basalMetabolism: Int?
    /// Impedance in ohms.
    public var impedance: FixedDecimal?
}
