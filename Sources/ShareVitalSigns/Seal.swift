import Crypto
import VitalCore

/// An answer sealed for one request: ChaCha20-Poly1305 under the requester's key, bound to the request's sign,
/// state and identifier.
///
/// The bytes are `01` (version), then the 12-byte nonce, the ciphertext (the answer's JSON, `{"success":1,…}`) and
/// the 16-byte tag. The associated data is `svs1`, the sign as 4 bytes little-endian, the state as one byte and the
/// request's 16-byte identifier: an answer moved to another request, sign or state does not open.
public enum SealedAnswer {
    public static let version: UInt8 = 1
    /// Bytes of a key: 256 bits.
    public static let keySize = 32

    /// The associated data of a request.
    static func associatedData(sign: VitalSign, state: RequestState, requestID: [UInt8]) -> [UInt8] {
        var data = Array("svs1".utf8)
        for shift in stride(from: 0, to: 32, by: 8) { data.append(UInt8((sign.rawValue >> shift) & 0xFF)) }
        data.append(UInt8(state.rawValue))
        return data + requestID
    }

    /// `answer` sealed under `key` for the request of `board` (which must be sealed), with a fresh nonce.
    ///
    /// - Throws: ``SVSError`` for a key that is not 32 bytes or a board that is not sealed.
    public static func seal(_ answer: Answer, key: [UInt8], for board: Board) throws(SVSError) -> [UInt8] {
        guard key.count == keySize else { throw SVSError("svskey is not 32 bytes") }
        guard let requestID = board.requestID else { throw SVSError("the request is not sealed") }
        let plaintext = JSON.object(answer.members).serialized(pretty: false)
        do {
            let box = try ChaChaPoly.seal(
                plaintext, using: SymmetricKey(data: key),
                authenticating: associatedData(sign: board.sign, state: board.state, requestID: requestID))
            return [version] + Array(box.combined)
        } catch {
            throw SVSError("cannot seal the answer: \(error)")
        }
    }

    /// The answer sealed in `board`, opened with `key` and the request identifier the requester kept; `nil` when
    /// there is none yet.
    ///
    /// - Throws: ``SVSError`` when it does not open: another key, request, sign or state, changed bytes, another
    ///   version, or an answer that does not read.
    public static func open(_ board: Board, key: [UInt8], requestID: [UInt8]) throws(SVSError) -> Answer? {
        guard let sealed = board.sealed else { return nil }
        guard sealed.first == version, sealed.count >= 1 + 12 + 16 else {
            throw SVSError("the sealed answer is not version \(version)")
        }
        let plaintext: [UInt8]
        do {
            let box = try ChaChaPoly.SealedBox(combined: sealed.dropFirst())
            plaintext = Array(
                try ChaChaPoly.open(
                    box, using: SymmetricKey(data: key),
                    authenticating: associatedData(sign: board.sign, state: board.state, requestID: requestID)))
        } catch {
            throw SVSError("the sealed answer does not open with this request's key")
        }
        guard case .object(let members)? = try? JSON.parse(plaintext) else {
            throw SVSError("the sealed answer is not a JSON object")
        }
        return try Answer(members: members)
    }
}

/// A request as the requester makes it: the board to share, and the URL that opens the provider.
public struct SVSRequest: Hashable, Sendable {
    public var board: Board
    /// The key to keep until the answer is retrieved (`nil` in plain mode).
    public var key: [UInt8]?
    /// `svs-<sign>://?requester=<id>` and, sealed, `&svskey=<key>`.
    public var providerURL: String

    /// A request for `sign` by `requester`, sealed with `key` and `requestID` (fresh random bytes, 32 and 16) or
    /// plain when they are `nil`.
    ///
    /// - Throws: ``SVSError`` for a sign without a URL scheme of its own (POWITHFILES 133), a requester id that is
    ///   not a URL scheme, or a key or identifier of the wrong size.
    public init(
        sign: VitalSign, state: RequestState = .new, requester: String, key: [UInt8]?, requestID: [UInt8]?
    ) throws(SVSError) {
        guard let scheme = sign.scheme else {
            throw SVSError("\(sign) has no URL scheme of its own: request its signs one by one")
        }
        guard isURLScheme(requester) else {
            throw SVSError("the requester id \(requester) is not a URL scheme (letters, digits, +, - and .)")
        }
        switch (key, requestID) {
        case (let key?, let requestID?):
            guard key.count == SealedAnswer.keySize, requestID.count == 16 else {
                throw SVSError("a sealed request needs a 32-byte key and a 16-byte identifier")
            }
            board = Board(sign: sign, state: state, requestID: requestID)
            self.key = key
            providerURL = "\(scheme)://?requester=\(requester)&svskey=\(Base64URL.encode(key))"
        case (nil, nil):
            board = Board(sign: sign, state: state)
            self.key = nil
            providerURL = "\(scheme)://?requester=\(requester)"
        default:
            throw SVSError("a sealed request needs both a key and an identifier")
        }
    }
}

extension SVSRequest {
    /// Whether `text` may be a requester's id: a URL scheme (a letter, then letters, digits, `+`, `-` and `.`), at
    /// most 64 characters, since the provider returns to `<id>://`.
    public static func isRequesterID(_ text: String) -> Bool { isURLScheme(text) }
}

/// What a provider reads from the URL that opened it: the sign (from the scheme), the requester, and the key.
public struct ProviderURL: Hashable, Sendable {
    public var sign: VitalSign
    public var requester: String?
    public var key: [UInt8]?

    /// - Throws: ``SVSError`` for a scheme that is not a ShareVitalSigns one, a repeated or unknown parameter, or
    ///   an `svskey` that is not 32 bytes of base64url.
    public init(parsing url: String) throws(SVSError) {
        guard let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else {
            throw SVSError("\(url) is not a URL")
        }
        guard let sign = VitalSign(scheme: String(url[..<colon])) else {
            throw SVSError("\(url[..<colon]) is not a ShareVitalSigns scheme (svs-hr, svs-bp, …)")
        }
        self.sign = sign
        var rest = url[url.index(colon, offsetBy: 3)...]
        if rest.hasPrefix("/") { rest = rest.dropFirst() }
        guard rest.isEmpty || rest.hasPrefix("?") else { throw SVSError("the URL has a path; only a query is read") }
        var seen: Set<String> = []
        for pair in rest.dropFirst().split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            let value = parts.count == 2 ? String(parts[1]) : ""
            guard seen.insert(name).inserted else { throw SVSError("\(name) is given twice") }
            switch name {
            case "requester":
                guard isURLScheme(value) else { throw SVSError("requester \(value) is not a URL scheme") }
                requester = value
            case "svskey":
                guard let key = Base64URL.decode(value), key.count == SealedAnswer.keySize else {
                    throw SVSError("svskey is not 32 bytes of base64url")
                }
                self.key = key
            default:
                throw SVSError("\(name) is not a ShareVitalSigns parameter (requester, svskey)")
            }
        }
    }
}

/// Whether `text` is a URL scheme (`isValidScheme(_:)` of LayeredProtocol) of at most 64 characters.
func isURLScheme(_ text: String) -> Bool { text.utf8.count <= 64 && isValidScheme(text) }
