/// Percent-encoding of the values VitalBridge generates.
///
/// The allowed set is RFC 3986's unreserved characters (`A–Z a–z 0–9 - . _ ~`) plus `:` and `,`, which are legal
/// in a query and make up most of JSON's punctuation. Every other byte of the UTF-8 form is written `%XX` with
/// upper-case hex digits: `& = + # % ;`, quotes, braces and spaces always. Any standard query parser recovers the
/// value exactly.
///
/// Its functions are `@inlinable`: the protocol modules call them with their own string types, and an unspecialized
/// generic call across modules cost request parsing 8 % of its instructions.
public enum PercentEncoding {
    /// `value` percent-encoded with the allowed set.
    @inlinable
    public static func encode(_ value: some StringProtocol) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(value.utf8.count)
        append(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The length of `value` once percent-encoded, without encoding it.
    @inlinable
    public static func encodedLength(of value: some StringProtocol) -> Int {
        encodedLength(of: value.utf8)
    }

    /// The length of the UTF-8 `bytes` once percent-encoded.
    @inlinable
    public static func encodedLength(of bytes: some Sequence<UInt8>) -> Int {
        var length = 0
        for byte in bytes { length += isAllowed(byte) ? 1 : 3 }
        return length
    }

    /// Appends `value`, percent-encoded, to `bytes`.
    @inlinable
    public static func append(_ value: some StringProtocol, to bytes: inout [UInt8]) {
        append(value.utf8, to: &bytes)
    }

    /// Appends the UTF-8 `value`, percent-encoded, to `bytes`.
    @inlinable
    public static func append(_ value: some Sequence<UInt8>, to bytes: inout [UInt8]) {
        for byte in value { append(byte, to: &bytes) }
    }

    @inlinable @inline(__always)
    public static func append(_ byte: UInt8, to bytes: inout [UInt8]) {
        if isAllowed(byte) {
            bytes.append(byte)
        } else {
            bytes.append(UInt8(ascii: "%"))
            bytes.append(upperHexDigits[Int(byte >> 4)])
            bytes.append(upperHexDigits[Int(byte & 0xF)])
        }
    }

    /// Whether `byte` is written as itself.
    @inlinable @inline(__always)
    public static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"), UInt8(ascii: ":"), UInt8(ascii: ","):
            true
        default:
            false
        }
    }

    /// Whether a URL a reader accepts may carry `byte` as it is: printable ASCII other than space. Every other byte
    /// (a space, a control character, a byte of non-ASCII text) travels percent-encoded; a raw one would not
    /// survive writing the URL back, so both the layered query and the DDS links refuse it.
    @inline(__always)
    public static func mayAppearRaw(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x7F }

    /// Decodes the `%XX` escapes of `text`; `+` stays `+`.
    ///
    /// Returns `nil` for a `%` not followed by two hex digits, an escaped NUL (`%00`) or a result that is not
    /// valid UTF-8.
    @inlinable
    public static func decode(_ text: some StringProtocol) -> String? {
        let utf8 = text.utf8
        let hasEscape =
            utf8.withContiguousStorageIfAvailable { $0.contains(UInt8(ascii: "%")) } ?? utf8.contains(UInt8(ascii: "%"))
        guard hasEscape else { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            utf8.formIndex(after: &index)
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard index != utf8.endIndex, let high = hexDigitValue(utf8[index]) else { return nil }
            utf8.formIndex(after: &index)
            guard index != utf8.endIndex, let low = hexDigitValue(utf8[index]) else { return nil }
            utf8.formIndex(after: &index)
            let decoded = high << 4 | low
            guard decoded != 0 else { return nil }
            bytes.append(decoded)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
