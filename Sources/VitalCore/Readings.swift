/// Unit conversion and rounding at the callback edge.
///
/// Readings are kept in one canonical unit per category (mmHg, mg/dL, kg, °C, km) and converted only when a
/// result is written, with exact factors: 1 mmHg = 0.133322387415 kPa; 1 mmol/L = 18.016 mg/dL;
/// 1 lb = 0.45359237 kg; 1 st = 6.35029318 kg; °F = °C × 9/5 + 32; 1 mile = 1.609344 km. Results are then rounded
/// half away from zero to ``VitalUnit/fractionDigits``.
extension VitalUnit {
    /// The category's canonical unit, in which readings are stored.
    public var canonical: VitalUnit { category.defaultUnit! }

    /// `value`, given in ``canonical``, expressed in this unit.
    public func fromCanonical(_ value: Double) -> Double {
        switch self {
        case .mmHg, .mgPerDeciliter, .kilogram, .celsius, .kilometre: value
        case .kPa: value * 0.133_322_387_415
        case .mmolPerLiter: value / 18.016
        case .pound: value / 0.453_592_37
        case .stone: value / 6.350_293_18
        case .fahrenheit: value * 9 / 5 + 32
        case .mile: value / 1.609_344
        }
    }

    /// `value`, given in this unit, expressed in ``canonical``.
    public func toCanonical(_ value: Double) -> Double {
        switch self {
        case .mmHg, .mgPerDeciliter, .kilogram, .celsius, .kilometre: value
        case .kPa: value / 0.133_322_387_415
        case .mmolPerLiter: value * 18.016
        case .pound: value * 0.453_592_37
        case .stone: value * 6.350_293_18
        case .fahrenheit: (value - 32) * 5 / 9
        case .mile: value * 1.609_344
        }
    }

    /// The fraction digits a result in this unit is rounded to: none for mmHg and mg/dL; one for kPa, mmol/L,
    /// lb, °C and °F; two for kg, st, mile and km.
    public var fractionDigits: Int {
        switch self {
        case .mmHg, .mgPerDeciliter: 0
        case .kPa, .mmolPerLiter, .pound, .celsius, .fahrenheit: 1
        case .kilogram, .stone, .mile, .kilometre: 2
        }
    }

    /// `canonicalValue` converted to this unit and rounded; `nil` if it is not finite.
    public func resultValue(canonical canonicalValue: Double) -> FixedDecimal? {
        FixedDecimal(rounding: fromCanonical(canonicalValue), scale: fractionDigits)
    }
}

/// A blood pressure reading, pressures in mmHg.
public struct BloodPressureReading: Hashable, Sendable {
    public var systolic: Double
    public var diastolic: Double
    /// Pulse rate in beats per minute, if the monitor measured it.
    public var heartRate: Int?
    /// Whether an irregular heartbeat was detected, if the monitor reports it.
    public var arrhythmia: Bool?
    public var measuredAt: Timestamp

    /// What the device said about it beyond its values.
    public var annotations: ReadingAnnotations

    public init(
        systolic: Double, diastolic: Double, heartRate: Int? = nil, arrhythmia: Bool? = nil,
        measuredAt: Timestamp, annotations: ReadingAnnotations = .none
    ) {
        self.annotations = annotations
        self.systolic = systolic
        self.diastolic = diastolic
        self.heartRate = heartRate
        self.arrhythmia = arrhythmia
        self.measuredAt = measuredAt
    }
}

/// A blood glucose reading in mg/dL.
public struct GlucoseReading: Hashable, Sendable {
    public var mgPerDeciliter: Double
    public var measuredAt: Timestamp

    /// What the device said about it beyond its values.
    public var annotations: ReadingAnnotations

    public init(mgPerDeciliter: Double, measuredAt: Timestamp, annotations: ReadingAnnotations = .none) {
        self.annotations = annotations
        self.mgPerDeciliter = mgPerDeciliter
        self.measuredAt = measuredAt
    }
}

/// A body weight reading in kilograms, with the body composition a body composition analyzer measured with it.
public struct WeightReading: Hashable, Sendable {
    public var kilograms: Double
    public var measuredAt: Timestamp
    /// What a body composition scale measured with the weight (HS4S; a 902 with the Body Composition Service).
    public var bodyComposition: BodyComposition?

    /// What the device said about it beyond its values.
    public var annotations: ReadingAnnotations

    public init(
        kilograms: Double, measuredAt: Timestamp, bodyComposition: BodyComposition? = nil,
        annotations: ReadingAnnotations = .none
    ) {
        self.annotations = annotations
        self.kilograms = kilograms
        self.measuredAt = measuredAt
        self.bodyComposition = bodyComposition
    }
}

