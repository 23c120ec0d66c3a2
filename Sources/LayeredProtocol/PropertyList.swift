/// The XML property lists a whitelist is kept in: a `<dict>` whose values are read as strings, or as the name of
/// the element that is not one. Reading and writing them here costs a fraction of Foundation's first use of
/// `PropertyListSerialization`, which `vitalbridge open` would otherwise pay on every request.
///
/// The reader takes what Apple's and Foundation's writers produce and what people write by hand: an optional
/// byte-order mark, XML declaration, `DOCTYPE` and comments, processing instructions, an optional `<plist>`
/// wrapper, character and the five predefined entity references, CDATA sections, `<string/>`. Line ends in text are
/// normalised as XML 1.0 says (CR LF and a lone CR become LF; `&#13;` stays a CR). It rejects anything else with
/// the byte offset of the problem: a repeated key is the whitelist's to refuse, never silently the last one.
///
/// Kept rather than Foundation's `PropertyListDecoder`, measured again for issue 34 (2026-11-26, this 2-core machine
/// under other builds' load, swiftc -O, medians of 200 fresh processes each, the first decode in the process):
/// `PropertyListDecoder` 503 and 504 µs, this reader 149 and 157 µs, so about 0.35 ms more on every request, 2.5 %
/// of `vitalbridge open`'s 13.68 ms (Benchmarks/README.md), above the 2 % a library reader may cost. Command:
/// `bash Benchmarks/plist-readers-standalone.sh` (plist-readers.sh's programs and loop without its package, which
/// does not resolve offline). And Foundation's reader takes the last of two entries with one key without a word
/// (the whitelist is the security boundary: a repeated caller is refused), accepts raw control characters, and
/// says neither what is wrong nor where ("The data is not in the correct format").
enum XMLPropertyList {
    /// A dictionary value: a string, or another kind of element (`integer`, `array`, …) that was skipped.
    enum Value: Hashable {
        case string(String)
        case other(element: String)
    }

    /// Why a document is not a property list dictionary.
    struct Failure: Error, Hashable {
        var message: String
        var offset: Int
    }

    /// The entries of the root dictionary of `bytes`, in document order.
    static func dictionary(_ bytes: [UInt8]) throws(Failure) -> [(key: String, value: Value)] {
        var reader = Reader(bytes: bytes)
        return try reader.document()
    }

