import VitalCore

/// A provider's answer: whether it succeeded, and a value with its quality under each sign's exponent.
public struct Answer: Hashable, Sendable {
    /// A value and the provider's confidence in it.
    public struct Entry: Hashable, Sendable {
        public var value: SignValue
        public var quality: Quality

        public init(_ value: SignValue, quality: Quality) {
            self.value = value
            self.quality = quality
        }
    }

    /// The document's `success` code: 1 done, 0 failed (the provider cannot supply the signs, or gave up).
    public var success: Bool
    /// By exponent (``VitalSign/exponent``): `4` systolic, `5` diastolic, …
    public var values: [Int: Entry]

    public init(success: Bool, values: [Int: Entry] = [:]) {
        self.success = success
        self.values = values
    }

    /// A failure answer: no values.
    public static let failure = Answer(success: false)

    /// The answer's members as the document keys them: `success`, `<exponent>` and `<exponent>-qual`.
    var members: [(key: String, value: JSON)] {
        var members: [(key: String, value: JSON)] = [("success", .number(success ? 1 : 0))]
        for exponent in values.keys.sorted() {
            let entry = values[exponent]!
            switch entry.value {
            case .number(let number): members.append(("\(exponent)", .number(number)))
            case .text(let text): members.append(("\(exponent)", .string(text)))
            }
            members.append(("\(exponent)-qual", .number(entry.quality.value)))
        }
        return members
    }

    /// The answer of `members` (`success`, `<exponent>`, `<exponent>-qual`); other keys are left to the caller.
    ///
    /// - Throws: ``SVSError`` naming the key: a `success` that is not 0 or 1, a value without its quality or a
    ///   quality outside 0–100, an exponent outside 0–7.
    init(members: [(key: String, value: JSON)]) throws(SVSError) {
        var success: Bool?
        var values: [Int: SignValue] = [:]
        var qualities: [Int: Quality] = [:]
        for (key, value) in members {
            if key == "success" {
                guard case .number(let text) = value, text == "0" || text == "1" else {
                    throw SVSError("success must be 0 or 1")
                }
                success = text == "1"
            } else if key.hasSuffix("-qual"), let exponent = Int(key.dropLast(5)), (0...7).contains(exponent) {
                guard case .number(let text) = value, let number = Int(text), let quality = Quality(number) else {
                    throw SVSError("\(key) must be a quality from 0 to 100")
                }
                qualities[exponent] = quality
            } else if let exponent = Int(key), (0...7).contains(exponent) {
                switch value {
                case .number(let text):
                    guard let number = Int(text) else { throw SVSError("\(key) must be a whole number or a string") }
                    values[exponent] = .number(number)
                case .string(let text): values[exponent] = .text(text)
                default: throw SVSError("\(key) must be a whole number or a string")
                }
            }
        }
        guard let success else { throw SVSError("success is missing") }
        var entries: [Int: Entry] = [:]
        for (exponent, value) in values {
            guard let quality = qualities[exponent] else { throw SVSError("\(exponent)-qual is missing") }
            entries[exponent] = Entry(value, quality: quality)
        }
        guard qualities.keys.allSatisfy({ values[$0] != nil }) else {
            throw SVSError("a quality has no value")
        }
        self.init(success: success, values: entries)
    }
}

/// The shared dictionary of a request, the document's `svsPasteboard`: the requester's `sign` and `state`, then
/// the provider's answer.
///
/// In plain mode the answer is in the open, as the document has it: `success`, `<exponent>`, `<exponent>-qual`.
/// Sealed, the board holds the request's identifier (`request`) and the answer only as ``SealedAnswer`` bytes
/// (`sealed`): whoever reads the board learns the sign asked for, and nothing of the answer.
public struct Board: Hashable, Sendable {
    public var sign: VitalSign
    public var state: RequestState
    /// A sealed request's identifier (16 bytes): it binds the answer to this request. `nil` in plain mode.
    public var requestID: [UInt8]?
    /// A plain answer.
    public var answer: Answer?
    /// A sealed answer.
    public var sealed: [UInt8]?

    public init(
        sign: VitalSign, state: RequestState, requestID: [UInt8]? = nil, answer: Answer? = nil, sealed: [UInt8]? = nil
    ) {
        self.sign = sign
        self.state = state
        self.requestID = requestID
        self.answer = answer
        self.sealed = sealed
    }

    /// Whether the request is sealed.
    public var isSealed: Bool { requestID != nil }

