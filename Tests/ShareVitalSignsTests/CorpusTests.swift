import Testing
import VitalCore
import VitalTestSupport

@testable import ShareVitalSigns

/// The seeds of `Fuzz/Sources/FuzzSealedBox`, each after the byte that picks what it is there: 0 a board, 1 a
/// provider URL, 2 an answer's plaintext, 3 sealed bytes.
@Suite("Fuzz corpus: ShareVitalSigns")
struct ShareVitalSignsCorpusTests {
    @Test("the seeds are this target's boards, provider URLs and answers, and sealed bytes")
    func seeds() throws {
        let text = Answer(success: true, values: [7: .init(.text("pleth.csv"), quality: Quality(60)!)])
        let answers = [BoardTests.bp, .failure, text].map { JSON.object($0.members).serialized(pretty: false) }
        // sealed bytes of the right shape (version, nonce, ciphertext, tag); a seal's fresh nonce would change the
        // seed on every run
        var board = SealTests.board
        board.sealed =
            [SealedAnswer.version] + [UInt8](repeating: 0, count: 12) + answers[0] + [UInt8](repeating: 0, count: 16)
        let boards =
            [Board(sign: .bp, state: .new, answer: BoardTests.bp).json, board.json]
            + BoardTests.refusedBoards.map { Array($0.0.utf8) }
        let sealed = try SVSRequest(sign: .bp, requester: "caller", key: SealTests.key, requestID: SealTests.requestID)
        let plain = try SVSRequest(sign: .spo2, state: .resume, requester: "other-app", key: nil, requestID: nil)
        var seeds: [(name: String, bytes: [UInt8])] = []
        seeds += boards.enumerated().map { ("board-\($0.offset)", [0] + $0.element) }
        seeds += [sealed, plain].enumerated().map {
            ("provider-\($0.offset)", [1] + Array($0.element.providerURL.utf8))
        }
        seeds += answers.enumerated().map { ("answer-\($0.offset)", [2] + $0.element) }
        seeds.append(("sealed-0", [3] + board.sealed!))
        #expect(try FuzzCorpus.differences("FuzzSealedBox", seeds) == [])
    }
}
