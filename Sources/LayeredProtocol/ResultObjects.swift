import VitalCore

extension Reading {
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
    /// - oximeter: `oxygen_saturation`, `heart_rate`, `perfusion_index`, `measured_at` (the pulse wave is stored, not
    ///   sent: the URL budget);
    /// - activity: `time`, `activedata`, `sleepdata`, `swimdata`;
    /// - heart rate: `heart_rate`, `measured_at` (the RR intervals are stored, not sent);
    /// - band day: `time`, `activedata` (with `distance` in km or miles), `sleepdata` (with `deep`, `light`,
    ///   `awake`), `heartratedata` (only when the day has heart-rate minutes), `sportdata` (a list, maybe empty, of
    ///   `type`, `start`, `end`, `calories`, `steps` and `distance` in km or miles (unless stored before VitalBridge
    ///   kept them), and `detail` when the band sent its
    ///   `detail_data`: `count`, `activity`, `distance` in km or miles, those it sent); within `activedata`,
    ///   `sports`, the day's totals of each sport (`type`, `steps`, `calories`, `distance` in km or miles, and
    ///   `count` when the band sent one), and within `sleepdata`, `segments`, the night's segments in order
    ///   (`type` 1–6, `start` and `end` in minutes of the day): each only when the day has any.
    ///
    /// Optional quantities the device did not report are left out; a value that is not finite is left out too.
    ///
    /// What the device said beyond the values (`Reading.annotations`) follows, only when it said something,
    /// so that a reading without annotations is written exactly as before: `flags`, the names of its statuses in
    /// bit order (`["bodyMovement","irregularPulse"]`), and `unavailable`, each value the device sent a special
    /// value for by its result key (`{"systolic":"NaN"}`; a nested member by its path, `swimdata.calories`), whose
    /// own key is absent. A field that is not sent at all (RR intervals) is not named either.
    ///
    /// Each kind's keys, their nesting and their rounding come from its fields (`ReadingKind.fields`).
    public func resultObject(unit requested: VitalUnit?) -> ResultObject {
        let unit = requested.flatMap { $0.category == category ? $0 : nil } ?? category.defaultUnit
        var fields: [ResultObject.Field] = []
        fields.reserveCapacity(6)
        if kind.isDay { fields.append(.init(.time, .string(measuredAt.day.description))) }
        // a nested object (`swimdata`) is opened by its first field: without it, the object is left out whole
        var current: (key: ResultKey, isWritten: Bool)?
        for field in kind.fields {
            guard let path = field.resultPath else { continue }
            let key = ResultKey(rawValue: path[0])
            let value = field.value(in: self).flatMap { Self.result($0, field.resultRule, unit: unit) }
            guard path.count == 2 else {
                if let value { fields.append(.init(key, value)) }
                continue
            }
            let member = value.map { ResultObject.Field(ResultKey(rawValue: path[1]), $0) }
            if current?.key != key {
                current = (key, member != nil)
                if let member { fields.append(.init(key, .object(ResultObject([member])))) }
            } else if current?.isWritten == true, let member, case .object(var object) = fields[fields.count - 1].value
            {
                object.fields.append(member)
                fields[fields.count - 1] = .init(key, .object(object))
            }
        }
        if !kind.isDay { fields.append(.init(.measuredAt, .string(measuredAt.description))) }
        let annotations = self.annotations
        if !annotations.status.isEmpty { fields.append(.init(.flags, .strings(annotations.status.names))) }
        if !annotations.unavailable.isEmpty {
            let unavailable = unavailableFields.compactMap { field, value -> ResultObject.Field? in
                guard let path = field.resultPath else { return nil }
                return .init(ResultKey(rawValue: path.joined(separator: ".")), .string(value.description))
            }
            if !unavailable.isEmpty { fields.append(.init(.unavailable, .object(ResultObject(unavailable)))) }
        }
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
            .list(sports.map { sportObject($0, unit: unit) })
        case (.sportTotals, .sportTotals(let totals)):
            .list(totals.map { totalObject($0, unit: unit) })
        case (.sleepSegments, .sleepSegments(let segments)):
            .list(
                segments.map { segment in
                    ResultObject([
                        .init(.type, .number(FixedDecimal(segment.type))),
                        .init(.start, .number(FixedDecimal(segment.start))),
                        .init(.end, .number(FixedDecimal(segment.end))),
                    ])
                })
        default: nil
        }
    }

    /// A band day's totals of one sport: its type, steps, calories, distance in `unit` (km by default), and its
    /// repetitions when the band sent them.
    private static func totalObject(_ total: BandDay.SportTotal, unit: VitalUnit?) -> ResultObject {
        var fields: [ResultObject.Field] = [
            .init(.type, .number(FixedDecimal(total.type))), .init(.steps, .number(FixedDecimal(total.steps))),
            .init(.calories, .number(FixedDecimal(total.calories))),
        ]
        if let distance = (unit ?? .kilometre).resultValue(canonical: Double(total.distance) / 1000) {
            fields.append(.init(.distance, .number(distance)))
        }
        if let count = total.count { fields.append(.init(.count, .number(FixedDecimal(count)))) }
        return ResultObject(fields)
    }

    /// The result object of a day too large for a callback on its own, made smaller: its sleep segments left out,
    /// then its sport totals too, each named in `leftout` (`["sleepdata.segments","activedata.sports"]`); empty for
    /// a reading without them. Nothing else is ever left out: the sums, sleep minutes and sessions stay.
    public func smallerResultObjects(unit: VitalUnit?) -> [ResultObject] {
        var object = resultObject(unit: unit)
        var leftOut: [String] = []
        var smaller: [ResultObject] = []
        for (outer, inner) in [(ResultKey.sleepData, ResultKey.segments), (.activeData, .sports)] {
            guard let index = object.fields.firstIndex(where: { $0.key == outer }),
                case .object(var part) = object.fields[index].value, part[inner] != nil
            else { continue }
            part.fields.removeAll { $0.key == inner }
            object.fields[index] = .init(outer, .object(part))
            leftOut.append("\(outer.rawValue).\(inner.rawValue)")
            var marked = object
            marked.fields.append(.init(.leftOut, .strings(leftOut)))
            smaller.append(marked)
        }
        return smaller
    }

    /// A band day's sport: its type, times and calories, then the extension: steps, distance, and its `detail_data`
    /// when the band sent one (distances in `unit`, km by default).
    private static func sportObject(_ sport: BandDay.Sport, unit: VitalUnit?) -> ResultObject {
        func distance(_ metres: Int) -> ResultValue? {
            (unit ?? .kilometre).resultValue(canonical: Double(metres) / 1000).map(ResultValue.number)
        }
        var fields: [ResultObject.Field] = [
            .init(.type, .number(FixedDecimal(sport.type))),
            .init(.start, .string(BandDay.timeOfDay(sport.start))),
            .init(.end, .string(BandDay.timeOfDay(sport.end))),
            .init(.calories, .number(FixedDecimal(sport.calories))),
        ]
        if let steps = sport.steps { fields.append(.init(.steps, .number(FixedDecimal(steps)))) }
        if let metres = sport.distance.flatMap(distance) { fields.append(.init(.distance, metres)) }
        var detail: [ResultObject.Field] = []
        if let count = sport.count { detail.append(.init(.count, .number(FixedDecimal(count)))) }
        if let activity = sport.activity { detail.append(.init(.activity, .number(FixedDecimal(activity)))) }
        if let metres = sport.detailDistance.flatMap(distance) { detail.append(.init(.distance, metres)) }
        if sport.hasDetail { fields.append(.init(.detail, .object(ResultObject(detail)))) }
        return ResultObject(fields)
    }
}
