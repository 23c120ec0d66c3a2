/// A plain text table, as the command line prints lists: a header, a rule of dashes, then the rows, each column
/// padded to its widest cell (counted in characters) and two spaces between columns, each line without trailing
/// spaces.
///
/// ```swift
/// TextTable(["MAC", "model"], [["004D3208D2F4", "BP5"]]).description
/// // MAC           model
/// // ------------  -----
/// // 004D3208D2F4  BP5
/// ```
public struct TextTable: CustomStringConvertible, Sendable {
    /// The column titles.
    public var header: [String]
    /// The rows, each with one cell a column (missing cells are empty).
    public var rows: [[String]]

    /// The table of `rows` under the titles `header`.
    public init(_ header: [String], _ rows: [[String]]) {
        self.header = header
        self.rows = rows
    }

    /// The rows alone, without the header and its rule: a table whose columns have no titles.
    public var body: String {
        lines.dropFirst(2).joined(separator: "\n")
    }

    public var description: String {
        lines.joined(separator: "\n")
    }

    private var lines: [String] {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { cell($0, column).count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            var text = ""
            for (column, width) in widths.enumerated() {
                let value = cell(cells, column)
                text += value
                if column < widths.count - 1 { text += String(repeating: " ", count: width - value.count + 2) }
            }
            while text.last == " " { text.removeLast() }
            return text
        }
        return [line(header), line(widths.map { String(repeating: "-", count: $0) })] + rows.map(line)
    }

    private func cell(_ cells: [String], _ column: Int) -> String {
        column < cells.count ? cells[column] : ""
    }
}

/// The Levenshtein distance between `a` and `b`: the fewest insertions, deletions and substitutions of characters
/// that turn one into the other (`editDistance("recrods", "records") == 2`).
public func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    var previous = Array(0...b.count)
    for (i, left) in a.enumerated() {
        var current = [i + 1] + Array(repeating: 0, count: b.count)
        for (j, right) in b.enumerated() {
            current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (left == right ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}
