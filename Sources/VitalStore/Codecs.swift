internal import GRDB
import VitalCore

/// How a reading is kept in the `reading` table (schema 6 on): its kind's name (`blood_pressure`), its time, and
/// one typed column for each of its kind's stored fields, named by the field (``ReadingField/name``): a number is
/// `REAL`, a whole number `INTEGER`, a flag `INTEGER` 1 or 0, a band day's sports, sport totals and sleep segments
/// (schema 9 on), a recording's RR intervals and an oximetry's pulse wave (schema 10 on) `TEXT`; a value a reading
/// does not have is `NULL`. A column of one name serves every kind that has the field
/// (`hr`: a blood pressure's, an oximetry's and a recording's heart rate).
///
/// Adding a stored field to a kind adds its column: a new migration makes it, and a test checks that the table has
/// a column of the right type for every stored field.
enum ReadingColumns {
    /// Every value column, in the table's order: each stored field's name once, kind by kind.
    static let names: [String] = {
        var names: [String] = []
        for field in ReadingKind.allCases.flatMap(\.storedFields) where !names.contains(field.name!) {
            names.append(field.name!)
        }
        return names
    }()

    /// The columns of a reading's annotations (schema 7 on), `NULL` when it has none: its statuses as a whole
    /// number of ``ReadingStatus`` bits, its unavailable fields as text (`sys=NaN,hr=+INF`), its user index, and the
    /// time the device's clock gave it when that is not its time.
    static let annotationNames = ["status", "unavailable", "user_index", "device_time"]

    /// The columns a reading is read from, in the order ``reading(kind:measuredAt:row:from:)`` reads them (by
    /// position: faster than by name, row after row): the identifier, device, kind and time, the annotations, then
    /// the values.
    static let selected = (["id", "device_mac", "kind", "measured_at"] + annotationNames + names).map {
        "reading.\($0)"
    }
    .joined(separator: ", ")

    /// How many columns ``selected`` names: the position of a column selected after them.
    static let selectedCount = 4 + annotationNames.count + names.count

    /// Each kind by its name, with its stored fields and the position of each one's column among ``names``.
    private static let layouts: [String: (kind: ReadingKind, fields: [(field: ReadingField, column: Int)])] =
        Dictionary(
            uniqueKeysWithValues: ReadingKind.allCases.map { kind in
                (kind.rawValue, (kind, kind.storedFields.map { field in (field, names.firstIndex(of: field.name!)!) }))
            })

    /// `INSERT` of a reading of each kind (by its ordinal): device, kind, time, then its stored fields' columns.
    static let inserts: [String] = ReadingKind.allCases.map { kind in
        let columns = ["device_mac", "kind", "measured_at"] + annotationNames + kind.storedFields.map { $0.name! }
        let marks = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        return "INSERT INTO reading (\(columns.joined(separator: ", "))) VALUES (\(marks))"
    }

    /// `UPDATE` of a stored reading of each kind (by its ordinal) to new values, its revision one more: the
    /// annotations' and the stored fields' columns, then the identifier.
    static let revisions: [String] = ReadingKind.allCases.map { kind in
        let columns = (annotationNames + kind.storedFields.map { $0.name! }).map { "\($0) = ?" }
            .joined(separator: ", ")
        return "UPDATE reading SET \(columns), revision = revision + 1 WHERE id = ?"
    }

    /// The values of `reading`'s stored fields, in its kind's order (`nil`: the reading has none): what ``inserts``
    /// and ``revisions`` take after the device, kind and time. Existentials, not `DatabaseValue`s: GRDB turns those
    /// into arguments without its generic initializer's key path, which costs more than the insert's own work.
    static func values(of reading: Reading) -> [(any DatabaseValueConvertible)?] {
        reading.kind.storedFields.map { field in
            switch field.value(in: reading) {
            case nil: nil
            case .number(let number)?: number
            case .integer(let integer)?: integer
            case .flag(let flag)?: flag ? 1 : 0
            case .sports(let sports)?: sports.isEmpty ? nil : text(of: sports)
            case .intervals(let intervals)?: intervals.isEmpty ? nil : text(of: intervals)
            case .sportTotals(let totals)?: totals.isEmpty ? nil : text(of: totals)
            case .sleepSegments(let segments)?: segments.isEmpty ? nil : text(of: segments)
            case .samples(let samples)?: samples.isEmpty ? nil : text(of: samples)
            }
        }
    }