/// A body composition, as the Bluetooth SIG Body Composition Measurement carries it, in canonical units:
/// percentages in %, masses in kg, basal metabolism in kJ, impedance in Ω.
public struct BodyComposition: Hashable, Sendable {
    /// Body fat, in % of the body's mass.
    public var bodyFatPercentage: Double
    /// Basal metabolism, in kJ.
    public var basalMetabolism: Int?
    /// Muscle, in % of the body's mass.
    public var musclePercentage: Double?
    /// Muscle mass, in kg.
    public var muscleMass: Double?
    /// Fat-free mass, in kg.
    public var fatFreeMass: Double?
    /// Soft lean mass, in kg.
    public var softLeanMass: Double?
    /// Body water mass, in kg.
    public var bodyWaterMass: Double?
    /// The body's impedance, in Ω.
    public var impedance: Double?

    public init(
        bodyFatPercentage: Double, basalMetabolism: Int? = nil, musclePercentage: Double? = nil,
        muscleMass: Double? = nil, fatFreeMass: Double? = nil, softLeanMass: Double? = nil,
        bodyWaterMass: Double? = nil, impedance: Double? = nil
    ) {
        self.bodyFatPercentage = bodyFatPercentage
        self.basalMetabolism = basalMetabolism
        self.musclePercentage = musclePercentage
        self.muscleMass = muscleMass
        self.fatFreeMass = fatFreeMass
        self.softLeanMass = softLeanMass
        self.bodyWaterMass = bodyWaterMass
        self.impedance = impedance
    }
}

/// A pulse oximeter reading.
public struct OximetryReading: Hashable, Sendable {
    /// SpO2 in percent.
    public var oxygenSaturation: Int
    /// Pulse rate in beats per minute.
    public var heartRate: Int
    /// Perfusion index in percent, if measured.
    public var perfusionIndex: Double?
    /// The pulse wave the device recorded with it (a PO3 history record's), its samples in order, each 0–100 (the
    /// pulse intensity, in percent of the device's full scale), at most ``maximumWaveSamples``; `nil` when the
    /// device sent none. Two readings with the same values but different waves are two readings.
    public var wave: [Int]?
    public var measuredAt: Timestamp

    /// What the device said about it beyond its values.
    public var annotations: ReadingAnnotations

    /// The most samples a reading's ``wave`` holds: one count byte of the PO3's history wave (VitalDevices'
    /// `PO3HistoryWave`).
    public static let maximumWaveSamples = 255
    /// The samples' range: pulse intensity in percent of the device's full scale.
    public static let waveRange = 0...100
    /// The time between two samples of a wave, in milliseconds (50 Hz, the PO3's history wave).
    public static let waveSamplePeriodMilliseconds = 20

    public init(
        oxygenSaturation: Int, heartRate: Int, perfusionIndex: Double? = nil, wave: [Int]? = nil,
        measuredAt: Timestamp, annotations: ReadingAnnotations = .none
    ) {
        self.annotations = annotations
        self.oxygenSaturation = oxygenSaturation
        self.heartRate = heartRate
        self.perfusionIndex = perfusionIndex
        self.wave = wave
        self.measuredAt = measuredAt
    }
}

/// A body temperature reading in °C.
public struct TemperatureReading: Hashable, Sendable {
    public var celsius: Double
    public var measuredAt: Timestamp

    /// What the device said about it beyond its values.
    public var annotations: ReadingAnnotations

    public init(celsius: Double, measuredAt: Timestamp, annotations: ReadingAnnotations = .none) {
        self.annotations = annotations
        self.celsius = celsius
        self.measuredAt = measuredAt
    }
}

/// One day of an activity monitor's summary (AM3S, AM4).
public struct ActivityDay: Hashable, Sendable {
    public var date: CalendarDate
    public var steps: Int
    /// Calories burnt by activity, kcal.
    public var calories: Int
    /// Minutes asleep.
    public var sleepMinutes: Int
    /// Sleep efficiency, 0–100.
    public var sleepEfficiency: Int
    /// Minutes swum, for monitors that record swimming (AM4 with `swim=1`).
    public var swimMinutes: Int?
    /// Calories burnt swimming, kcal, with ``swimMinutes``.
    public var swimCalories: Int?

    /// What the device said about it beyond its values.
    public var annotations: ReadingAnnotations

    public init(
        date: CalendarDate, steps: Int, calories: Int, sleepMinutes: Int, sleepEfficiency: Int,
        swimMinutes: Int? = nil, swimCalories: Int? = nil, annotations: ReadingAnnotations = .none
    ) {
        self.annotations = annotations
        self.date = date
        self.steps = steps
        self.calories = calories
        self.sleepMinutes = sleepMinutes
        self.sleepEfficiency = sleepEfficiency
        self.swimMinutes = swimMinutes
        self.swimCalories = swimCalories
    }
}

