import Foundation
import ShareVitalSigns
import VitalBridge
import VitalCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where ShareVitalSigns keeps its files: the shared board, and each requester's key in the home.
public enum SVSFiles {
    /// `$XDG_RUNTIME_DIR/vitalbridge`, else `$HOME/.local/state/vitalbridge/run`.
    public static var boardFolder: String {
        if let runtime = environment("XDG_RUNTIME_DIR"), !runtime.isEmpty { return runtime + "/vitalbridge" }
        return (environment("HOME") ?? "") + "/.local/state/vitalbridge/run"
    }

    /// The board's file in ``boardFolder``.
    public static var boardPath: String { boardFolder + "/svsPasteboard" }

    /// The folder, made private (0700) if new; a link or another user's folder is refused.
    public static func checkedFolder() throws(HomeError) -> String {
        let folder = boardFolder
        try Home.makeDirectory(folder, intermediates: true)
        try Home.checkDirectory(folder, ownedByUser: false)
        return folder
    }

    /// The board the engine answers on.
    public static let board = FileBoard()

    /// Writes `board` (atomically) in the board's folder.
    public static func writeBoard(_ board: Board) throws(HomeError) {
        _ = try checkedFolder()
        try Home.writeFile(board.json, to: boardPath)
    }

    /// The board, or `nil` if no request was ever written.
    public static func readBoard() throws -> Board? {
        _ = try checkedFolder()
        guard Home.exists(boardPath) else { return nil }
        let bytes = try Home.readFile(boardPath, limit: 1 << 16)
        do {
            return try Board(json: bytes)
        } catch {
            throw HomeError("\(boardPath): \(error)")
        }
    }

    /// `home/svs/<requester>.json`.
    public static func keyPath(_ requester: String, in home: Home) -> String {
        home.directory + "/svs/\(requester).json"
    }

    /// Keeps a sealed request's key and identifier for its requester (a plain request removes an older key).
    public static func saveRequest(_ request: SVSRequest, requester: String, in home: Home) throws(HomeError) {
        let folder = home.directory + "/svs"
        try Home.makeDirectory(folder, intermediates: false)
        try Home.checkDirectory(folder, ownedByUser: false)
        let path = keyPath(requester, in: home)
        guard let key = request.key, let requestID = request.board.requestID else {
            unlink(path)
            return
        }
        let members: [(key: String, value: JSON)] = [
            ("key", .string(Base64URL.encode(key))), ("request", .string(Base64URL.encode(requestID))),
        ]
        try Home.writeFile(JSON.object(members).serialized(pretty: false), to: path)
    }

    /// Makes `requester`'s request for `sign` and shares it on `board` (the shared board's file unless given):
    /// sealed with a fresh 256-bit key and a 16-byte request identifier, kept in the home until the next request
    /// (``saveRequest(_:requester:in:)``), unless `plain`. Its `SVSRequest.providerURL` opens the provider.
    ///
    /// - Throws: `SVSError` for a request that cannot be made (a sign without a scheme of its own, a requester id
    ///   that is not a URL scheme); ``HomeError`` when its key or the board cannot be written.
    public static func request(
        _ sign: VitalSign, state: RequestState, requester: String, plain: Bool, in home: Home,
        on board: any SharedBoard = SVSFiles.board
    ) throws -> SVSRequest {
        var random = SystemRandomNumberGenerator()
        func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) } }
        let request = try SVSRequest(
            sign: sign, state: state, requester: requester, key: plain ? nil : bytes(SealedAnswer.keySize),
            requestID: plain ? nil : bytes(16))
        try saveRequest(request, requester: requester, in: home)
        try board.write(request.board)
        return request
    }

    /// The key and request identifier `requester` kept, if any.
    public static func savedRequest(_ requester: String, in home: Home) throws -> (key: [UInt8], requestID: [UInt8])? {
        let path = keyPath(requester, in: home)
        guard Home.exists(path) else { return nil }
        let bytes = try Home.readFile(path, limit: 4_096)
        guard case .object(let members)? = try? JSON.parse(bytes),
            case .string(let key)? = members.first(where: { $0.key == "key" })?.value,
            case .string(let request)? = members.first(where: { $0.key == "request" })?.value,
            let keyBytes = Base64URL.decode(key), let requestID = Base64URL.decode(request)
        else { throw HomeError("\(path) is not a saved request") }
        return (keyBytes, requestID)
    }

    /// What `requester` finds for `sign` on the board: the document's table, sealed answers opened with the key it
    /// kept. A board for another request than the one it kept, or one that does not open, is invalid.
    public static func poll(_ sign: VitalSign, requester: String, home: Home) throws -> PollAnswer {
        guard let board = try readBoard() else { throw HomeError("no request on the shared board \(boardPath)") }
        guard let requestID = board.requestID else { return PollAnswer(sign: sign, answer: board.answer) }
        guard let saved = try savedRequest(requester, in: home) else {
            throw HomeError("the board holds a sealed request, and \(requester) kept no key for it")
        }
        guard saved.requestID == requestID else {
            throw HomeError("the board holds another request than the one \(requester) made")
        }
        return PollAnswer(sign: sign, answer: try SealedAnswer.open(board, key: saved.key, requestID: requestID))
    }
}

/// The shared board as a file (``SVSFiles/boardPath``), for the engine's ShareVitalSigns adapter.
public struct FileBoard: SharedBoard {
    /// The board at ``SVSFiles/boardPath``.
    public init() {}

    public var location: String { SVSFiles.boardPath }
    public func read() throws -> Board? { try SVSFiles.readBoard() }
    public func write(_ board: Board) throws { try SVSFiles.writeBoard(board) }
}
