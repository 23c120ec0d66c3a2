import VitalCore

/// One `name=value` pair of a query, exactly as it was written.
public struct QueryParameter: Hashable, Sendable {
    /// The name as written, percent-encoding untouched.
    public let name: String
    /// The value as written, percent-encoding untouched; `nil` when the pair had no `=` (`?flag&cmd=0`).
    public let value: String?
    /// The name decoded and lower-cased (ASCII letters only): the key parameters are matched by. `nil` if the
    /// name has a bad escape.
    public let key: String?
    /// The request parameter the key names, if the protocol defines it.
    let requestKey: RequestKey?

    /// A parameter from its written (already percent-encoded) name and value.
    public init(name: String, value: String?) {
        self.init(name: name, value: value, key: PercentEncoding.decode(name).map { $0.asciiLowercased() })
    }

    private init(name: String, value: String?, key: String?) {
        self.name = name
        self.value = value
        self.key = key
        self.requestKey = key.flatMap(RequestKey.init(key:))
    }

    /// A parameter whose name is `nameBytes`; `nil` if the name has a bad escape.
    init?(nameBytes: UnsafeBufferPointer<UInt8>, value: String?) {
        let name = String(decoding: nameBytes, as: UTF8.self)
        if nameBytes.allSatisfy({ $0 != UInt8(ascii: "%") && ($0 < UInt8(ascii: "A") || $0 > UInt8(ascii: "Z")) }) {
            self.init(name: name, value: value, key: name)
        } else {
            guard let decoded = PercentEncoding.decode(name) else { return nil }
            self.init(name: name, value: value, key: decoded.asciiLowercased())
        }
    }

    /// A parameter whose name and value are the percent-encoded forms of `name` and `value`.
    public init(encodingName name: String, value: String) {
        self.init(name: PercentEncoding.encode(name), value: PercentEncoding.encode(value))
    }

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
        var url = url
        var base = ""
        var parameters: [QueryParameter] = []
        let failure: LayeredError? = url.withUTF8 { bytes in
            guard bytes.count <= maximumLength else {
                return LayeredError(
                    .requestTooLong,
                    message: "the URL has \(bytes.count) characters, more than the \(maximumLength) allowed")
            }
            var questionMark: Int?
            var pieces = 0
            for (offset, byte) in bytes.enumerated() {
                guard PercentEncoding.mayAppearRaw(byte), byte != UInt8(ascii: "#") else {
                    return LayeredError(
                        .malformedURL,
                        message: byte == UInt8(ascii: "#")
                            ? "the URL has a fragment ('#' at offset \(offset)); escape '#' in values as %23"
                            : "the URL has a byte that is not printable ASCII at offset \(offset); percent-encode it")
                }
                if byte == UInt8(ascii: "?"), questionMark == nil { questionMark = offset }
                if byte == UInt8(ascii: "&") { pieces += 1 }
            }
            let baseEnd = questionMark ?? bytes.count
            guard uriSchemeLength(bytes[..<baseEnd]) != nil else {
                return LayeredError(.malformedURL, message: "the URL does not start with a scheme ('name:')")
            }
            base = String(decoding: UnsafeBufferPointer(rebasing: bytes[..<baseEnd]), as: UTF8.self)
            guard let questionMark else { return nil }
            parameters.reserveCapacity(pieces + 1)
            var start = questionMark + 1
            while start < bytes.count {
                var end = start
                var equals: Int?
                while end < bytes.count, bytes[end] != UInt8(ascii: "&") {
                    if equals == nil, bytes[end] == UInt8(ascii: "=") { equals = end }
                    end += 1
                }
                if start != end {
                    let nameBytes = UnsafeBufferPointer(rebasing: bytes[start..<(equals ?? end)])
                    let value = equals.map {
                        String(decoding: UnsafeBufferPointer(rebasing: bytes[($0 + 1)..<end]), as: UTF8.self)
                    }
                    guard let parameter = QueryParameter(nameBytes: nameBytes, value: value) else {
                        return LayeredError(
                            .malformedURL,
                            message: "parameter \(parameters.count + 1) has a name with a bad '%' escape")
                    }
                    parameters.append(parameter)
                }
                start = end + 1
            }
            return nil
        }
        if let failure { throw failure }
        self.base = base
        self.parameters = parameters
    }

    /// The scheme of ``base``, lower-cased (`ihealth-layer`).
    public var scheme: String { uriScheme(of: base)!.asciiLowercased() }

    /// Whether ``base`` starts with `scheme` followed by `:`, letters compared without case.
    public func hasScheme(_ scheme: String) -> Bool {
        var base = base
        var scheme = scheme
        return base.withUTF8 { base in
            scheme.withUTF8 { scheme in
                guard base.count > scheme.count, base[scheme.count] == UInt8(ascii: ":") else { return false }
                for index in scheme.indices {
                    let (lhs, rhs) = (base[index], scheme[index])
                    guard lhs == rhs || (isASCIILetter(lhs) && lhs | 0x20 == rhs | 0x20) else { return false }
                }
                return true
            }
        }
    }

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

extension StringProtocol {
    /// The text with ASCII upper-case letters lower-cased and everything else unchanged.
    func asciiLowercased() -> String {
        guard utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else { return String(self) }
        return String(
            decoding: utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 + 32 : $0 }, as: UTF8.self)
    }
}
