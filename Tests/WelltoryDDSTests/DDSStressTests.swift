import Foundation
import Testing
import VitalCore
import WelltoryDDS

/// VitalBridge's mapping of Baevsky's index to Welltory's stress score and colour.
@Suite struct DDSStressTests {
    /// An index of `value`: the mode 1 s and the amplitude 100 %, the range making the value.
    static func index(_ value: Double) -> StressIndex { StressIndex(mode: 1, amplitude: 100, range: 50 / value) }

    @Test(
        "the score is ln(SI/30)/ln(1000/30), held to 0…1, to 0.01; green to 120, yellow to 200, red above",
        arguments: [
            (10.0, 0.0, "green"), (30, 0, "green"), (60, 0.2, "green"), (120, 0.4, "green"), (120.5, 0.4, "yellow"),
            (200, 0.54, "yellow"), (200.5, 0.54, "red"), (500, 0.8, "red"), (1_000, 1, "red"), (5_000, 1, "red"),
        ])
    func scale(value: Double, stress: Double, colour: String) {
        let index = Self.index(value)
        #expect(abs(index.value - value) < 1e-9)
        let score = DDSStress.score(index)
        #expect(score.stress == stress, "SI \(value)")
        #expect(score.colour.description == colour, "SI \(value)")
        // the formula itself, for the values inside the scale
        if (30...1_000).contains(value) {
            #expect(score.stress == (log(value / 30) / log(1_000 / 30) * 100).rounded() / 100)
        }
    }

    @Test("no index (too few intervals, or all equal) has no score and the colour unknown")
    func unknown() {
        let score = DDSStress.score(nil)
        #expect(score.stress == nil && score.colour == .unknown("unknown") && score.colour.meaning == "Unknown")
        #expect(DDSStress.score(StressIndex(nn: Array(repeating: 800, count: 100))).stress == nil)
    }

    @Test("the score rises with the index")
    func monotonic() {
        var previous = -1.0
        for value in stride(from: 1.0, through: 3_000, by: 7) {
            let stress = DDSStress.score(Self.index(value)).stress ?? -2
            #expect(stress >= previous)
            previous = stress
        }
    }
}