    /// The values of `reading`'s annotations' columns (``annotationNames``), all `nil` for a reading without any.
    static func annotationValues(of reading: Reading) -> [(any DatabaseValueConvertible)?] {
        let annotations = reading.annotations
        guard !annotations.isEmpty else { return [nil, nil, nil, nil] }
        let unavailable = reading.unavailableFields.map { "\($0.field.name!)=\($0.value)" }.joined(separator: ",")
        return [
            annotations.status.isEmpty ? nil : Int64(bitPattern: annotations.status.rawValue),
            unavailable.isEmpty ? nil : unavailable, annotations.userIndex.map { Int($0) },
            annotations.deviceTime?.secondsSince1970,
        ]
    }

    /// The reading of the kind named `kind` at `measuredAt` whose annotations are in `row`'s columns from position
    /// `start` and values after them (in ``names``' order); `nil` when the kind is unknown, a required value is
    /// missing, a value is not of its column's type (a text in a `REAL` column, a flag other than 1 or 0), a list
    /// or an annotation cannot be read.
    static func reading(kind: String, measuredAt: Timestamp, row: Row, from start: Int) -> Reading? {
        guard let (kind, layout) = layouts[kind] else { return nil }
        var annotations = ReadingAnnotations.none
        if !(row.hasNull(atIndex: start) && row.hasNull(atIndex: start + 1) && row.hasNull(atIndex: start + 2)
            && row.hasNull(atIndex: start + 3))
        {
            guard let read = Self.annotations(of: kind, row: row, from: start) else { return nil }
            annotations = read
        }
        let valuesStart = start + annotationNames.count
        var values: [(field: ReadingField, value: FieldValue)] = []
        values.reserveCapacity(layout.count)
        for (field, column) in layout {
            let stored: DatabaseValue = row[valuesStart + column]
            if stored.isNull { continue }
            guard let value = value(stored.storage, of: field.type) else { return nil }
            values.append((field, value))
        }
        return Reading(kind: kind, measuredAt: measuredAt, values: values, annotations: annotations)
    }

    /// The annotations in `row`'s columns from `start` (``annotationNames``' order); `nil` when one cannot be read:
    /// a status bit no status has, an unavailable field the kind lacks or a special value without a name, a user
    /// index outside 0–255.
    private static func annotations(of kind: ReadingKind, row: Row, from start: Int) -> ReadingAnnotations? {
        var annotations = ReadingAnnotations.none
        switch row[start] as DatabaseValue {
        case let stored where stored.isNull: break
        case let stored:
            guard case .int64(let bits) = stored.storage,
                UInt64(bitPattern: bits) >> UInt64(ReadingStatus.names.count) == 0
            else { return nil }
            annotations.status = ReadingStatus(rawValue: UInt64(bitPattern: bits))
        }
        if let text = row[start + 1] as String? {
            let fields = kind.fields
            for item in text.split(separator: ",") {
                let pair = item.split(separator: "=", omittingEmptySubsequences: false)
                guard pair.count == 2, let position = fields.firstIndex(where: { $0.name == String(pair[0]) }),
                    fields[position].isStored, let value = SpecialValue(name: pair[1])
                else { return nil }
                annotations.unavailable[position] = value
            }
        }
        if let index = row[start + 2] as Int64? {
            guard let index = UInt8(exactly: index) else { return nil }
            annotations.userIndex = index
        }
        if let time = row[start + 3] as Int64? { annotations.deviceTime = Timestamp(secondsSince1970: time) }
        return annotations
    }

    private static func value(_ stored: DatabaseValue.Storage, of type: ReadingField.ValueType) -> FieldValue? {
        switch (type, stored) {
        case (.number, .double(let number)): .number(number)
        case (.number, .int64(let integer)): .number(Double(integer))
        case (.integer, .int64(let integer)): Int(exactly: integer).map(FieldValue.integer)
        case (.flag, .int64(let flag)) where flag == 0 || flag == 1: .flag(flag == 1)
        case (.sports, .string(let text)): sports(text[...]).map(FieldValue.sports)
        case (.intervals, .string(let text)): intervals(text[...]).map(FieldValue.intervals)
        case (.sportTotals, .string(let text)): sportTotals(text[...]).map(FieldValue.sportTotals)
        case (.sleepSegments, .string(let text)): sleepSegments(text[...]).map(FieldValue.sleepSegments)
        case (.samples, .string(let text)): samples(text[...]).map(FieldValue.samples)
        default: nil
        }
    }

    // MARK: Lists as text