/// One day of a smartband (Fit Pro 9614N, Fit Pulse 9615N, Smartee Training 9616N), summed up from everything the
/// band pushed for that date: its totals, sleep segments, heart-rate minutes and finished sports.
///
/// A callback reports it as an activity monitor's day, extended:
/// `{"time":"2026-11-20","activedata":{"steps":8421,"calories":312,"distance":6.12},"sleepdata":{"sleeptime":412,`
/// `"sleepefficiency":88,"deep":95,"light":270,"awake":47},"heartratedata":{"min":52,"avg":71,"max":128,`
/// `"minutes":1380},"sportdata":[{"type":1,"start":"08:10:00","end":"08:45:00","calories":120,"steps":4100,`
/// `"distance":2.87},{"type":2,"start":"12:05:00","end":"12:15:00","calories":80,"steps":0,"distance":0.00,`
/// `"detail":{"count":220,"activity":10}}]}`.
///
/// It also keeps what the band sent before it was summed up: the day's totals of each sport (``sportTotals``,
/// `activedata.sports` in a callback) and the night's segments in order, start, end and placed marks among them
/// (``sleepSegments``, `sleepdata.segments`).
public struct BandDay: Hashable, Sendable {
    /// The night's segments dated this day, in minutes by kind.
    public struct Sleep: Hashable, Sendable {
        public var deep: Int
        public var light: Int
        public var awake: Int

        public init(deep: Int, light: Int, awake: Int) {
            self.deep = deep
            self.light = light
            self.awake = awake
        }

        /// Minutes in bed: deep, light and awake (`sleeptime`).
        public var minutes: Int { deep + light + awake }
        /// The share of ``minutes`` asleep, in whole percent rounded down (`sleepefficiency`); 0 without sleep.
        public var efficiency: Int { minutes == 0 ? 0 : (deep + light) * 100 / minutes }
    }

    /// The day's heart-rate minutes, in beats per minute.
    public struct HeartRate: Hashable, Sendable {
        public var minimum: Int
        /// The mean of the minutes, rounded half up.
        public var average: Int
        public var maximum: Int
        /// How many minutes had a value.
        public var minutes: Int

        public init(minimum: Int, average: Int, maximum: Int, minutes: Int) {
            self.minimum = minimum
            self.average = average
            self.maximum = maximum
            self.minutes = minutes
        }
    }

    /// A finished sport.
    public struct Sport: Hashable, Sendable {
        /// The band's sport code (1 is walking).
        public var type: Int
        /// Minutes of the day, 0–1439.
        public var start: Int
        public var end: Int
        /// Kilocalories.
        public var calories: Int
        /// Steps taken during it; `nil` for a sport stored before VitalBridge kept them.
        public var steps: Int?
        /// Metres; `nil` for a sport stored before VitalBridge kept them.
        public var distance: Int?
        /// The repetitions of a counting sport (sit-ups, push-ups, rope skips, pull-ups): the `count` of the band's
        /// `detail_data`; `nil` when it sent none.
        public var count: Int?
        /// The `activity` of the band's `detail_data` (the band's own measure, without a unit); `nil` when it sent
        /// none.
        public var activity: Int?
        /// The `distance` of the band's `detail_data`, in metres; `nil` when it sent none.
        public var detailDistance: Int?

        public init(
            type: Int, start: Int, end: Int, calories: Int, steps: Int? = nil, distance: Int? = nil, count: Int? = nil,
            activity: Int? = nil, detailDistance: Int? = nil
        ) {
            self.type = type
            self.start = start
            self.end = end
            self.calories = calories
            self.steps = steps
            self.distance = distance
            self.count = count
            self.activity = activity
            self.detailDistance = detailDistance
        }

        /// Whether the band sent a `detail_data` with any member.
        public var hasDetail: Bool { count != nil || activity != nil || detailDistance != nil }
    }

    /// One sport's totals over the day, as the band reported them (the SDK's `WholeDaySportDataNotification`, one
    /// per sport): the day's ``BandDay/steps``, ``BandDay/calories`` and ``BandDay/distance`` are their sums.
    public struct SportTotal: Hashable, Sendable {
        /// The band's sport code (1 is walking).
        public var type: Int
        /// Steps taken in the sport over the day.
        public var steps: Int
        /// Kilocalories.
        public var calories: Int
        /// Metres.
        public var distance: Int
        /// The repetitions a counting sport made over the day (the SDK's `count`); `nil` when the band sent none.
        public var count: Int?

        /// A sport's totals: its code, steps, kilocalories, metres and repetitions (`nil`: none sent).
        public init(type: Int, steps: Int, calories: Int, distance: Int, count: Int? = nil) {
            self.type = type
            self.steps = steps
            self.calories = calories
            self.distance = distance
            self.count = count
        }
    }

