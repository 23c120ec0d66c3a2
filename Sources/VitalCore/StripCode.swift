/// The kind of BG5 strip code (`codetype`, the spec's `LayeredBGCodeType`).
public enum CodeType: Int, CaseIterable, Hashable, Sendable {
    /// `0`: the code is the text of the strip vial's QR code.
    case qrCode = 0
    /// `1`: any other strip code.
    case other = 1
}

/// The strip code a BG5 measurement needs (`codetype` and `code`).
public struct StripCode: Hashable, Sendable {
    /// `codetype`.
    public var type: CodeType
    /// `code`, decoded: the text of the vial's QR code, or another code; 1–512 characters.
    public var code: String

    /// The code `code`, of the kind `type`.
    public init(type: CodeType, code: String) {
        self.type = type
        self.code = code
    }
}
