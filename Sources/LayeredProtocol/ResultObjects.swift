import VitalCore

extension LayeredReading {
    /// The reading as a result object, values converted to `unit` and rounded.
    ///
    /// A `unit` that is `nil` or of another category gives the category's default unit (request validation
    /// rejects a mismatched `unit` before any result is written). Keys, in order:
    /// - blood pressure: `systolic`, `diastolic`, `heart_rate`, `arrhythmia`, `measured_at`;
    /// - glucose: `blood_glucose`, `measured_at`;
    /// - weight: `weight`, then, from a body composition scale, `body_fat`, `muscle_percentage`, `muscle_mass`,
    ///   `fat_free_mass`, `soft_lean_mass`, `body_water_mass`, `basal_metabolism`, `impedance` (those it measured),
    ///   and `measured_at`;
    ///   temperature: `temperature`, `measured_at`;
    /// - oximeter: `oxygen_saturation`, `heart_rate`, `perfusion_index`, `measured_at`;
    /// - activity: `time`, `activedata`, `sleepdata`, `swimdata`;
    /// - heart rate: `heart_rate`, `measured_at` (the RR intervals are stored, not sent);
    /// - band day: `time`, `activedata` (with `distance` in km or miles), `sleepdata` (with `deep`, `light`,
    ///   `awake`), `heartratedata` (only when the day has heart-rate minutes), `sportdata` (a list, maybe empty).
    ///
    /// Optional quantities the device did not report are left out; a value that is not finite is left out too.
    public func resultObject(unit requested: VitalUnit?) -> ResultObject {
        let unit = requested.flatMap { $0.category == category ? $0 : nil } ?? category.defaultUnit
        var fields: [ResultObject.Field] = []
        fields.reserveCapacity(5)
        func add(_ key: ResultKey, canonical value: Double) {
            if let unit, let number = unit.resultValue(canonical: value) { fields.append(.init(key, .number(number))) }
        }
        func add(_ key: ResultKey, _ integer: Int?) {
            if let integer { fields.append(.init(key, .number(FixedDecimal(integer)))) }
        }
        func add(_ key: ResultKey, tenths value: Double?) {
            if let value, let number = FixedDecimal(rounding: value, scale: 1) {
                fields.append(.init(key, .number(number)))
            }
        }
        switch self {
        case .bloodPressure(let reading):
            add(.systolic, canonical: reading.systolic)
            add(.diastolic, canonical: reading.diastolic)
            add(.heartRate, reading.heartRate)
            add(.arrhythmia, reading.arrhythmia.map { $0 ? 1 : 0 })
        case .glucose(let reading):
            add(.bloodGlucose, canonical: reading.mgPerDeciliter)
        case .weight(let reading):
            add(.weight, canonical: reading.kilograms)
            if let composition = reading.bodyComposition {
                add(.bodyFat, tenths: composition.bodyFatPercentage)
                add(.musclePercentage, tenths: composition.musclePercentage)
                for (key, mass) in [
                    (ResultKey.muscleMass, composition.muscleMass), (.fatFreeMass, composition.fatFreeMass),
                    (.softLeanMass, composition.softLeanMass), (.bodyWaterMass, composition.bodyWaterMass),
                ] {
                    if let mass { add(key, canonical: mass) }
                }
                add(.basalMetabolism, composition.basalMetabolism)
                add(.impedance, tenths: composition.impedance)
            }
        case .temperature(let reading):
            add(.temperature, canonical: reading.celsius)
        case .oximetry(let reading):
            add(.oxygenSaturation, reading.oxygenSaturation)
            add(.heartRate, reading.heartRate)
            add(.perfusionIndex, tenths: reading.perfusionIndex)
        case .activity(let day):
            fields.append(.init(.time, .string(day.date.description)))
            fields.append(
                .init(
                    .activeData,
                    .object(
                        ResultObject([
                            .init(.steps, .number(.init(day.steps))), .init(.calories, .number(.init(day.calories))),
                        ]))))
            fields.append(
                .init(
                    .sleepData,
                    .object(
                        ResultObject([
                            .init(.sleepTime, .number(.init(day.sleepMinutes))),
                            .init(.sleepEfficiency, .number(.init(day.sleepEfficiency))),
                        ]))))
            if let minutes = day.swimMinutes {
                fields.append(
                    .init(
                        .swimData,
                        .object(
                            ResultObject([
                                .init(.swimTime, .number(.init(minutes))),
                                .init(.calories, .number(.init(day.swimCalories ?? 0))),
                            ]))))
            }
            return ResultObject(fields)
        case .band(let day):
            return day.resultObject(distanceUnit: unit ?? .kilometre)
        case .heartRate(let reading):
            add(.heartRate, reading.heartRate)
        }
        fields.append(.init(.measuredAt, .string(measuredAt.description)))
        return ResultObject(fields)
    }
}

extension BandDay {
    /// The day as a callback reports it, its distance in `distanceUnit` (km or mile, two decimals).
    func resultObject(distanceUnit: VitalUnit) -> ResultObject {
        func number(_ value: Int) -> ResultValue { .number(FixedDecimal(value)) }
        func object(_ fields: [(ResultKey, ResultValue)]) -> ResultValue {
            .object(ResultObject(fields.map { ResultObject.Field($0.0, $0.1) }))
        }
        var active: [(ResultKey, ResultValue)] = [(.steps, number(steps)), (.calories, number(calories))]
        if let kilometres = distanceUnit.resultValue(canonical: Double(distance) / 1000) {
            active.append((.distance, .number(kilometres)))
        }
        var fields: [ResultObject.Field] = [
            .init(.time, .string(date.description)),
            .init(.activeData, object(active)),
            .init(
                .sleepData,
                object([
                    (.sleepTime, number(sleep.minutes)), (.sleepEfficiency, number(sleep.efficiency)),
                    (.deep, number(sleep.deep)), (.light, number(sleep.light)), (.awake, number(sleep.awake)),
                ])),
        ]
        if let heartRate {
            fields.append(
                .init(
                    .heartRateData,
                    object([
                        (.minimum, number(heartRate.minimum)), (.average, number(heartRate.average)),
                        (.maximum, number(heartRate.maximum)), (.minutes, number(heartRate.minutes)),
                    ])))
        }
        let sports = sports.map { sport in
            ResultObject([
                .init(.type, .number(FixedDecimal(sport.type))),
                .init(.start, .string(Self.timeOfDay(sport.start))),
                .init(.end, .string(Self.timeOfDay(sport.end))),
                .init(.calories, .number(FixedDecimal(sport.calories))),
            ])
        }
        fields.append(.init(.sportData, .list(sports)))
        return ResultObject(fields)
    }

    /// `minute` of a day as `HH:mm:00`.
    public static func timeOfDay(_ minute: Int) -> String {
        func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(twoDigits(minute / 60)):\(twoDigits(minute % 60)):00"
    }
}