    /// One segment of a night as the band sent it (the SDK's `SleepDataNotification`).
    public struct SleepSegment: Hashable, Sendable {
        /// The SDK's sleep type: 1 start, 2 end, 3 deep, 4 light, 5 placed (the band lying unworn), 6 wake-up.
        public var type: Int
        /// Minutes of the day, 0–1439; a segment whose end is before its start runs past midnight. The start (1) and
        /// end (2) marks start and end at the same minute.
        public var start: Int
        /// Minutes of the day, 0–1439.
        public var end: Int

        /// A segment of sleep type `type` (1–6) from minute `start` to minute `end` of the day.
        public init(type: Int, start: Int, end: Int) {
            self.type = type
            self.start = start
            self.end = end
        }

        /// The segment's length in minutes.
        public var minutes: Int { (end - start + 1440) % 1440 }

        /// The type's name: `start`, `end`, `deep`, `light`, `placed`, `wake-up`; `type N` for another.
        public var name: String {
            switch type {
            case 1: "start"
            case 2: "end"
            case 3: "deep"
            case 4: "light"
            case 5: "placed"
            case 6: "wake-up"
            default: "type \(type)"
            }
        }

        /// The segment as a person reads it: its type's name and its times (`HH:mm`) joined by `dash`, one time for
        /// a start or end mark (`start 00:40`, `light 00:40–01:20`).
        public func text(dash: String = "–") -> String {
            let from = BandDay.timeOfDay(start).prefix(5)
            return "\(name) \(from)" + (end == start ? "" : dash + BandDay.timeOfDay(end).prefix(5))
        }
    }

    public var date: CalendarDate
    public var steps: Int
    /// Kilocalories.
    public var calories: Int
    /// Metres.
    public var distance: Int
    /// The day's totals of each sport, by sport code; empty for a day stored before VitalBridge kept them (schema 8
    /// and earlier) until the band sends the day again.
    public var sportTotals: [SportTotal]
    public var sleep: Sleep
    /// The segments of the night dated this day, by start minute (a mark before the segment it opens at the same
    /// minute, and after the one it closes); empty for a day stored before VitalBridge kept them until the band
    /// sends the day again.
    public var sleepSegments: [SleepSegment]
    /// `nil` when the band had no heart-rate minute that day.
    public var heartRate: HeartRate?
    /// Oldest first.
    public var sports: [Sport]

    /// What the device said about it beyond its values.
    public var annotations: ReadingAnnotations

    public init(
        date: CalendarDate, steps: Int, calories: Int, distance: Int, sleep: Sleep, heartRate: HeartRate?,
        sports: [Sport], sportTotals: [SportTotal] = [], sleepSegments: [SleepSegment] = [],
        annotations: ReadingAnnotations = .none
    ) {
        self.annotations = annotations
        self.date = date
        self.steps = steps
        self.calories = calories
        self.distance = distance
        self.sportTotals = sportTotals
        self.sleep = sleep
        self.sleepSegments = sleepSegments
        self.heartRate = heartRate
        self.sports = sports
    }
}

/// A heart-rate recording: the mean rate and the RR intervals a Heart Rate Service sensor sent.
public struct HeartRateReading: Hashable, Sendable {
    /// Beats per minute, the mean of the rates the sensor reported.
    public var heartRate: Int
    /// The RR intervals, in milliseconds, in order.
    public var rrIntervals: [Double]
    /// When the recording started.
    public var measuredAt: Timestamp

    /// What the device said about it beyond its values.
    public var annotations: ReadingAnnotations

    public init(
        heartRate: Int, rrIntervals: [Double], measuredAt: Timestamp, annotations: ReadingAnnotations = .none
    ) {
        self.annotations = annotations
        self.heartRate = heartRate
        self.rrIntervals = rrIntervals
        self.measuredAt = measuredAt
    }
}

/// A reading or a daily summary of any kind: what a device measured, as the hub stores, delivers and exports it.
public enum Reading: Hashable, Sendable {
    case bloodPressure(BloodPressureReading)
    case glucose(GlucoseReading)
    case weight(WeightReading)
    case oximetry(OximetryReading)
    case temperature(TemperatureReading)
    case activity(ActivityDay)
    case band(BandDay)
    case heartRate(HeartRateReading)

    /// The category of the reading.
    public var category: VitalCategory { kind.category }

    /// When the reading was taken; the start of the day (UTC) for an activity or band day. Results are ordered by it.
    public var measuredAt: Timestamp { visit(MeasuredAt()) }

    private struct MeasuredAt: PayloadVisitor {
        func visit<Payload: KindReading>(_ payload: Payload) -> Timestamp { payload.measuredAt }
    }
}

extension BandDay {
    /// `minute` of a day as `HH:mm:00`.
    public static func timeOfDay(_ minute: Int) -> String {
        func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(twoDigits(minute / 60)):\(twoDigits(minute % 60)):00"
    }
}
