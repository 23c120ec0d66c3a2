/// A D-Bus value with its type: what a message carries.
///
/// Byte arrays (`ay`), by far the most frequent value on a Bluetooth bus, have their own case and are marshalled as
/// one block. A received ``unixFD(_:)`` is a descriptor the receiver owns and must close.
public indirect enum DBusValue: Hashable, Sendable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// A file descriptor (`h`).
    case unixFD(Int32)
    /// An array of bytes (`ay`).
    case bytes([UInt8])
    /// An array of values of the single complete type `elementSignature`.
    case array(elementSignature: String, [DBusValue])
    /// A dictionary (`a{kv}`), its entries in order.
    case dictionary(keySignature: String, valueSignature: String, [DBusDictionaryEntry])
    /// A structure (`(…)`).
    case structure([DBusValue])
    /// A variant (`v`): a value that carries its own type.
    case variant(DBusValue)

    /// The value's type signature, e.g. `a{sv}`.
    public var signature: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFD: "h"
        case .bytes: "ay"
        case .array(let element, _): "a" + element
        case .dictionary(let key, let value, _): "a{" + key + value + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .variant: "v"
        }
    }
}

/// One entry of a ``DBusValue/dictionary(keySignature:valueSignature:_:)``.
public struct DBusDictionaryEntry: Hashable, Sendable {
    public var key: DBusValue
    public var value: DBusValue
    public init(key: DBusValue, value: DBusValue) {
        self.key = key
        self.value = value
    }
}

extension DBusValue {
    /// An array of strings (`as`).
    public static func strings(_ values: [String]) -> DBusValue {
        .array(elementSignature: "s", values.map { .string($0) })
    }

    /// A property map (`a{sv}`): each value wrapped in a variant, in the order given.
    public static func properties(_ entries: KeyValuePairs<String, DBusValue>) -> DBusValue {
        properties(entries.map { ($0.key, $0.value) })
    }

    /// A property map (`a{sv}`) from `entries`, in order.
    public static func properties(_ entries: [(String, DBusValue)]) -> DBusValue {
        .dictionary(
            keySignature: "s", valueSignature: "v",
            entries.map { DBusDictionaryEntry(key: .string($0.0), value: .variant($0.1)) })
    }

    /// The text of a string, object path or signature.
    public var string: String? {
        switch self {
        case .string(let text), .objectPath(let text), .signature(let text): text
        case .variant(let inner): inner.string
        default: nil
        }
    }

    public var bool: Bool? {
        switch self {
        case .boolean(let value): value
        case .variant(let inner): inner.bool
        default: nil
        }
    }

    /// An integer of any width, when it is one.
    public var integer: Int? {
        switch self {
        case .byte(let value): Int(value)
        case .int16(let value): Int(value)
        case .uint16(let value): Int(value)
        case .int32(let value): Int(value)
        case .uint32(let value): Int(value)
        case .int64(let value): Int(value)
        case .uint64(let value): Int(exactly: value)
        case .variant(let inner): inner.integer
        default: nil
        }
    }

    /// The bytes of an `ay`.
    public var byteArray: [UInt8]? {
        switch self {
        case .bytes(let bytes): bytes
        case .variant(let inner): inner.byteArray
        default: nil
        }
    }

    /// The elements of an array.
    public var elements: [DBusValue]? {
        switch self {
        case .array(_, let elements): elements
        case .bytes(let bytes): bytes.map(DBusValue.byte)
        case .variant(let inner): inner.elements
        default: nil
        }
    }

    /// The strings of an `as`, or an `ao`.
    public var strings: [String]? { elements?.compactMap(\.string) }

    /// A dictionary keyed by strings or object paths (`a{sv}`, `a{oa{sa{sv}}}`), its variants unwrapped; a later
    /// duplicate key wins.
    public var dictionary: [String: DBusValue]? {
        switch self {
        case .dictionary(_, _, let entries):
            var result: [String: DBusValue] = [:]
            for entry in entries {
                guard let key = entry.key.string else { return nil }
                if case .variant(let inner) = entry.value { result[key] = inner } else { result[key] = entry.value }
            }
            return result
        case .variant(let inner): return inner.dictionary
        default: return nil
        }
    }
}
