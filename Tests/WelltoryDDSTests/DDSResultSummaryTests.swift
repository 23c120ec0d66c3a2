import Testing
import VitalCore
import WelltoryDDS

/// A DDS callback's parameters as `vitalbridge dds callback` shows them.
@Suite struct DDSResultSummaryTests {
    static let callback =
        "https://demoapp.com/dds/?stress=0.32&energy=0.75&rmssd=90.3&power=100&stress_c=green&energy_c=yellow&visit=7"

    @Test("each parameter in the document's order with its meaning, the extras last")
    func parameters() throws {
        let result = try DDSResult(callback: Self.callback)
        #expect(result.parameters.map(\.name) == ["stress", "energy", "rmssd", "power", "visit"])
        #expect(result.parameters.map(\.value) == ["0.32", "0.75", "90.3", "100", "7"])
        #expect(result.parameters[0].meaning.hasPrefix("green ("))
        #expect(result.parameters[2].meaning == "ms" && result.parameters[3].meaning == "ms²")
        #expect(result.parameters[4].meaning == "echoed")
    }

    @Test("as JSON: numbers as numbers, the colours under their own keys")
    func json() throws {
        let text = String(
            decoding: try DDSResult(callback: Self.callback).json.serialized(pretty: false), as: UTF8.self)
        #expect(text.hasPrefix(#"{"stress":0.32,"energy":0.75,"rmssd":90.3,"power":100,"visit":"7","#))
        #expect(text.hasSuffix(#""stress_c":"green","energy_c":"yellow"}"#))
    }
}
