import Testing
import VitalCore

@testable import ShareVitalSigns

@Suite("Vital-sign codes")
struct VitalSignTests {
    @Test(
        "every code, name and scheme of the originals",
        arguments: [
            (1, "HR", "svs-hr", 0), (2, "RR", "svs-rr", 1), (4, "SPO2", "svs-spo2", 2), (8, "TEMP", "svs-temp", 3),
            (16, "BPSYS", "svs-bpsys", 4), (32, "BPDIA", "svs-bpdia", 5), (64, "RRTAPS", "svs-rrtaps", 6),
            (128, "POFILES", "svs-pofiles", 7), (48, "BP", "svs-bp", 5), (5, "PO", "svs-po", 2),
            (66, "RRATE", "svs-rrate", 6),
        ])
    func codes(code: Int, name: String, scheme: String, exponent: Int) {
        let sign = VitalSign(rawValue: code)
        #expect(sign.name == name && sign.scheme == scheme && sign.exponent == exponent)
        #expect(VitalSign(scheme: scheme) == sign && VitalSign(scheme: scheme.uppercased()) == sign)
        #expect(VitalSign(parsing: name) == sign && VitalSign(parsing: "\(code)") == sign)
    }

    @Test("combinations are ORs of their signs; POWITHFILES 133 has no scheme of its own")
    func combinations() {
        #expect(VitalSign.bp == [.bpSys, .bpDia] && VitalSign.bp.rawValue == 48)
        #expect(VitalSign.po.rawValue == 5 && VitalSign.rrate.rawValue == 66)
        #expect(VitalSign.poWithFiles.rawValue == 133 && VitalSign.poWithFiles.name == "POWITHFILES")
        #expect(VitalSign.poWithFiles.scheme == nil && VitalSign.poWithFiles.exponent == 7)
        #expect(VitalSign.bp.basicSigns == [.bpSys, .bpDia])
        #expect(VitalSign(rawValue: 0).exponent == nil)
        #expect(VitalSign(parsing: "0") == nil && VitalSign(parsing: "256") == nil && VitalSign(parsing: "BPX") == nil)
        #expect(VitalSign(scheme: "svs-bpx") == nil)
    }

    @Test(
        "a provider provides a request when it has every requested sign: provider & requested == requested",
        arguments: [
            (48, 48, true), (48, 16, true), (48, 32, true), (16, 48, false), (5, 1, true), (5, 4, true),
            (5, 8, false), (1, 5, false), (255, 133, true), (133, 5, true), (8, 8, true), (66, 64, true),
        ])
    func provides(provider: Int, requested: Int, expected: Bool) {
        #expect(VitalSign(rawValue: provider).provides(VitalSign(rawValue: requested)) == expected)
    }

    @Test("quality is 0 to 100; states are NEW 1 and RESUME 2")
    func qualityAndStates() {
        #expect(Quality(0) != nil && Quality(100) != nil && Quality(-1) == nil && Quality(101) == nil)
        #expect(RequestState.new.rawValue == 1 && RequestState.resume.rawValue == 2)
    }
}

@Suite("The shared board and the polling table")
struct BoardTests {
    static let bp = Answer(
        success: true,
        values: [4: .init(.number(120), quality: Quality(95)!), 5: .init(.number(80), quality: Quality(95)!)])

    @Test("every row of the document's polling table")
    func pollingTable() {
        // no success code: in progress
        #expect(PollAnswer(sign: .bp, answer: nil) == .inProgress)
        // success 0: invalid, values or not
        #expect(PollAnswer(sign: .bp, answer: .failure) == .invalid)
        #expect(PollAnswer(sign: .bpSys, answer: Answer(success: false, values: Self.bp.values)) == .invalid)
        // success 1 without the sign: invalid
        #expect(PollAnswer(sign: .temp, answer: Self.bp) == .invalid)
        // success 1 with it: the value; a combination answers its highest sign
        #expect(PollAnswer(sign: .bpSys, answer: Self.bp) == .value(.number(120), quality: Quality(95)!))
        #expect(PollAnswer(sign: .bp, answer: Self.bp) == .value(.number(80), quality: Quality(95)!))
        let text = Answer(success: true, values: [7: .init(.text("pleth.csv"), quality: Quality(60)!)])
        #expect(PollAnswer(sign: .poFiles, answer: text) == .value(.text("pleth.csv"), quality: Quality(60)!))
    }

    @Test("a plain board is the document's keys and reads back; a sealed one shows no value")
    func json() throws {
        let plain = Board(sign: .bp, state: .new, answer: Self.bp)
        #expect(
            String(decoding: plain.json, as: UTF8.self)
                == #"{"sign":48,"state":1,"success":1,"4":120,"4-qual":95,"5":80,"5-qual":95}"#)
        #expect(try Board(json: plain.json) == plain)
        let sealed = Board(sign: .bp, state: .resume, requestID: Array(0..<16), sealed: [1, 2, 3])
        #expect(try Board(json: sealed.json) == sealed)
        #expect(!String(decoding: sealed.json, as: UTF8.self).contains("120"))
    }

