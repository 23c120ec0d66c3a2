/// The scheme at the start of `text` (`letter *( letter / digit / "+" / "-" / "." )` before a `:`), or `nil`.
public func uriScheme(of text: String) -> String? {
    var text = text
    return text.withUTF8 { bytes in
        uriSchemeLength(bytes[...]).map { String(decoding: UnsafeBufferPointer(rebasing: bytes[..<$0]), as: UTF8.self) }
    }
}

/// The length of the scheme at the start of `bytes` (without its `:`), or `nil` if they do not start with one.
public func uriSchemeLength(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
    guard let first = bytes.first, isASCIILetter(first) else { return nil }
    for (length, byte) in bytes.enumerated() {
        if byte == UInt8(ascii: ":") { return length }
        guard
            isASCIILetter(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        else { return nil }
    }
    return nil
}

@inline(__always)
public func isASCIILetter(_ byte: UInt8) -> Bool {
    (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
}

/// Whether `text` is a URI scheme alone (`myapp`, `com.example.app`): a letter, then letters, digits, `+`, `-`
/// and `.` (RFC 3986).
public func isValidScheme(_ text: String) -> Bool {
    uriScheme(of: text + ":")?.utf8.count == text.utf8.count
}