    /// `entries` as an XML property list, in the given order. Every string must be ``isWritable(_:)``.
    static func document(_ entries: [(key: String, value: String)]) -> [UInt8] {
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>

            """
        for (key, value) in entries {
            text += "\t<key>\(escaped(key))</key>\n\t<string>\(escaped(value))</string>\n"
        }
        text += "</dict>\n</plist>\n"
        return Array(text.utf8)
    }

    /// Whether XML 1.0 can hold `text`: no control character but tab, line feed and carriage return (`Char`).
    static func isWritable(_ text: String) -> Bool { text.unicodeScalars.allSatisfy(isCharacter) }

    /// XML 1.0's `Char`: tab, LF, CR, and everything from U+0020 on but the surrogates, U+FFFE and U+FFFF.
    static func isCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }

    private static func escaped(_ text: String) -> String {
        precondition(isWritable(text), "a whitelist string with a control character XML cannot hold")
        var result = ""
        for character in text.unicodeScalars {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            // a reader turns a raw CR into LF; a reference keeps it
            case "\r": result += "&#13;"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        }

        func failure(_ message: String) -> Failure { Failure(message: message, offset: index) }

        func starts(with text: String) -> Bool {
            var position = index
            for byte in text.utf8 {
                guard position < bytes.count, bytes[position] == byte else { return false }
                position += 1
            }
            return true
        }

        mutating func skipWhitespace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        /// Moves past the next `terminator`.
        mutating func skip(past terminator: String, what: String) throws(Failure) {
            while index < bytes.count {
                if starts(with: terminator) {
                    index += terminator.utf8.count
                    return
                }
                index += 1
            }
            throw failure("\(what) does not end")
        }

        /// Skips whitespace, comments, processing instructions and (in the prolog) the document type.
        mutating func skipMiscellany() throws(Failure) {
            while true {
                skipWhitespace()
                if starts(with: "<!--") {
                    try skip(past: "-->", what: "a comment")
                } else if starts(with: "<?") {
                    try skip(past: "?>", what: "a processing instruction")
                } else if starts(with: "<!DOCTYPE") {
                    try skipDocumentType()
                } else {
                    return
                }
            }
        }

        /// Skips `<!DOCTYPE …>`, with its internal subset in brackets; a `>`, `[` or `]` inside a quoted literal
        /// (`"…"` or `'…'`) or a comment is part of it, not the end.
        mutating func skipDocumentType() throws(Failure) {
            var brackets = 0
            var quote: UInt8?
            while index < bytes.count {
                let byte = bytes[index]
                if let open = quote {
                    if byte == open { quote = nil }
                } else if starts(with: "<!--") {
                    try skip(past: "-->", what: "a comment")
                    continue
                } else {
                    switch byte {
                    case UInt8(ascii: "\""), UInt8(ascii: "'"): quote = byte
                    case UInt8(ascii: "["): brackets += 1
                    case UInt8(ascii: "]"): brackets -= 1
                    case UInt8(ascii: ">") where brackets == 0:
                        index += 1
                        return
                    default: break
                    }
                }
                index += 1
            }
            throw failure("the DOCTYPE does not end")
        }

        /// A start tag at the reader: its name, and whether it closes itself (`<string/>`).
        mutating func startTag() throws(Failure) -> (name: String, empty: Bool) {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "<"), !starts(with: "</") else {
                throw failure("an element is expected")
            }
            index += 1
            let nameStart = index
            while index < bytes.count, !Self.endsName(bytes[index]) { index += 1 }
            guard index > nameStart else { throw failure("an element has no name") }
            let name = String(decoding: bytes[nameStart..<index], as: UTF8.self)
            var quote: UInt8?
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if let open = quote {
                    if byte == open { quote = nil }
                } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    quote = byte
                } else if byte == UInt8(ascii: ">") {
                    return (name, bytes[index - 2] == UInt8(ascii: "/"))
                }
            }
            throw failure("the tag <\(name)> does not end")
        }

        static func endsName(_ byte: UInt8) -> Bool {
            [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ">"), UInt8(ascii: "/")].contains(byte)
        }

        mutating func endTag(_ name: String) throws(Failure) {
            guard starts(with: "</\(name)") else { throw failure("</\(name)> is expected") }
            index += 2 + name.utf8.count
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ">") else {
                throw failure("</\(name)> is expected")
            }
            index += 1
        }

        /// Appends the text `bytes[range]` to `utf8` with its line ends normalised (CR LF and CR become LF), after
        /// checking it holds no control character XML forbids.
        func appendText(_ range: Range<Int>, to utf8: inout [UInt8]) throws(Failure) {
            var position = range.lowerBound
            while position < range.upperBound {
                let byte = bytes[position]
                position += 1
                switch byte {
                case 0x0D:
                    utf8.append(0x0A)
                    if position < range.upperBound, bytes[position] == 0x0A { position += 1 }
                case 0x09, 0x0A: utf8.append(byte)
                case 0..<0x20:
                    throw Failure(
                        message: "a control character XML does not allow (write it otherwise)", offset: position - 1)
                default: utf8.append(byte)
                }
            }
        }

        /// The text up to the end tag of `name`, with references and CDATA sections resolved, line ends
        /// normalised, and comments and processing instructions left out.
        mutating func text(until name: String) throws(Failure) -> String {
            var utf8: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "&") {
                    try reference(into: &utf8)
                } else if byte != UInt8(ascii: "<") {
                    let start = index
                    while index < bytes.count, bytes[index] != UInt8(ascii: "<"), bytes[index] != UInt8(ascii: "&") {
                        index += 1
                    }
                    try appendText(start..<index, to: &utf8)
                } else if starts(with: "<![CDATA[") {
                    index += 9
                    let start = index
                    try skip(past: "]]>", what: "a CDATA section")
                    try appendText(start..<(index - 3), to: &utf8)
                } else if starts(with: "<!--") {
                    try skip(past: "-->", what: "a comment")
                } else if starts(with: "<?") {
                    try skip(past: "?>", what: "a processing instruction")
                } else {
                    let end = index
                    try endTag(name)
                    guard let text = String(validating: utf8, as: UTF8.self) else {
                        index = end
                        throw failure("the text of <\(name)> is not UTF-8")
                    }
                    return text
                }
            }
            throw failure("<\(name)> does not end")
        }

        mutating func reference(into utf8: inout [UInt8]) throws(Failure) {
            let start = index
            guard let semicolon = bytes[index...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
                throw failure("a lone & (write &amp;)")
            }
            let name = String(decoding: bytes[(index + 1)..<semicolon], as: UTF8.self)
            index = semicolon + 1
            let scalar: Unicode.Scalar?
            switch name {
            case "lt": scalar = "<"
            case "gt": scalar = ">"
            case "amp": scalar = "&"
            case "quot": scalar = "\""
            case "apos": scalar = "'"
            default:
                // `&#` digits `;` or `&#x` hex digits `;`: digits only, no sign
                func number(_ digits: Substring, radix: UInt32) -> Unicode.Scalar? {
                    guard !digits.isEmpty,
                        digits.unicodeScalars.allSatisfy({
                            radix == 16 ? $0.properties.isASCIIHexDigit : ("0"..."9").contains($0)
                        })
                    else { return nil }
                    return UInt32(digits, radix: Int(radix)).flatMap(Unicode.Scalar.init)
                }
                if name.hasPrefix("#x") {
                    scalar = number(name.dropFirst(2), radix: 16)
                } else if name.hasPrefix("#") {
                    scalar = number(name.dropFirst(), radix: 10)
                } else {
                    scalar = nil
                }
            }
            guard let scalar, XMLPropertyList.isCharacter(scalar) else {
                index = start
                throw failure("&\(name); is not a character")
            }
            utf8 += Array(String(scalar).utf8)
        }

        /// Skips the element whose start tag was just read, with everything inside it.
        mutating func skipContent(of name: String) throws(Failure) {
            var open = [name]
            while let innermost = open.last {
                while index < bytes.count, bytes[index] != UInt8(ascii: "<") { index += 1 }
                if starts(with: "</") {
                    try endTag(innermost)
                    open.removeLast()
                } else if starts(with: "<![CDATA[") {
                    try skip(past: "]]>", what: "a CDATA section")
                } else if starts(with: "<!--") {
                    try skip(past: "-->", what: "a comment")
                } else if starts(with: "<?") {
                    try skip(past: "?>", what: "a processing instruction")
                } else if index < bytes.count {
                    let tag = try startTag()
                    if !tag.empty { open.append(tag.name) }
                } else {
                    throw failure("<\(innermost)> does not end")
                }
            }
        }

        mutating func document() throws(Failure) -> [(key: String, value: Value)] {
            try skipMiscellany()
            var root = try startTag()
            let wrapped = root.name == "plist"
            if wrapped {
                guard !root.empty else { throw failure("the plist is empty") }
                try skipMiscellany()
                root = try startTag()
            }
            guard root.name == "dict" else { throw Failure(message: "the root is not a dictionary", offset: index) }
            var entries: [(key: String, value: Value)] = []
            if !root.empty {
                while true {
                    try skipMiscellany()
                    if starts(with: "</") {
                        try endTag("dict")
                        break
                    }
                    let key = try startTag()
                    guard key.name == "key" else { throw failure("<key> is expected, not <\(key.name)>") }
                    let name = key.empty ? "" : try text(until: "key")
                    try skipMiscellany()
                    let value = try startTag()
                    if value.name == "string" {
                        entries.append((name, .string(value.empty ? "" : try text(until: "string"))))
                    } else {
                        if !value.empty { try skipContent(of: value.name) }
                        entries.append((name, .other(element: value.name)))
                    }
                }
            }
            if wrapped {
                try skipMiscellany()
                try endTag("plist")
            }
            try skipMiscellany()
            guard index == bytes.count else { throw failure("there is more after the root element") }
            return entries
        }
    }
}