    /// The board as compact JSON: `{"sign":48,"state":1,…}`.
    public var json: [UInt8] {
        var members: [(key: String, value: JSON)] = [
            ("sign", .number(sign.rawValue)), ("state", .number(state.rawValue)),
        ]
        if let requestID { members.append(("request", .string(Base64URL.encode(requestID)))) }
        if let sealed { members.append(("sealed", .string(Base64URL.encode(sealed)))) }
        if let answer { members += answer.members }
        return JSON.object(members).serialized(pretty: false)
    }

    /// Reads a board.
    ///
    /// - Throws: ``SVSError`` naming what is wrong: not a JSON object, a missing or unknown `sign` or `state`, a
    ///   `request` or `sealed` that is not base64url, a sealed board with plain values, or a bad answer member.
    public init(json: [UInt8]) throws(SVSError) {
        let document: JSON
        do {
            document = try JSON.parse(json)
        } catch {
            throw SVSError("the board is not JSON: \(error.message) (byte \(error.offset))")
        }
        guard case .object(let members) = document else { throw SVSError("the board is not a JSON object") }
        func number(_ key: String) -> Int? {
            guard case .number(let text)? = members.first(where: { $0.key == key })?.value else { return nil }
            return Int(text)
        }
        func bytes(_ key: String) throws(SVSError) -> [UInt8]? {
            guard let member = members.first(where: { $0.key == key }) else { return nil }
            guard case .string(let text) = member.value, let bytes = Base64URL.decode(text) else {
                throw SVSError("\(key) is not base64url")
            }
            return bytes
        }
        guard let code = number("sign"), code > 0, code <= VitalSign.all.rawValue else {
            throw SVSError("sign is missing or not a vital-sign code (1 to 255)")
        }
        guard let state = number("state").flatMap(RequestState.init(rawValue:)) else {
            throw SVSError("state is missing or not 1 (new) or 2 (resume)")
        }
        let requestID = try bytes("request")
        if let requestID, requestID.count != 16 { throw SVSError("request is not 16 bytes") }
        let sealed = try bytes("sealed")
        let answerMembers = members.filter { !["sign", "state", "request", "sealed"].contains($0.key) }
        let answer = answerMembers.isEmpty ? nil : try Answer(members: answerMembers)
        if requestID != nil, answer != nil { throw SVSError("a sealed board has plain answer members") }
        if sealed != nil, requestID == nil { throw SVSError("sealed has no request") }
        self.init(
            sign: VitalSign(rawValue: code), state: state, requestID: requestID, answer: answer, sealed: sealed)
    }
}

/// What a requester's poll finds, as the document's table has it.
///
/// | success code? | code | vital sign? | answer |
/// | --- | --- | --- | --- |
/// | no | – | – | ``inProgress`` (0 or `""`) |
/// | yes | 0 | – | ``invalid`` (-1 or `NULL`) |
/// | yes | 1 | no | ``invalid`` |
/// | yes | 1 | yes | ``value(_:quality:)`` |
public enum PollAnswer: Hashable, Sendable {
    case inProgress
    case invalid
    case value(SignValue, quality: Quality)

    /// The poll of `sign` in `answer` (`nil`: no answer yet), by the sign's exponent: for a combination, its highest
    /// sign (BP 48 answers diastolic, exponent 5).
    public init(sign: VitalSign, answer: Answer?) {
        guard let answer else {
            self = .inProgress
            return
        }
        guard answer.success, let exponent = sign.exponent, let entry = answer.values[exponent] else {
            self = .invalid
            return
        }
        self = .value(entry.value, quality: entry.quality)
    }
}

/// A ShareVitalSigns board or request that cannot be used; the message names what is wrong.
public struct SVSError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Base64 with the URL-safe alphabet (`-`, `_`) and no padding (RFC 4648 §5).
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    public static func encode(_ bytes: [UInt8]) -> String {
        var text: [UInt8] = []
        text.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var value = 0
            for (position, byte) in chunk.enumerated() { value |= Int(byte) << (16 - 8 * position) }
            for position in 0...chunk.count { text.append(alphabet[(value >> (18 - 6 * position)) & 0x3F]) }
            index += 3
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes of `text`; `nil` for a character outside the alphabet, padding, or a length no encoding has.
    public static func decode(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        var value = 0
        var bits = 0
        for character in text.utf8 {
            guard let digit = alphabet.firstIndex(of: character) else { return nil }
            value = value << 6 | digit
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8((value >> bits) & 0xFF))
            }
        }
        // a final group of 6 bits is no byte; leftover bits must be zero (one encoding per byte string)
        guard bits < 6, value & ((1 << bits) - 1) == 0 else { return nil }
        return bytes
    }
}