    /// A band day's sports: type/start/end/kcal, comma-separated (`1/490/525/120,128/1080/1120/300`); a sport with
    /// steps, distance or a detail adds steps/metres/count/activity/detail metres, a member not known empty
    /// (`2/725/735/80/0/0/220/10/`). A sport without them is written as before they were kept, so a stored
    /// day reads the same.
    static func text(of sports: [BandDay.Sport]) -> String {
        sports.map { sport in
            let base = "\(sport.type)/\(sport.start)/\(sport.end)/\(sport.calories)"
            guard sport.steps != nil || sport.distance != nil || sport.hasDetail else { return base }
            let more = [sport.steps, sport.distance, sport.count, sport.activity, sport.detailDistance]
            return base + "/" + more.map { $0.map(String.init) ?? "" }.joined(separator: "/")
        }
        .joined(separator: ",")
    }

    /// RR intervals in ms, `/`-separated, each written exactly (`812.5/790.0390625`).
    static func text(of intervals: [Double]) -> String { intervals.map { "\($0)" }.joined(separator: "/") }

    /// A pulse wave's samples, comma-separated (`12,40,77`): the `wave` column (schema 10 on).
    static func text(of samples: [Int]) -> String { samples.map(String.init).joined(separator: ",") }

    /// The samples of a `wave` column; `nil` unless it is 1 to 255 whole numbers 0–100, comma-separated (a value
    /// the store did not write makes the row unreadable, never a shorter wave).
    static func samples(_ text: Substring) -> [Int]? {
        var samples: [Int] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let sample = Int(part), OximetryReading.waveRange.contains(sample) else { return nil }
            samples.append(sample)
        }
        return (1...OximetryReading.maximumWaveSamples).contains(samples.count) ? samples : nil
    }

    static func sports(_ text: Substring) -> [BandDay.Sport]? {
        var sports: [BandDay.Sport] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = item.split(separator: "/", omittingEmptySubsequences: false)
            let numbers = parts.prefix(4).compactMap { Int($0) }
            guard parts.count == 4 || parts.count == 9, numbers.count == 4 else { return nil }
            var sport = BandDay.Sport(type: numbers[0], start: numbers[1], end: numbers[2], calories: numbers[3])
            if parts.count == 9 {
                var more: [Int?] = []
                for part in parts[4...] {
                    guard part.isEmpty || Int(part) != nil else { return nil }
                    more.append(Int(part))
                }
                (sport.steps, sport.distance, sport.count) = (more[0], more[1], more[2])
                (sport.activity, sport.detailDistance) = (more[3], more[4])
            }
            sports.append(sport)
        }
        return sports
    }

    /// A band day's totals of each sport (schema 9 on): type/steps/kcal/metres, then /count when the band sent
    /// one, comma-separated (`1/8421/312/6120,2/0/80/0/220`).
    static func text(of totals: [BandDay.SportTotal]) -> String {
        totals.map { total in
            "\(total.type)/\(total.steps)/\(total.calories)/\(total.distance)" + (total.count.map { "/\($0)" } ?? "")
        }
        .joined(separator: ",")
    }

    static func sportTotals(_ text: Substring) -> [BandDay.SportTotal]? {
        var totals: [BandDay.SportTotal] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = item.split(separator: "/", omittingEmptySubsequences: false)
            let numbers = parts.compactMap { Int($0) }
            guard parts.count == 4 || parts.count == 5, numbers.count == parts.count else { return nil }
            totals.append(
                BandDay.SportTotal(
                    type: numbers[0], steps: numbers[1], calories: numbers[2], distance: numbers[3],
                    count: numbers.count == 5 ? numbers[4] : nil))
        }
        return totals
    }

    /// A band day's sleep segments (schema 9 on): type/start/end minutes, comma-separated, in order
    /// (`1/40/40,4/40/85,2/400/400`).
    static func text(of segments: [BandDay.SleepSegment]) -> String {
        segments.map { "\($0.type)/\($0.start)/\($0.end)" }.joined(separator: ",")
    }

    static func sleepSegments(_ text: Substring) -> [BandDay.SleepSegment]? {
        var segments: [BandDay.SleepSegment] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = item.split(separator: "/", omittingEmptySubsequences: false)
            let numbers = parts.compactMap { Int($0) }
            guard parts.count == 3, numbers.count == 3 else { return nil }
            segments.append(BandDay.SleepSegment(type: numbers[0], start: numbers[1], end: numbers[2]))
        }
        return segments
    }

    static func intervals(_ text: Substring) -> [Double]? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        let numbers = parts.compactMap { Double($0) }
        return numbers.count == parts.count ? numbers : nil
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
