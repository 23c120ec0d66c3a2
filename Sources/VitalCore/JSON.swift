/// A JSON value (RFC 8259), read strictly and written compact or indented: VitalBridge's one JSON reader and writer,
/// used for callback results, the simulator's fleet file and device states, and the command line's output.
///
/// VitalBridge reads and writes JSON itself rather than through `Codable` or `JSONSerialization`: `vitalbridge open`
/// reads a fleet and a device state on every request, and `JSONDecoder`'s first use in a process costs more than the
/// request. Reading is strict: no trailing commas, comments or repeated keys, numbers as RFC 8259 writes them,
/// UTF-8 only, at most 64 levels deep.
public enum JSON: Sendable {
    case null
    case bool(Bool)
    /// A number, as its literal text, so that 64-bit seeds keep every digit.
    case number(String)
    case string(String)
    case array([JSON])
    /// Members in document order; keys are unique.
    case object([(key: String, value: JSON)])

    /// The kind of value, for error messages.
    public var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    // MARK: Writing

    /// A whole number, every digit kept.
    @inlinable
    public static func number(_ value: some BinaryInteger) -> JSON { .number(String(value)) }

    /// A double, written as an integer when it is one, else in Swift's shortest exact form. JSON has no NaN or
    /// infinity: such a value is `null`, which a reader of the field refuses as the wrong kind of value rather than
    /// reading a text no JSON reader accepts.
    public static func number(_ value: Double) -> JSON {
        guard value.isFinite else { return .null }
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 { return .number(String(Int64(value))) }
        return .number("\(value)")
    }

    /// The document: compact, or indented by two spaces a level, one member or element a line, with `": "` between
    /// key and value and a final new line.
    public func serialized(pretty: Bool) -> [UInt8] {
        var output: [UInt8] = []
        write(to: &output, pretty: pretty, indent: 0)
        if pretty { output.append(UInt8(ascii: "\n")) }
        return output
    }

