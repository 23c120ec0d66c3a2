import TestRequirements
import Testing
import VitalCore

@Suite("Baevsky's stress index: by hand, at its edges, and against numpy")
struct StressIndexTests {
    /// `count` intervals of `value` ms.
    static func repeated(_ value: Double, _ count: Int) -> [Double] { Array(repeating: value, count: count) }

    @Test("by hand: 35 of 100 intervals in the 800–850 ms bin, from 700 to 1000 ms")
    func byHand() throws {
        // 35 in [800, 850), 30 in [850, 900), 20 in [750, 800), the shortest 700, the longest 1000
        let nn =
            Self.repeated(812, 20) + Self.repeated(845, 15) + Self.repeated(870, 30)
            + Self.repeated(760, 20) + Self.repeated(950, 13) + [700, 1_000]
        #expect(nn.count == 100)
        let index = try #require(StressIndex(nn: nn))
        #expect(index.mode == 0.825)  // the bin's centre, s
        #expect(index.amplitude == 35)  // %
        #expect(abs(index.range - 0.3) < 1e-12)  // (1000 - 700) ms in s
        // 35 / (2 · 0.825 · 0.3) = 35 / 0.495 = 70.707…
        #expect(abs(index.value - 70.70707070707) < 1e-9)
        #expect(StressIndex(mode: 0.825, amplitude: 35, range: 0.3).value == 35 / 0.495)
    }

    @Test("bins are [low, low + 50): 850 ms is in 850–900; of equally full bins the shortest is the mode")
    func bins() throws {
        // 30 at exactly 850 and 30 at 849.9: two bins, equally full; the mode is the shorter one's centre
        let tied = try #require(StressIndex(nn: Self.repeated(850, 30) + Self.repeated(849.9, 30)))
        #expect(tied.mode == 0.825 && tied.amplitude == 50)
        // one more at 850 makes 850–900 the fullest
        let fuller = try #require(StressIndex(nn: Self.repeated(850, 31) + Self.repeated(849.9, 30)))
        #expect(fuller.mode == 0.875)
        #expect(abs(fuller.amplitude - 31 * 100 / 61.0) < 1e-12)
    }

    @Test("no index under 60 intervals, nor when every interval is the same (the range would be 0)")
    func none() {
        #expect(StressIndex(nn: Self.repeated(800, 59) + [820]) != nil)
        #expect(StressIndex(nn: Self.repeated(800, 58) + [820]) == nil)
        #expect(StressIndex(nn: Self.repeated(800, 500)) == nil)
        #expect(StressIndex(nn: []) == nil)
        #expect(HRVFigures(rr: Self.repeated(800, 500)).stressIndex == nil)
    }

    @Test("a rigid, fast rhythm has a far higher index than a slow, variable one")
    func direction() throws {
        let rigid = try #require(
            StressIndex(
                nn: rrSeries(beats: 300, mean: 520, ectopicEvery: nil, seed: 3).map {
                    520 + ($0 - 520) / 8
                }))
        let relaxed = try #require(StressIndex(nn: rrSeries(beats: 300, mean: 1_050, ectopicEvery: nil, seed: 3)))
        #expect(rigid.value > 10 * relaxed.value)
    }

    @Test(
        "24 series (clean and with ectopic beats, 60 to 1500 beats): the same histogram and index as numpy's",
        .needs(.oracles))
    func againstNumpy() throws {
        var series: [[Double]] = []
        for seed in 0..<24 {
            let beats = [60, 150, 400, 1_500][seed % 4]
            let ectopic: Int? = seed % 3 == 0 ? nil : [40, 12][seed % 2]
            let mean = Double(600 + (seed * 53) % 600)
            let rr = rrSeries(beats: beats * 2, mean: mean, ectopicEvery: ectopic, seed: UInt64(seed) + 100)
            // the mean first, so that the artefact rule never starts from an ectopic beat
            series.append(Array(HRV.accepted([mean] + rr).accepted.prefix(beats)))
            #expect(series.last?.count == beats)
        }
        let expected = try HRVTests.oracle(series, script: "stress.py")
        #expect(expected.count == series.count)
        for (nn, oracle) in zip(series, expected) {
            let index = try #require(StressIndex(nn: nn))
            #expect(abs(index.mode - (oracle["mode"] ?? 0)) < 1e-12, "mode of \(nn.count) intervals")
            #expect(abs(index.amplitude - (oracle["amplitude"] ?? 0)) < 1e-9)
            #expect(abs(index.range - (oracle["range"] ?? 0)) < 1e-12)
            #expect(abs(index.value / (oracle["index"] ?? 1) - 1) < 1e-12, "\(index.value) vs \(oracle["index"] ?? 0)")
        }
    }
}
