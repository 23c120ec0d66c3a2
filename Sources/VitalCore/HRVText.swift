/// An interval a person gave that is not one: where it is (`--rr item 3`, `night.txt line 12`) and what it says.
public struct IntervalError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Where the interval is and what it says.
    public var description: String
}

extension HRV {
    /// The intervals of `text`, items separated by commas (`812,790,805`), each a positive number of milliseconds;
    /// `place` names an item in the error (`--rr`).
    public static func intervals(commaSeparated text: String, place: String) throws(IntervalError) -> [Double] {
        var intervals: [Double] = []
        for (index, item) in text.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
            intervals.append(try interval(item, "\(place) item \(index + 1)"))
        }
        return intervals
    }

    /// The intervals of `text`, one a line (`\n` or `\r\n`; blank lines skipped), each a positive number of milliseconds; `file`
    /// names a line in the error.
    public static func intervals(lines text: String, file: String) throws(IntervalError) -> [Double] {
        var intervals: [Double] = []
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let item = line.trimmingWhitespace
            guard !item.isEmpty else { continue }
            intervals.append(try interval(item, "\(file) line \(index + 1)"))
        }
        return intervals
    }

    private static func interval(_ text: Substring, _ place: String) throws(IntervalError) -> Double {
        guard let value = Double(text.trimmingWhitespace), value.isFinite, value > 0 else {
            throw IntervalError(description: "\(place) ('\(text)') is not an interval in milliseconds")
        }
        return value
    }
}

extension HRVFigures {
    /// The figures as one line of JSON, each rounded to 0.001 (`null` where the series is too short), with the
    /// counts of intervals accepted and rejected: what `vitalbridge hrv` prints.
    public var jsonLine: String {
        func figure(_ value: Double?) -> JSON { value.map { .number(($0 * 1_000).rounded() / 1_000) } ?? .null }
        let members: [(String, JSON)] = [
            ("rmssd", figure(rmssd)), ("sdnn", figure(sdnn)), ("power", figure(power)),
            ("stress_index", figure(stressIndex?.value)),
            ("accepted", .number(Double(accepted))), ("rejected", .number(Double(rejected))),
        ]
        // the members one space apart, as the command has always printed them
        let texts = members.map { key, value in
            "\"\(key)\": " + String(decoding: value.serialized(pretty: false), as: UTF8.self)
        }
        return "{" + texts.joined(separator: ", ") + "}"
    }
}

extension Substring {
    /// Without the spaces, tabs and line ends around it.
    fileprivate var trimmingWhitespace: Substring {
        let space: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        guard let first = firstIndex(where: { !space($0) }), let last = lastIndex(where: { !space($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