    /// Boards that are not one, with what the error must name.
    static let refusedBoards: [(String, String)] = [
        ("[]", "not a JSON object"), (#"{"state":1}"#, "sign is missing"), (#"{"sign":256,"state":1}"#, "sign"),
        (#"{"sign":48,"state":3}"#, "state"), (#"{"sign":48,"state":1,"success":2}"#, "success must be 0 or 1"),
        (#"{"sign":48,"state":1,"success":1,"5":80}"#, "5-qual is missing"),
        (#"{"sign":48,"state":1,"success":1,"5":80,"5-qual":101}"#, "5-qual must be a quality"),
        (#"{"sign":48,"state":1,"success":1,"5":1.5,"5-qual":1}"#, "5 must be a whole number"),
        (#"{"sign":48,"state":1,"request":"AAAA"}"#, "request is not 16 bytes"),
        (#"{"sign":48,"state":1,"request":"not base64!"}"#, "request is not base64url"),
        (#"{"sign":48,"state":1,"sealed":"AQID"}"#, "sealed has no request"),
        (#"{"sign":48,"state":1,"request":"AAAAAAAAAAAAAAAAAAAAAA","success":1}"#, "sealed board has plain"),
        ("{", "not JSON"),
    ]

    @Test("a board that is not one is refused with a message naming the key", arguments: refusedBoards)
    func refused(text: String, message: String) {
        #expect {
            try Board(json: Array(text.utf8))
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test("base64url round-trips every length and refuses padding, other alphabets and non-canonical ends")
    func base64url() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(($0 * 37 + 11) % 256) }
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Base64URL.decode(text) == bytes)
        }
        #expect(Base64URL.encode(Array("hi?>".utf8)) == "aGk_Pg")
        #expect(Base64URL.decode("aGk/Pg") == nil && Base64URL.decode("aGk_Pg==") == nil)
        #expect(Base64URL.decode("A") == nil && Base64URL.decode("aGk") == Array("hi".utf8))
        #expect(Base64URL.decode("aGl") == nil && Base64URL.decode("aGm") == nil)
    }
}

@Suite("Sealed answers")
struct SealTests {
    static let key = Array(repeating: UInt8(7), count: 32)
    static let requestID = Array(UInt8(0)..<16)
    static var board: Board { Board(sign: .bp, state: .new, requestID: requestID) }

    @Test("an answer sealed for a request opens with its key and identifier, and its bytes show no value")
    func roundTrip() throws {
        var board = Self.board
        board.sealed = try SealedAnswer.seal(BoardTests.bp, key: Self.key, for: board)
        let plaintext = JSON.object(BoardTests.bp.members).serialized(pretty: false)
        #expect(board.sealed?.first == 1 && board.sealed!.count == 1 + 12 + plaintext.count + 16)
        #expect(try SealedAnswer.open(board, key: Self.key, requestID: Self.requestID) == BoardTests.bp)
        #expect(!String(decoding: board.json, as: UTF8.self).contains("120"))
        // two seals of one answer differ: a fresh nonce each
        #expect(try SealedAnswer.seal(BoardTests.bp, key: Self.key, for: board) != board.sealed)
        #expect(try SealedAnswer.open(Self.board, key: Self.key, requestID: Self.requestID) == nil)
    }

    @Test("another key, request, sign or state, a changed byte or another version does not open")
    func tampered() throws {
        var board = Self.board
        board.sealed = try SealedAnswer.seal(BoardTests.bp, key: Self.key, for: board)
        func opens(_ board: Board, key: [UInt8] = SealTests.key, requestID: [UInt8] = SealTests.requestID) -> Bool {
            (try? SealedAnswer.open(board, key: key, requestID: requestID)) != nil
        }
        #expect(opens(board))
        #expect(!opens(board, key: Array(repeating: 8, count: 32)))
        #expect(!opens(board, requestID: Array(UInt8(1)..<17)))
        var other = board
        other.sign = .bpSys
        #expect(!opens(other))
        other = board
        other.state = .resume
        #expect(!opens(other))
        for index in board.sealed!.indices {
            var changed = board
            changed.sealed![index] ^= 0x01
            #expect(!opens(changed), "byte \(index)")
        }
        other = board
        other.sealed = Array(board.sealed!.prefix(20))
        #expect(!opens(other))
        // an answer replayed from an earlier request (its own key and identifier) is refused too
        let earlier = Board(sign: .bp, state: .new, requestID: Array(repeating: 9, count: 16))
        var replayed = board
        replayed.sealed = try SealedAnswer.seal(BoardTests.bp, key: Array(repeating: 5, count: 32), for: earlier)
        #expect(!opens(replayed))
    }

    @Test("a request makes its board and the provider URL; a provider reads them back")
    func request() throws {
        let sealed = try SVSRequest(sign: .bp, requester: "org.example.ward", key: Self.key, requestID: Self.requestID)
        #expect(sealed.providerURL.hasPrefix("svs-bp://?requester=org.example.ward&svskey="))
        let read = try ProviderURL(parsing: sealed.providerURL)
        #expect(read.sign == .bp && read.requester == "org.example.ward" && read.key == Self.key)
        let plain = try SVSRequest(sign: .temp, requester: "ward", key: nil, requestID: nil)
        #expect(plain.providerURL == "svs-temp://?requester=ward" && !plain.board.isSealed)
        #expect(throws: SVSError.self) { try SVSRequest(sign: .poWithFiles, requester: "w", key: nil, requestID: nil) }
        #expect(throws: SVSError.self) { try SVSRequest(sign: .bp, requester: "no scheme", key: nil, requestID: nil) }
        #expect(throws: SVSError.self) { try SVSRequest(sign: .bp, requester: "w", key: Self.key, requestID: nil) }
        for bad in [
            "https://?requester=w", "svs-bp://?requester=w&requester=x", "svs-bp://?svskey=AAAA",
            "svs-bp://?evil=1", "svs-bp", "svs-bp://path?requester=w",
        ] {
            #expect(throws: SVSError.self, "\(bad)") { try ProviderURL(parsing: bad) }
        }
    }
}
