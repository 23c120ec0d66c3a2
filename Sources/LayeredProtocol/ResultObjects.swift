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
    ///
    /// Each kind's keys, their nesting and their rounding come from its fields (`ReadingKind.fields`).
    public func resultObject(unit requested: VitalUnit?) -> ResultObject {
        let unit = requested.flatMap { $0.category == category ? $0 : nil } ?? category.defaultUnit
        var fields: [ResultObject.Field] = []
        fields.reserveCapacity(6)
        if kind.isDay { fields.append(.init(.time, .string(measuredAt.day.description))) }
        for field in kind.fields {
            guard let path = field.resultPath, let value = field.value(in: self),
                let result = Self.result(value, field.resultRule, unit: unit)
            else { continue }
            let key = ResultKey(rawValue: path[0])
            guard path.count == 2 else {
                fields.append(.init(key, result))
                continue
            }
            let nested = ResultObject.Field(ResultKey(rawValue: path[1]), result)
            if let last = fields.indices.last, fields[last].key == key, case .object(var object) = fields[last].value {
                object.fields.append(nested)
                fields[last] = .init(key, .object(object))
            } else {
                fields.append(.init(key, .object(ResultObject([nested]))))
            }
        }
        if !kind.isDay { fields.append(.init(.measuredAt, .string(measuredAt.description))) }
        return ResultObject(fields)
    }

    /// `value` as `rule` writes it in a result, quantities in `unit`; `nil` when it cannot be written (not finite).
    private static func result(_ value: FieldValue, _ rule: ReadingField.ResultRule, unit: VitalUnit?) -> ResultValue? {
        switch (rule, value) {
        case (.converted, .number(let quantity)): unit?.resultValue(canonical: quantity).map(ResultValue.number)
        case (.tenths, .number(let quantity)): FixedDecimal(rounding: quantity, scale: 1).map(ResultValue.number)
        case (.whole, .integer(let integer)): .number(FixedDecimal(integer))
        case (.flag, .flag(let flag)): .number(FixedDecimal(flag ? 1 : 0))
        case (.distance, .integer(let metres)):
            (unit ?? .kilometre).resultValue(canonical: Double(metres) / 1000).map(ResultValue.number)
        case (.sports, .sports(let sports)):
            .list(
                sports.map { sport in
                    ResultObject([
                        .init(.type, .number(FixedDecimal(sport.type))),
                        .init(.start, .string(BandDay.timeOfDay(sport.start))),
                        .init(.end, .string(BandDay.timeOfDay(sport.end))),
                        .init(.calories, .number(FixedDecimal(sport.calories))),
                    ])
                })
        default: nil
        }
    }
}
