internal import GRDB

/// Migration 6's reading of release 0.14.0's `reading.payload`, frozen: it defines the 0.14.0 kinds and fields it
/// converts and every rule it applies itself, and uses no type of the application, whose kinds and fields may
/// change after it (GRDB's guide: a migration must not depend on application code).
///
/// A 0.14.0 payload is the reading's stored fields as `name=value` pairs joined by `;` (empty pairs skipped),
/// numbers written exactly, flags as `1` or `0`, a band day's sports as `type/start/end/kcal` items joined by `,`
/// (9 members when it carried steps and the rest, an unknown one empty), RR intervals joined by `/`. A payload is
/// converted when, as release 0.14.0 read it, it makes a reading: its kind is known; each pair is a field of the
/// kind, once, whose text is a value of the field's type; the kind's required fields are all there; a group's
/// required fields are there whenever one of its fields is (a body composition's fat, the four figures of a band
/// day's heart-rate minutes); RR intervals are finite and positive. Otherwise the row keeps its text, unconverted.
enum TypedColumnsMigration {
    /// A value's type in 0.14.0.
    enum ValueType {
        case number, integer, flag, sports, intervals
    }

    /// Whether a reading has the field.
    enum Presence {
        case required, optional
        /// With the other fields of `group`; `required` ones are there whenever any field of the group is.
        case grouped(String, required: Bool)
    }

    /// The fields of each 0.14.0 kind, by their names and columns, in the kind's order.
    static let layouts: [String: [(name: String, type: ValueType, presence: Presence)]] = [
        "blood_pressure": [
            ("sys", .number, .required), ("dia", .number, .required), ("hr", .integer, .optional),
            ("arr", .flag, .optional),
        ],
        "glucose": [("mgdl", .number, .required)],
        "weight": [
            ("kg", .number, .required), ("fat", .number, .grouped("composition", required: true)),
            ("musclepct", .number, .grouped("composition", required: false)),
            ("muscle", .number, .grouped("composition", required: false)),
            ("ffm", .number, .grouped("composition", required: false)),
            ("slm", .number, .grouped("composition", required: false)),
            ("water", .number, .grouped("composition", required: false)),
            ("bmr", .integer, .grouped("composition", required: false)),
            ("imp", .number, .grouped("composition", required: false)),
        ],
        "oximetry": [("spo2", .integer, .required), ("hr", .integer, .required), ("pi", .number, .optional)],
        "temperature": [("c", .number, .required)],
        "activity": [
            ("steps", .integer, .required), ("cal", .integer, .required), ("sleep", .integer, .required),
            ("eff", .integer, .required), ("swim", .integer, .optional), ("swimcal", .integer, .optional),
        ],
        "band_day": [
            ("steps", .integer, .required), ("cal", .integer, .required), ("dist", .integer, .required),
            ("deep", .integer, .required), ("light", .integer, .required), ("awake", .integer, .required),
            ("hrmin", .integer, .grouped("heartRate", required: true)),
            ("hravg", .integer, .grouped("heartRate", required: true)),
            ("hrmax", .integer, .grouped("heartRate", required: true)),
            ("hrn", .integer, .grouped("heartRate", required: true)), ("sports", .sports, .optional),
        ],
        "heart_rate": [("hr", .integer, .required), ("rr", .intervals, .optional)],
    ]

    /// The typed columns of the 0.14.0 row of kind `kind` whose values are `payload`, in the kind's order (a list
    /// that is empty has no column); `nil` when release 0.14.0 could not read it.
    static func columns(kind: String, payload: String) -> [(name: String, value: DatabaseValue)]? {
        guard let fields = layouts[kind] else { return nil }
        var given: [String: Substring] = [:]
        for pair in payload.split(separator: ";") {
            guard let equals = pair.firstIndex(of: "=") else { return nil }
            let name = String(pair[..<equals])
            guard fields.contains(where: { $0.name == name }), given[name] == nil else { return nil }
            given[name] = pair[pair.index(after: equals)...]
        }
        var columns: [(name: String, value: DatabaseValue)] = []
        var openGroups: Set<String> = []
        for field in fields {
            guard let text = given[field.name] else { continue }
            guard let value = value(text, of: field.type) else { return nil }
            if case .grouped(let group, _) = field.presence { openGroups.insert(group) }
            if let value { columns.append((field.name, value)) }
        }
        for field in fields where given[field.name] == nil {
            switch field.presence {
            case .required: return nil
            case .grouped(let group, required: true) where openGroups.contains(group): return nil
            default: break
            }
        }
        return columns
    }

    /// The column value of `text` read as `type`: `.some(nil)` for an empty list, `nil` when it is not a value.
    private static func value(_ text: Substring, of type: ValueType) -> DatabaseValue?? {
        switch type {
        case .number: return Double(text).map { .some($0.databaseValue) }
        case .integer: return Int(text).map { .some($0.databaseValue) }
        // 1 is true and any other whole number false, as release 0.14.0 read it (it wrote only 1 and 0)
        case .flag: return Int(text).map { .some(($0 == 1 ? 1 : 0).databaseValue) }
        case .sports:
            guard let sports = sports(text) else { return nil }
            return .some(sports.isEmpty ? nil : sports.joined(separator: ",").databaseValue)
        case .intervals:
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            let intervals = parts.compactMap { Double($0) }
            guard intervals.count == parts.count, intervals.allSatisfy({ $0.isFinite && $0 > 0 }) else { return nil }
            return .some(intervals.isEmpty ? nil : intervals.map { "\($0)" }.joined(separator: "/").databaseValue)
        }
    }

    /// A band day's sports rewritten as the typed column keeps them: each item's numbers as written by a whole
    /// number's text, a 9-member item whose last five are all empty as its first four; `nil` when an item is not
    /// 4 whole numbers, or 4 and 5 that are whole numbers or empty.
    private static func sports(_ text: Substring) -> [String]? {
        var items: [String] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = item.split(separator: "/", omittingEmptySubsequences: false)
            let numbers = parts.prefix(4).compactMap { Int($0) }
            guard parts.count == 4 || parts.count == 9, numbers.count == 4 else { return nil }
            var members = numbers.map(String.init)
            if parts.count == 9 {
                var more: [String] = []
                for part in parts[4...] {
                    guard part.isEmpty || Int(part) != nil else { return nil }
                    more.append(Int(part).map(String.init) ?? "")
                }
                if more.contains(where: { !$0.isEmpty }) { members += more }
            }
            items.append(members.joined(separator: "/"))
        }
        return items
    }
}
