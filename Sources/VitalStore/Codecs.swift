import VitalCore

/// How a reading is kept in the `reading` table: a kind, the time, and its values as `name=value` pairs joined by
/// `;`, numbers written exactly (Swift's shortest round-tripping form), optional values left out. Equal readings
/// give equal text, which is what makes a re-sync store nothing twice.
enum ReadingCodec {
    static func encode(_ reading: LayeredReading) -> (kind: String, payload: String) {
        var fields: [String] = []
        func add(_ name: String, _ value: (some CustomStringConvertible)?) {
            if let value { fields.append("\(name)=\(value)") }
        }
        switch reading {
        case .bloodPressure(let value):
            add("sys", value.systolic)
            add("dia", value.diastolic)
            add("hr", value.heartRate)
            add("arr", value.arrhythmia.map { $0 ? 1 : 0 })
        case .glucose(let value):
            add("mgdl", value.mgPerDeciliter)
        case .weight(let value):
            add("kg", value.kilograms)
            if let composition = value.bodyComposition {
                add("fat", composition.bodyFatPercentage)
                add("bmr", composition.basalMetabolism)
                add("musclepct", composition.musclePercentage)
                add("muscle", composition.muscleMass)
                add("ffm", composition.fatFreeMass)
                add("slm", composition.softLeanMass)
                add("water", composition.bodyWaterMass)
                add("imp", composition.impedance)
            }
        case .temperature(let value):
            add("c", value.celsius)
        case .oximetry(let value):
            add("spo2", value.oxygenSaturation)
            add("hr", value.heartRate)
            add("pi", value.perfusionIndex)
        case .activity(let day):
            add("steps", day.steps)
            add("cal", day.calories)
            add("sleep", day.sleepMinutes)
            add("eff", day.sleepEfficiency)
            add("swim", day.swimMinutes)
            add("swimcal", day.swimCalories)
        case .band(let day):
            add("steps", day.steps)
            add("cal", day.calories)
            add("dist", day.distance)
            add("deep", day.sleep.deep)
            add("light", day.sleep.light)
            add("awake", day.sleep.awake)
            add("hrmin", day.heartRate?.minimum)
            add("hravg", day.heartRate?.average)
            add("hrmax", day.heartRate?.maximum)
            add("hrn", day.heartRate?.minutes)
            // type/start/end/kcal, comma-separated: `1/490/525/120,128/1080/1120/300`
            add(
                "sports",
                day.sports.isEmpty
                    ? nil
                    : day.sports.map { "\($0.type)/\($0.start)/\($0.end)/\($0.calories)" }.joined(separator: ","))
        case .heartRate(let reading):
            add("hr", reading.heartRate)
            // the RR intervals in ms, `/`-separated: `812.5/790.0390625/…`
            add("rr", reading.rrIntervals.isEmpty ? nil : reading.rrIntervals.map { "\($0)" }.joined(separator: "/"))
        }
        return (reading.kind, fields.joined(separator: ";"))
    }

    /// The reading of a row; `nil` when the kind is unknown, a required field is missing, a field is not one of the
    /// kind's, or a field present is not a number (an optional field that cannot be read makes the row unreadable,
    /// never a missing value).
    static func decode(kind: String, measuredAt: LayeredTimestamp, payload: String) -> LayeredReading? {
        // at most eleven fields: a list searched in order costs less than a dictionary, reading after reading
        var values: [(name: Substring, value: Substring)] = []
        for field in payload.split(separator: ";") {
            guard let equals = field.firstIndex(of: "=") else { return nil }
            values.append((field[..<equals], field[field.index(after: equals)...]))
        }
        var read = 0
        var malformed = false
        func value(_ name: String) -> Substring? {
            guard let value = values.first(where: { $0.name == name })?.value else { return nil }
            read += 1
            return value
        }
        func number<T: LosslessStringConvertible>(_ name: String, _ type: T.Type) -> T? {
            guard let text = value(name) else { return nil }
            guard let number = T(String(text)) else {
                malformed = true
                return nil
            }
            return number
        }
        func double(_ name: String) -> Double? { number(name, Double.self) }
        func int(_ name: String) -> Int? { number(name, Int.self) }
        func sports() -> [BandDay.Sport] {
            guard let text = value("sports") else { return [] }
            var sports: [BandDay.Sport] = []
            for item in text.split(separator: ",", omittingEmptySubsequences: false) {
                let parts = item.split(separator: "/", omittingEmptySubsequences: false)
                let numbers = parts.compactMap { Int($0) }
                guard parts.count == 4, numbers.count == 4 else {
                    malformed = true
                    return []
                }
                sports.append(.init(type: numbers[0], start: numbers[1], end: numbers[2], calories: numbers[3]))
            }
            return sports
        }
        func intervals() -> [Double] {
            guard let text = value("rr") else { return [] }
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            let numbers = parts.compactMap { Double($0) }
            guard numbers.count == parts.count, numbers.allSatisfy({ $0.isFinite && $0 > 0 }) else {
                malformed = true
                return []
            }
            return numbers
        }
        guard
            let reading = reading(
                kind: kind, measuredAt: measuredAt, double: double, int: int, sports: sports, intervals: intervals),
            !malformed, read == values.count
        else { return nil }
        return reading
    }