    private func write(to output: inout [UInt8], pretty: Bool, indent: Int) {
        func newline(_ level: Int) {
            guard pretty else { return }
            output.append(UInt8(ascii: "\n"))
            output += repeatElement(UInt8(ascii: " "), count: 2 * level)
        }
        switch self {
        case .null: output += Array("null".utf8)
        case .bool(let value): output += Array((value ? "true" : "false").utf8)
        case .number(let text): output += Array(text.utf8)
        case .string(let text): JSON.appendString(text, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                newline(indent + 1)
                element.write(to: &output, pretty: pretty, indent: indent + 1)
            }
            if !elements.isEmpty { newline(indent) }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                newline(indent + 1)
                JSON.appendString(member.key, to: &output)
                output += Array((pretty ? ": " : ":").utf8)
                member.value.write(to: &output, pretty: pretty, indent: indent + 1)
            }
            if !members.isEmpty { newline(indent) }
            output.append(UInt8(ascii: "}"))
        }
    }

    // MARK: Reading

    /// Why a document is not JSON, with the byte offset.
    public struct SyntaxError: Error, Sendable {
        /// What is wrong, worded to follow "the document …" (`has a trailing comma`).
        public var message: String
        /// The byte at fault.
        public var offset: Int
    }

    /// The value of the document `bytes`.
    public static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> JSON {
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw SyntaxError(message: "is not UTF-8", offset: 0)
        }
        var parser = Parser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.failure("has more after the value") }
        return value
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0
        static let maximumDepth = 64

        func failure(_ message: String) -> SyntaxError { SyntaxError(message: message, offset: index) }

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
        }

        mutating func expect(_ literal: String, _ value: JSON) throws(SyntaxError) -> JSON {
            for byte in literal.utf8 {
                guard current == byte else { throw failure("has an unknown word") }
                index += 1
            }
            return value
        }

        mutating func value(depth: Int) throws(SyntaxError) -> JSON {
            guard depth < Self.maximumDepth else { throw failure("nests deeper than \(Self.maximumDepth) levels") }
            switch current {
            case UInt8(ascii: "{")?: return try object(depth: depth)
            case UInt8(ascii: "[")?: return try array(depth: depth)
            case UInt8(ascii: "\"")?: return .string(try string())
            case UInt8(ascii: "t")?: return try expect("true", .bool(true))
            case UInt8(ascii: "f")?: return try expect("false", .bool(false))
            case UInt8(ascii: "n")?: return try expect("null", .null)
            case nil: throw failure("ends where a value is expected")
            default: return .number(try number())
            }
        }

        mutating func object(depth: Int) throws(SyntaxError) -> JSON {
            index += 1
            var members: [(key: String, value: JSON)] = []
            skipWhitespace()
            if current == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard current == UInt8(ascii: "\"") else { throw failure("has an object key that is not a string") }
                let keyOffset = index
                let key = try string()
                guard !members.contains(where: { $0.key == key }) else {
                    throw SyntaxError(message: "repeats the key \"\(key)\"", offset: keyOffset)
                }
                skipWhitespace()
                guard current == UInt8(ascii: ":") else { throw failure("misses a : after an object key") }
                index += 1
                skipWhitespace()
                members.append((key, try value(depth: depth + 1)))
                skipWhitespace()
                switch current {
                case UInt8(ascii: ",")?: index += 1
                case UInt8(ascii: "}")?:
                    index += 1
                    return .object(members)
                default: throw failure("misses a , or } in an object")
                }
            }
        }

        mutating func array(depth: Int) throws(SyntaxError) -> JSON {
            index += 1
            var elements: [JSON] = []
            skipWhitespace()
            if current == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                skipWhitespace()
                elements.append(try value(depth: depth + 1))
                skipWhitespace()
                switch current {
                case UInt8(ascii: ",")?: index += 1
                case UInt8(ascii: "]")?:
                    index += 1
                    return .array(elements)
                default: throw failure("misses a , or ] in an array")
                }
            }
        }

        mutating func string() throws(SyntaxError) -> String {
            index += 1
            var utf8: [UInt8] = []
            while let byte = current {
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return String(decoding: utf8, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    index += 1
                    let escaped: UInt8
                    switch current {
                    case UInt8(ascii: "\"")?, UInt8(ascii: "\\")?, UInt8(ascii: "/")?: escaped = current!
                    case UInt8(ascii: "b")?: escaped = 0x08
                    case UInt8(ascii: "f")?: escaped = 0x0C
                    case UInt8(ascii: "n")?: escaped = 0x0A
                    case UInt8(ascii: "r")?: escaped = 0x0D
                    case UInt8(ascii: "t")?: escaped = 0x09
                    case UInt8(ascii: "u")?:
                        index += 1
                        utf8 += Array(String(try unicodeEscape()).utf8)
                        continue
                    default: throw failure("has an unknown escape in a string")
                    }
                    utf8.append(escaped)
                    index += 1
                case 0..<0x20: throw failure("has a control character in a string (escape it)")
                default:
                    utf8.append(byte)
                    index += 1
                }
            }
            throw failure("has a string that does not end")
        }

        /// The scalar of `XXXX` (after `\u`), with the low half of a surrogate pair when it follows.
        mutating func unicodeEscape() throws(SyntaxError) -> Unicode.Scalar {
            func hex4() throws(SyntaxError) -> UInt32 {
                // four hexadecimal digits, no sign (`\u+041` and `\u-000` are not escapes)
                guard index + 4 <= bytes.count, bytes[index..<(index + 4)].allSatisfy({ hexDigitValue($0) != nil }),
                    let value = UInt32(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16)
                else { throw failure("has a \\u escape without 4 hexadecimal digits") }
                index += 4
                return value
            }
            let high = try hex4()
            if (0xD800..<0xDC00).contains(high) {
                guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u")
                else { throw failure("has half of a surrogate pair") }
                index += 2
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else { throw failure("has half of a surrogate pair") }
                return Unicode.Scalar(0x10000 + (high - 0xD800) << 10 + (low - 0xDC00))!
            }
            guard let scalar = Unicode.Scalar(high) else { throw failure("has half of a surrogate pair") }
            return scalar
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
        mutating func number() throws(SyntaxError) -> String {
            let start = index
            func digits() throws(SyntaxError) {
                guard let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else {
                    throw failure(index == start ? "has an unknown word" : "has a malformed number")
                }
                while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
            }
            if current == UInt8(ascii: "-") { index += 1 }
            if current == UInt8(ascii: "0") {
                index += 1
                if let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                    throw failure("has a number with a leading zero")
                }
            } else {
                try digits()
            }
            if current == UInt8(ascii: ".") {
                index += 1
                try digits()
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                index += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
                try digits()
            }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }
    }
}

extension JSON {
    /// Appends `string` as a JSON string: `"` and `\\` escaped, control characters as `\\u00XX`. VitalBridge's one
    /// JSON string writer, for callback results and ``JSON`` documents alike.
    public static func appendString(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(byte)
            case 0..<0x20:
                bytes.append(contentsOf: "\\u00".utf8)
                bytes.append(upperHexDigits[Int(byte >> 4)])
                bytes.append(upperHexDigits[Int(byte & 0xF)])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
