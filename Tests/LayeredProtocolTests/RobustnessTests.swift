import Testing
import VitalCore
import VitalTestSupport

@testable import LayeredProtocol

@Suite("Robustness")
struct RobustnessTests {
    static let seeds: [UInt64] = [1, 2, 3, 42, 2026]
    static let alphabet = Array("ihealth-layer://?&=%#+;:,cmdmacunitver0123456789ABCDEFabcdef _-.~\"{}[]é😀\u{0}".utf8)

    /// `base` with a few bytes replaced, inserted or removed at random.
    static func mutate(_ base: String, using generator: inout SeededGenerator) -> String {
        var bytes = Array(base.utf8)
        for _ in 0..<Int.random(in: 1...4, using: &generator) {
            let position = Int.random(in: 0...bytes.count, using: &generator)
            let byte = alphabet.randomElement(using: &generator)!
            switch Int.random(in: 0..<3, using: &generator) {
            case 0 where position < bytes.count: bytes[position] = byte
            case 1: bytes.insert(byte, at: position)
            default: if position < bytes.count { bytes.remove(at: position) }
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test("mutated requests either parse or throw a described error, never crash", arguments: seeds)
    func requests(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        let bases = [
            SpecURL.introMeasure, SpecURL.addAndroid, SpecURL.addAM3S, SpecURL.syncAM, SpecURL.dynamic,
            "ihealth-layer://?cmd=0&devicemodel=400&mac=AABBCCDDEEFF&codetype=0&code=02%2B3A",
        ]
        for _ in 0..<2_000 {
            let url = Self.mutate(bases.randomElement(using: &generator)!, using: &generator)
            for platform in Platform.allCases {
                do {
                    let request = try LayeredRequest(parsing: url, platform: platform)
                    // whatever parsed must answer with a callback that parses back
                    let callback = try LayeredCallback(
                        answering: request, destination: "myapp://", status: .success(request.action))
                    #expect(try LayeredCallback(parsing: callback.url) == callback)
                } catch {
                    // one line, and a reason of the protocol's form naming the parameter at fault where it has one
                    #expect(!error.message.isEmpty && !error.description.contains("\n"), "\(url)")
                    #expect(error.reason.rawValue.hasPrefix("ERROR_"), "\(url)")
                    if error.reason.parameter != nil {
                        #expect(error.reason.parameter == error.parameter, "\(url)")
                    }
                }
            }
        }
    }

    @Test("mutated callbacks and result JSON either parse back exactly or throw", arguments: seeds)
    func callbacks(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let object = ResultObject([
            .init(.systolic, .number(.init(120))), .init(.measuredAt, .string("2017-10-10 10:10:10")),
        ])
        let callback = try LayeredCallback(
            destination: "myapp://", echo: [.init(name: "cmd", value: "6")], status: .syncSuccessMeasureSuccess,
            mac: MACAddress("004D3208D2F4"), result: .combined(measure: [object], sync: [object]), remaining: 2)
        for _ in 0..<2_000 {
            let url = Self.mutate(callback.url, using: &generator)
            if let parsed = try? LayeredCallback(parsing: url) {
                #expect(try LayeredCallback(parsing: parsed.url) == parsed)
            }
            let json = Self.mutate(callback.result!.json, using: &generator)
            if let result = try? LayeredResult(json: json) {
                #expect(try LayeredResult(json: result.json) == result)
            }
        }
    }
}
