/// One `name=value` pair of a query, exactly as it was written.
public struct QueryParameter: Hashable, Sendable {
    /// The name as written, percent-encoding untouched.
    public var name: String
    /// The value as written, percent-encoding untouched; `nil` when the pair had no `=` (`?flag&cmd=0`).
    public var value: String?

    /// A parameter from its written (already percent-encoded) name and value.
    public init(name: String, value: String?) {
        self.name = name
        self.value = value
    }

    /// A parameter whose name and value are the percent-encoded forms of `name` and `value`.
    public init(encodingName name: String, value: String) {
        self.init(name: PercentEncoding.encode(name), value: PercentEncoding.encode(value))
    }

    /// The name decoded and lower-cased (ASCII letters only): the key parameters are matched by. `nil` if the
    /// name has a bad escape.
    public var key: String? { PercentEncoding.decode(name).map { $0.asciiLowercased() } }

    /// The value with its escapes decoded (`+` stays `+`); `nil` if there is no value or a bad escape.
    public var decodedValue: String? { value.flatMap { PercentEncoding.decode($0) } }

    /// The parameter with the ASCII letters of its name lower-cased outside `%XX` escapes: the form iOS echoes.
    var lowercasedName: QueryParameter {
        var bytes = Array(name.utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                index += 3
                continue
            }
            if bytes[index] >= UInt8(ascii: "A"), bytes[index] <= UInt8(ascii: "Z") { bytes[index] += 32 }
            index += 1
        }
        return QueryParameter(name: String(decoding: bytes, as: UTF8.self), value: value)
    }

    /// `name=value`, or `name` alone when there is no value.
    func append(to bytes: inout [UInt8]) {
        bytes.append(contentsOf: name.utf8)
        if let value {
            bytes.append(UInt8(ascii: "="))
            bytes.append(contentsOf: value.utf8)
        }
    }

    var writtenLength: Int { name.utf8.count + (value.map { $0.utf8.count + 1 } ?? 0) }
}

/// A URL split into the part before its query and its parameters, each kept as written.
///
/// This is the first, lenient step of reading a request or a callback: it checks that the URL is made of
/// printable ASCII without a fragment and within a length, and that every name decodes, but not what the
/// parameters mean (``LayeredRequest`` and ``LayeredCallback`` do that).
public struct LayeredQuery: Hashable, Sendable {
    /// Everything before the `?`: `ihealth-layer://` in a request, the callback destination in a callback.
    public var base: String
    /// The parameters in the order they were written; empty pieces (`&&`) are skipped.
    public var parameters: [QueryParameter]

    public init(base: String, parameters: [QueryParameter]) {
        self.base = base
        self.parameters = parameters
    }

    /// Splits `url`, which may be at most `maximumLength` characters long.
    ///
    /// - Throws: ``LayeredError/Code/requestTooLong`` past the length;
    ///   ``LayeredError/Code/malformedURL`` for a byte outside printable ASCII (a raw space, a control
    ///   character, non-ASCII text), a `#` (a fragment would silently cut a value short), a URL without a scheme,
    ///   or a parameter name with a bad `%` escape.
    public init(parsing url: String, maximumLength: Int) throws(LayeredError) {
        let utf8 = url.utf8
        guard utf8.count <= maximumLength else {
            throw LayeredError(
                .requestTooLong, message: "the URL has \(utf8.count) characters, more than the \(maximumLength) allowed")
        }
        var questionMark: String.UTF8View.Index?
        var offset = 0
        for index in utf8.indices {
            let byte = utf8[index]
            guard byte > 0x20, byte < 0x7F, byte != UInt8(ascii: "#") else {
                throw LayeredError(
                    .malformedURL,
                    message: byte == UInt8(ascii: "#")
                        ? "the URL has a fragment ('#' at offset \(offset)); escape '#' in values as %23"
                        : "the URL has a byte that is not printable ASCII at offset \(offset); percent-encode it")
            }
            if byte == UInt8(ascii: "?"), questionMark == nil { questionMark = index }
            offset += 1
        }
        let baseEnd = questionMark ?? utf8.endIndex
        let base = url[..<baseEnd]
        guard uriScheme(of: base) != nil else {
            throw LayeredError(.malformedURL, message: "the URL does not start with a scheme ('name:')")
        }
        self.base = String(base)
        self.parameters = []
        guard let questionMark else { return }
        var start = utf8.index(after: questionMark)
        while start < utf8.endIndex {
            let end = utf8[start...].firstIndex(of: UInt8(ascii: "&")) ?? utf8.endIndex
            if start != end {
                let piece = url[start..<end]
                let parameter: QueryParameter
                if let equals = piece.utf8.firstIndex(of: UInt8(ascii: "=")) {
                    parameter = QueryParameter(
                        name: String(piece[..<equals]), value: String(piece[piece.utf8.index(after: equals)...]))
                } else {
                    parameter = QueryParameter(name: String(piece), value: nil)
                }
                guard parameter.key != nil else {
                    throw LayeredError(
                        .malformedURL, message: "parameter \(parameters.count + 1) has a name with a bad '%' escape")
                }
                parameters.append(parameter)
            }
            start = end == utf8.endIndex ? end : utf8.index(after: end)
        }
    }

    /// The scheme of ``base``, lower-cased (`ihealth-layer`).
    public var scheme: String { uriScheme(of: base[...])!.asciiLowercased() }

    /// The first parameter whose ``QueryParameter/key`` is `key` (lower case).
    public func first(_ key: String) -> QueryParameter? { parameters.first { $0.key == key } }

    /// The URL written back: ``base``, then `?` and the parameters joined by `&` if there are any.
    public var url: String {
        var bytes: [UInt8] = Array(base.utf8)
        for (index, parameter) in parameters.enumerated() {
            bytes.append(index == 0 ? UInt8(ascii: "?") : UInt8(ascii: "&"))
            parameter.append(to: &bytes)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The scheme at the start of `text` (`letter *( letter / digit / "+" / "-" / "." )` before a `:`), or `nil`.
func uriScheme(of text: Substring) -> Substring? {
    guard let colon = text.utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
    let scheme = text[..<colon]
    guard let first = scheme.utf8.first, isASCIILetter(first),
        scheme.utf8.allSatisfy({
            isASCIILetter($0) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "+")
                || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
        })
    else { return nil }
    return scheme
}

@inline(__always)
func isASCIILetter(_ byte: UInt8) -> Bool {
    (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
}

extension StringProtocol {
    /// The text with ASCII upper-case letters lower-cased and everything else unchanged.
    func asciiLowercased() -> String {
        guard utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else { return String(self) }
        return String(decoding: utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 + 32 : $0 }, as: UTF8.self)
    }
}