    private static func reading(
        kind: String, measuredAt: LayeredTimestamp, double: (String) -> Double?, int: (String) -> Int?,
        sports: () -> [BandDay.Sport], intervals: () -> [Double]
    ) -> LayeredReading? {
        switch kind {
        case "blood_pressure":
            guard let systolic = double("sys"), let diastolic = double("dia") else { return nil }
            return .bloodPressure(
                BloodPressureReading(
                    systolic: systolic, diastolic: diastolic, heartRate: int("hr"),
                    arrhythmia: int("arr").map { $0 == 1 },
                    measuredAt: measuredAt))
        case "glucose":
            return double("mgdl").map { .glucose(GlucoseReading(mgPerDeciliter: $0, measuredAt: measuredAt)) }
        case "weight":
            guard let kilograms = double("kg") else { return nil }
            // the other quantities of a body composition come only with its body fat: alone, they are left unread
            let composition = double("fat").map { fat in
                BodyComposition(
                    bodyFatPercentage: fat, basalMetabolism: int("bmr"), musclePercentage: double("musclepct"),
                    muscleMass: double("muscle"), fatFreeMass: double("ffm"), softLeanMass: double("slm"),
                    bodyWaterMass: double("water"), impedance: double("imp"))
            }
            return .weight(WeightReading(kilograms: kilograms, measuredAt: measuredAt, bodyComposition: composition))
        case "temperature":
            return double("c").map { .temperature(TemperatureReading(celsius: $0, measuredAt: measuredAt)) }
        case "oximetry":
            guard let spo2 = int("spo2"), let heartRate = int("hr") else { return nil }
            return .oximetry(
                OximetryReading(
                    oxygenSaturation: spo2, heartRate: heartRate, perfusionIndex: double("pi"), measuredAt: measuredAt))
        case "activity":
            guard let steps = int("steps"), let calories = int("cal"), let sleep = int("sleep"),
                let efficiency = int("eff")
            else { return nil }
            return .activity(
                ActivityDay(
                    date: measuredAt.day, steps: steps, calories: calories, sleepMinutes: sleep,
                    sleepEfficiency: efficiency,
                    swimMinutes: int("swim"), swimCalories: int("swimcal")))
        case "heart_rate":
            guard let heartRate = int("hr") else { return nil }
            return .heartRate(
                HeartRateReading(heartRate: heartRate, rrIntervals: intervals(), measuredAt: measuredAt))
        case "band_day":
            guard let steps = int("steps"), let calories = int("cal"), let distance = int("dist"),
                let deep = int("deep"), let light = int("light"), let awake = int("awake")
            else { return nil }
            let heartRate: BandDay.HeartRate?
            switch (int("hrmin"), int("hravg"), int("hrmax"), int("hrn")) {
            case (let minimum?, let average?, let maximum?, let minutes?):
                heartRate = .init(minimum: minimum, average: average, maximum: maximum, minutes: minutes)
            case (nil, nil, nil, nil): heartRate = nil
            default: return nil
            }
            return .band(
                BandDay(
                    date: measuredAt.day, steps: steps, calories: calories, distance: distance,
                    sleep: .init(deep: deep, light: light, awake: awake), heartRate: heartRate, sports: sports()))
        default:
            return nil
        }
    }
}

/// An activity profile as the `device` table keeps it: `userid,age,sex,height,weight,swim,unit`.
enum ProfileCodec {
    static func encode(_ profile: ActivityProfile) -> String {
        [
            Int(profile.userID), Int(profile.age), profile.sex.rawValue, Int(profile.height), Int(profile.weight),
            profile.swim.rawValue, profile.distanceUnit.rawValue,
        ].map(String.init).joined(separator: ",")
    }

    static func decode(_ text: String) -> ActivityProfile? {
        let numbers = text.split(separator: ",").compactMap { Int($0) }
        guard numbers.count == 7, let userID = Int32(exactly: numbers[0]), let age = UInt8(exactly: numbers[1]),
            let sex = UserSex(rawValue: numbers[2]), let height = UInt8(exactly: numbers[3]),
            let weight = UInt8(exactly: numbers[4]), let swim = SwimSwitch(rawValue: numbers[5]),
            let unit = VitalUnit(rawValue: numbers[6])
        else { return nil }
        return ActivityProfile(
            userID: userID, age: age, sex: sex, height: height, weight: weight, swim: swim, distanceUnit: unit)
    }
}
