import VitalCore

/// How a reading is kept in the `reading` table: a kind, the time, and its stored fields as `name=value` pairs
/// joined by `;`, in the store's order (`ReadingKind.storedFields`), numbers written exactly (Swift's shortest
/// round-tripping form), flags as `1` or `0`, optional values left out. Equal readings give equal text, which is
/// what makes a re-sync store nothing twice.
enum ReadingCodec {
    static func encode(_ reading: LayeredReading) -> (kind: String, payload: String) {
        var payload = ""
        for field in reading.kind.storedFields {
            guard let name = field.name, let value = field.value(in: reading), let text = text(of: value) else {
                continue
            }
            if !payload.isEmpty { payload += ";" }
            payload += name
            payload += "="
            payload += text
        }
        return (reading.kind.rawValue, payload)
    }

    /// The stored text of `value`; `nil` for an empty list, which is left out.
    private static func text(of value: FieldValue) -> String? {
        switch value {
        case .number(let number): "\(number)"
        case .integer(let integer): "\(integer)"
        case .flag(let flag): flag ? "1" : "0"
        // type/start/end/kcal, comma-separated: `1/490/525/120,128/1080/1120/300`
        case .sports(let sports):
            sports.isEmpty
                ? nil : sports.map { "\($0.type)/\($0.start)/\($0.end)/\($0.calories)" }.joined(separator: ",")
        // the RR intervals in ms, `/`-separated: `812.5/790.0390625/…`
        case .intervals(let intervals): intervals.isEmpty ? nil : intervals.map { "\($0)" }.joined(separator: "/")
        }
    }

    /// The reading of a row; `nil` when the kind is unknown, a required field is missing, a field is not one of the
    /// kind's or is given twice, or a field's text is not a value of its type (an optional field that cannot be
    /// read makes the row unreadable, never a missing value).
    static func decode(kind name: String, measuredAt: LayeredTimestamp, payload: String) -> LayeredReading? {
        guard let kind = ReadingKind.allCases.first(where: { $0.rawValue == name }) else { return nil }
        let fields = kind.storedFields
        var values: [(field: ReadingField, value: FieldValue)] = []
        values.reserveCapacity(fields.count)
        // the fields come in the store's order: each is looked for after the one before
        var start = 0
        for pair in payload.split(separator: ";") {
            guard let equals = pair.firstIndex(of: "=") else { return nil }
            // a field name is a small string: made without allocating, compared as one
            let name = String(pair[..<equals])
            func matches(_ field: ReadingField) -> Bool { field.name == name }
            guard let index = fields[start...].firstIndex(where: matches) ?? fields.firstIndex(where: matches),
                let value = value(pair[pair.index(after: equals)...], of: fields[index].type)
            else { return nil }
            values.append((fields[index], value))
            start = index + 1
        }
        return LayeredReading(kind: kind, measuredAt: measuredAt, values: values)
    }

    /// `text` read as a value of `type`.
    private static func value(_ text: Substring, of type: ReadingField.ValueType) -> FieldValue? {
        switch type {
        case .number: Double(text).map(FieldValue.number)
        case .integer: Int(text).map(FieldValue.integer)
        // 1 is true and any other whole number false, as release 0.14.0 read it (it wrote only 1 and 0)
        case .flag: Int(text).map { .flag($0 == 1) }
        case .sports:
            sports(text).map(FieldValue.sports)
        case .intervals:
            intervals(text).map(FieldValue.intervals)
        }
    }

    private static func sports(_ text: Substring) -> [BandDay.Sport]? {
        var sports: [BandDay.Sport] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = item.split(separator: "/", omittingEmptySubsequences: false)
            let numbers = parts.compactMap { Int($0) }
            guard parts.count == 4, numbers.count == 4 else { return nil }
            sports.append(.init(type: numbers[0], start: numbers[1], end: numbers[2], calories: numbers[3]))
        }
        return sports
    }

    private static func intervals(_ text: Substring) -> [Double]? {
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
