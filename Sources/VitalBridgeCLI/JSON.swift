/// A JSON value for the command's output: objects keep their key order, numbers are written as given.
enum JSON: Equatable {
    case object([(String, JSON)])
    case array([JSON])
    case string(String)
    /// A number already written as JSON (`18.9`, `-5`).
    case number(String)
    case bool(Bool)

    static func == (lhs: JSON, rhs: JSON) -> Bool { lhs.rendered() == rhs.rendered() }

    static func int(_ value: some BinaryInteger) -> JSON { .number(String(value)) }

    /// The value as JSON text, indented by two spaces a level when `pretty`.
    func rendered(pretty: Bool = true) -> String {
        var text = ""
        write(to: &text, indent: pretty ? 0 : nil)
        return text
    }

    private func write(to text: inout String, indent: Int?) {
        func newline(_ level: Int?) {
            guard let level else { return }
            text += "\n" + String(repeating: "  ", count: level)
        }
        switch self {
        case .object(let fields):
            guard !fields.isEmpty else {
                text += "{}"
                return
            }
            text += "{"
            for (index, (key, value)) in fields.enumerated() {
                if index > 0 { text += "," }
                newline(indent.map { $0 + 1 })
                JSON.string(key).write(to: &text, indent: nil)
                text += indent == nil ? ":" : ": "
                value.write(to: &text, indent: indent.map { $0 + 1 })
            }
            newline(indent)
            text += "}"
        case .array(let values):
            guard !values.isEmpty else {
                text += "[]"
                return
            }
            text += "["
            for (index, value) in values.enumerated() {
                if index > 0 { text += indent == nil ? "," : ", " }
                value.write(to: &text, indent: indent)
            }
            text += "]"
        case .string(let string):
            text += "\""
            for scalar in string.unicodeScalars {
                switch scalar {
                case "\"": text += "\\\""
                case "\\": text += "\\\\"
                case "\n": text += "\\n"
                case "\r": text += "\\r"
                case "\t": text += "\\t"
                case _ where scalar.value < 0x20:
                    let hex = String(scalar.value, radix: 16)
                    text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: text.unicodeScalars.append(scalar)
                }
            }
            text += "\""
        case .number(let number):
            text += number
        case .bool(let value):
            text += value ? "true" : "false"
        }
    }
}
