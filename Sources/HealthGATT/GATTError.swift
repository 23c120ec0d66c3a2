/// Why bytes did not decode as a characteristic.
///
/// It names the characteristic, the field (by its Bluetooth SIG name) and the byte offset at which decoding
/// stopped. Its description is one line and never contains a decoded value.
public struct GATTError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure; open, so later versions may add kinds.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The bytes end before the field.
        public static let short = Code(rawValue: "short")
        /// Bytes follow the last field the flags announce.
        public static let tooLong = Code(rawValue: "tooLong")
        /// A value or flag bit the specification reserves for future use.
        public static let reservedValue = Code(rawValue: "reservedValue")
        /// A value outside the field's range (a month of 13).
        public static let invalidValue = Code(rawValue: "invalidValue")
    }

    /// The kind of failure.
    public var code: Code
    /// The characteristic being decoded, e.g. `Blood Pressure Measurement`.
    public var characteristic: String
    /// The field, by its SIG name in snake case, e.g. `time_stamp.month`.
    public var field: String
    /// The offset of the field's first byte.
    public var offset: Int

    public init(_ code: Code, characteristic: String, field: String, offset: Int) {
        self.code = code
        self.characteristic = characteristic
        self.field = field
        self.offset = offset
    }

    public var description: String {
        let what =
            switch code {
            case .short: "the bytes end before it"
            case .tooLong: "bytes follow the last field"
            case .reservedValue: "it has a value reserved for future use"
            case .invalidValue: "its value is out of range"
            default: code.rawValue
            }
        return "\(characteristic): \(field) at byte \(offset): \(what)"
    }
}

/// Reads little-endian fields from the front of a characteristic value; its errors name the field and its byte
/// offset. Shared with the vendor codecs of this package (`package`).
package struct ByteReader {
    package let bytes: [UInt8]
    package let characteristic: String
    package private(set) var offset = 0
    /// Whether the flags set a bit reserved for future use: a field it announces follows every field this version
    /// knows, so the value may end with bytes nobody here can read.
    package private(set) var announcesUnknownFields = false

    package init(_ bytes: [UInt8], characteristic: String) {
        self.bytes = bytes
        self.characteristic = characteristic
    }

    package var remaining: Int { bytes.count - offset }

    package func error(_ code: GATTError.Code, _ field: String, at offset: Int? = nil) -> GATTError {
        GATTError(code, characteristic: characteristic, field: field, offset: offset ?? self.offset)
    }

    package mutating func take(_ count: Int, _ field: String) throws(GATTError) -> Int {
        guard remaining >= count else { throw error(.short, field) }
        defer { offset += count }
        return offset
    }

    package mutating func uint8(_ field: String) throws(GATTError) -> UInt8 {
        bytes[try take(1, field)]
    }

    package mutating func uint16(_ field: String) throws(GATTError) -> UInt16 {
        let at = try take(2, field)
        return UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
    }

    package mutating func int16(_ field: String) throws(GATTError) -> Int16 {
        Int16(bitPattern: try uint16(field))
    }

    package mutating func uint24(_ field: String) throws(GATTError) -> UInt32 {
        let at = try take(3, field)
        return UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16
    }

    package mutating func uint32(_ field: String) throws(GATTError) -> UInt32 {
        let at = try take(4, field)
        return UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16
            | UInt32(bytes[at + 3]) << 24
    }

    package mutating func sfloat(_ field: String) throws(GATTError) -> SFloat {
        SFloat(bits: try uint16(field))
    }

    package mutating func float(_ field: String) throws(GATTError) -> MedicalFloat {
        MedicalFloat(bits: try uint32(field))
    }

    package mutating func dateTime(_ field: String) throws(GATTError) -> DateTime {
        let at = try take(7, field)
        let value = DateTime(
            year: UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8, month: bytes[at + 2], day: bytes[at + 3],
            hours: bytes[at + 4], minutes: bytes[at + 5], seconds: bytes[at + 6])
        if let (subfield, position) = value.invalidField {
            throw GATTError(
                .invalidValue, characteristic: characteristic, field: field + "." + subfield, offset: at + position)
        }
        return value
    }

    /// Reads the flags byte, ignoring bits outside `known` as the Core Specification's rule for reserved (RFU)
    /// bits says; the fields they may announce come after every known field (see ``finish()``).
    package mutating func flags8(known: UInt8) throws(GATTError) -> UInt8 {
        let flags = try uint8("flags")
        announcesUnknownFields = announcesUnknownFields || flags & ~known != 0
        return flags & known
    }

    /// A 16-bit flags field, read like ``flags8(known:)``.
    package mutating func flags16(known: UInt16) throws(GATTError) -> UInt16 {
        let flags = try uint16("flags")
        announcesUnknownFields = announcesUnknownFields || flags & ~known != 0
        return flags & known
    }

    /// Checks that nothing follows the last field, unless a reserved flag bit announced a field this version does
    /// not know: then what follows is that field, and is skipped.
    package func finish() throws(GATTError) {
        guard remaining == 0 || announcesUnknownFields else { throw error(.tooLong, "end") }
    }
}

extension [UInt8] {
    package mutating func appendLE(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
    }

    package mutating func appendLE24(_ value: UInt32) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value >> 16))
    }

    package mutating func appendLE(_ value: UInt32) {
        appendLE24(value)
        append(UInt8(truncatingIfNeeded: value >> 24))
    }
}

/// A characteristic value that decodes from and encodes to its Bluetooth SIG bytes.
public protocol GATTCharacteristic: Hashable, Sendable {
    /// The characteristic's 16-bit UUID, e.g. `0x2A35`.
    static var uuid: UInt16 { get }
    /// The characteristic's SIG name, e.g. `Blood Pressure Measurement`.
    static var name: String { get }
    /// Decodes the characteristic's value.
    init(bytes: [UInt8]) throws(GATTError)
    /// The characteristic's value, flags derived from which optional fields are set.
    func encoded() -> [UInt8]
}
