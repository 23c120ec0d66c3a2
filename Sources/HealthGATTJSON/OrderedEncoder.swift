import VitalCore

/// The JSON of a `gatt decode` document: its members in the order its body declares them, which is the SIG's field
/// order; camelCase property names written in snake case (`meanArterialPressure` → `mean_arterial_pressure`,
/// `userId` → `user_id`); every ``GATTNumber`` exactly (`mantissa × 10^exponent` in decimal digits, whatever the
/// exponent), and a special value by its name.
///
/// ```swift
/// let document = try GATTDecoder.named("float")!.decode([0x72, 0x01, 0x00, 0x7F])   // 370 × 10¹²⁷
/// gattJSON(document).serialized(pretty: true)   // {"value": 3700…0 (130 digits), "mantissa": 370, …}
/// ```
///
/// - Throws: `EncodingError` for a `Double` that is not finite, which JSON cannot hold (no body has one).
public func gattJSON(_ document: any Encodable) throws -> JSON {
    let root = Slot()
    try root.encode(document, at: [])
    return root.json
}

/// Where one value of the document goes, filled as the value encodes itself.
private final class Slot {
    enum Content {
        case empty
        case value(JSON)
        case object([(key: String, slot: Slot)])
        case array([Slot])
    }

    var content = Content.empty

    var json: JSON {
        switch content {
        case .empty: .null
        case .value(let value): value
        case .object(let members): .object(members.map { ($0.key, $0.slot.json) })
        case .array(let elements): .array(elements.map(\.json))
        }
    }

    /// Fills the slot with `value`: a flag, text or number as JSON's own, anything else (a ``GATTNumber`` too) as it
    /// encodes itself. The containers hand every value here (their other methods' defaults do).
    func encode(_ value: any Encodable, at path: [any CodingKey]) throws {
        switch value {
        case let flag as Bool: content = .value(.bool(flag))
        case let text as String: content = .value(.string(text))
        case let integer as any BinaryInteger: content = .value(.number(integer))
        case let number as Double: content = .value(try Self.number(number, at: path))
        case let number as Float: content = .value(try Self.number(Double(number), at: path))
        default: try value.encode(to: OrderedEncoder(slot: self, codingPath: path))
        }
    }

    /// A new slot under `key` of the object this slot holds, in the key's place if it was encoded before (as
    /// JSONEncoder replaces it): a document never has a key twice.
    func member(_ key: String) -> Slot {
        let slot = Slot()
        guard case .object(var members) = content else {
            content = .object([(key, slot)])
            return slot
        }
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index].slot = slot
        } else {
            members.append((key, slot))
        }
        content = .object(members)
        return slot
    }

    /// A new slot at the end of the array this slot holds.
    func element() -> Slot {
        let slot = Slot()
        if case .array(var elements) = content {
            elements.append(slot)
            content = .array(elements)
        } else {
            content = .array([slot])
        }
        return slot
    }

    /// `value` as JSON, refusing a double JSON cannot hold.
    static func number(_ value: Double, at path: [any CodingKey]) throws -> JSON {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value, EncodingError.Context(codingPath: path, debugDescription: "JSON has no \(value)"))
        }
        return JSON.number(value)
    }
}

/// The encoder ``gattJSON(_:)`` hands each value: it keeps members in the order they are encoded.
struct OrderedEncoder: Encoder {
    fileprivate let slot: Slot
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// Makes the value being encoded `json` (a ``GATTNumber``'s exact digits).
    func write(_ json: JSON) { slot.content = .value(json) }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = slot.content {} else { slot.content = .object([]) }
        return KeyedEncodingContainer(Keyed(slot: slot, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = slot.content {} else { slot.content = .array([]) }
        return Unkeyed(slot: slot, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { Single(slot: slot, codingPath: codingPath) }
}

/// `key` in snake case: words split where a lower-case letter or digit meets a capital, and before the last capital
/// of a run followed by a lower-case letter (`userID` → `user_id`, `myURLKey` → `my_url_key`). For the bodies' keys
/// this is what JSONEncoder's `convertToSnakeCase` wrote (the golden documents were checked against its output);
/// it differs where a digit meets a lower-case letter (`a2b` stays `a2b`), which no body has.
func snakeCase(_ key: String) -> String {
    let characters = Array(key)
    var result = ""
    for (index, character) in characters.enumerated() {
        if character.isUppercase, index > 0 {
            let previous = characters[index - 1]
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            if previous.isLowercase || previous.isNumber || (previous.isUppercase && next?.isLowercase == true) {
                result.append("_")
            }
        }
        result += character.lowercased()
    }
    return result
}

private struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let slot: Slot
    let codingPath: [any CodingKey]

    private func member(_ key: Key) -> Slot { slot.member(snakeCase(key.stringValue)) }

    mutating func encodeNil(forKey key: Key) { member(key).content = .value(.null) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try member(key).encode(value, at: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        OrderedEncoder(slot: member(key), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        OrderedEncoder(slot: member(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { OrderedEncoder(slot: slot.member("super"), codingPath: codingPath) }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        OrderedEncoder(slot: member(key), codingPath: codingPath + [key])
    }
}

private struct Unkeyed: UnkeyedEncodingContainer {
    let slot: Slot
    let codingPath: [any CodingKey]
    var count: Int {
        if case .array(let elements) = slot.content { elements.count } else { 0 }
    }

    mutating func encodeNil() { slot.element().content = .value(.null) }
    mutating func encode<T: Encodable>(_ value: T) throws { try slot.element().encode(value, at: codingPath) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        OrderedEncoder(slot: slot.element(), codingPath: codingPath).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        OrderedEncoder(slot: slot.element(), codingPath: codingPath).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { OrderedEncoder(slot: slot.element(), codingPath: codingPath) }
}

private struct Single: SingleValueEncodingContainer {
    let slot: Slot
    let codingPath: [any CodingKey]

    mutating func encodeNil() { slot.content = .value(.null) }
    mutating func encode<T: Encodable>(_ value: T) throws { try slot.encode(value, at: codingPath) }
}
