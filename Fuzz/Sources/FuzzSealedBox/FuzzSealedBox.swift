import Crypto
import FuzzCheck
import ShareVitalSigns
import VitalCore

// ShareVitalSigns: the shared board a requester reads, the URL that opens a provider, and the sealed answer. The
// first byte picks what the rest is. Properties: nothing traps; a board and a provider URL that read write back to
// the same; a sealed answer opens only when sealed under the request's key, sign, state and identifier, and what
// opens seals and opens again to the same answer.

private let key = [UInt8](repeating: 0x5A, count: SealedAnswer.keySize)
private let requestID = [UInt8](repeating: 0xA5, count: 16)
private let sealedBoard = Board(sign: .bp, state: .new, requestID: requestID)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSealedBox(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzInput(data, size)
    guard let selector = input.first else { return 0 }
    let rest = Array(input.dropFirst())
    switch selector % 4 {
    case 0: checkBoard(rest)
    case 1: checkProviderURL(fuzzText(rest))
    case 2: checkOpening(plaintext: rest)
    default: checkForgery(rest)
    }
    return 0
}

private func checkBoard(_ json: [UInt8]) {
    guard let board = try? Board(json: json) else { return }
    requireRoundTrip(board, "a board", encode: \.json) { (json: [UInt8]) throws(SVSError) in try Board(json: json) }
}

private func checkProviderURL(_ url: String) {
    guard let provider = try? ProviderURL(parsing: url), let requester = provider.requester else { return }
    guard
        let request = try? SVSRequest(
            sign: provider.sign, requester: requester, key: provider.key,
            requestID: provider.key.map { _ in requestID })
    else { return }
    let again = try? ProviderURL(parsing: request.providerURL)
    require(again == provider, "a provider URL rebuilt by its request reads as another")
}

/// The fuzzer's bytes as the plaintext of a box sealed the way the document's format says (the associated data is
/// `svs1`, the sign as 4 bytes little-endian, the state, the request's identifier), so that what reads the
/// plaintext is reached.
private func checkOpening(plaintext: [UInt8]) {
    var associated = Array("svs1".utf8)
    for shift in stride(from: 0, to: 32, by: 8) {
        associated.append(UInt8((sealedBoard.sign.rawValue >> shift) & 0xFF))
    }
    associated.append(UInt8(sealedBoard.state.rawValue))
    associated += requestID
    guard let box = try? ChaChaPoly.seal(plaintext, using: SymmetricKey(data: key), authenticating: associated) else {
        fatalError("property broken: swift-crypto cannot seal")
    }
    var board = sealedBoard
    board.sealed = [SealedAnswer.version] + Array(box.combined)
    requireRoundTrip(board, "a sealed board", encode: \.json) { (json: [UInt8]) throws(SVSError) in
        try Board(json: json)
    }
    guard let answer = try? SealedAnswer.open(board, key: key, requestID: requestID) else { return }
    var other = Array(requestID)
    other[0] ^= 1
    require((try? SealedAnswer.open(board, key: key, requestID: other)) == nil, "an answer opened for another request")
    guard let sealed = try? SealedAnswer.seal(answer, key: key, for: sealedBoard) else {
        fatalError("property broken: an answer that opened does not seal")
    }
    board.sealed = sealed
    let reopened = try? SealedAnswer.open(board, key: key, requestID: requestID)
    require(reopened == answer, "an answer sealed again opens to another")
}

/// The fuzzer's bytes as a sealed answer nobody sealed: it must not open.
private func checkForgery(_ bytes: [UInt8]) {
    var board = sealedBoard
    board.sealed = bytes
    require((try? SealedAnswer.open(board, key: key, requestID: requestID)) == nil, "bytes nobody sealed opened")
}
