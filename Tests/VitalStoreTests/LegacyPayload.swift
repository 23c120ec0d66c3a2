import VitalCore

@testable import VitalStore

/// How release 0.14.0 (schemas 1 to 5) kept a reading's values: its stored fields as `name=value` pairs joined by
/// `;`, numbers written exactly, flags as `1` or `0`, lists as ``ReadingColumns`` writes them. The oracle of the migration to
/// typed columns (`TypedColumnsMigration`, frozen): the application's own kinds and fields read it as release
/// 0.14.0 did.
enum LegacyPayload {
    /// The reading of a 0.14.0 row; `nil` when the kind is unknown, a required field is missing, a field is not one
    /// of the kind's or is given twice, or a field's text is not a value of its type (an optional field that cannot
    /// be read makes the row unreadable, never a missing value).
    static func decode(kind name: String, measuredAt: Timestamp, payload: String) -> Reading? {
        guard let kind = ReadingKind(rawValue: name) else { return nil }
        let fields = kind.storedFields
        var values: [(field: ReadingField, value: FieldValue)] = []
        for pair in payload.split(separator: ";") {
            guard let equals = pair.firstIndex(of: "="),
                let field = fields.first(where: { $0.name == String(pair[..<equals]) }),
                let value = value(pair[pair.index(after: equals)...], of: field.type)
            else { return nil }
            values.append((field, value))
        }
        return Reading(kind: kind, measuredAt: measuredAt, values: values)
    }

    /// `text` read as a value of `type`.
    private static func value(_ text: Substring, of type: ReadingField.ValueType) -> FieldValue? {
        switch type {
        case .number: Double(text).map(FieldValue.number)
        case .integer: Int(text).map(FieldValue.integer)
        // 1 is true and any other whole number false, as release 0.14.0 read it (it wrote only 1 and 0)
        case .flag: Int(text).map { .flag($0 == 1) }
        case .sports: ReadingColumns.sports(text).map(FieldValue.sports)
        case .intervals: ReadingColumns.intervals(text).map(FieldValue.intervals)
        // release 0.14.0 had none of these lists
        case .sportTotals, .sleepSegments, .samples: nil
        }
    }
}
