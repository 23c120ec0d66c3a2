import Foundation
import TestRequirements
import Testing
import VitalCore
import VitalTestSupport

/// RR series like a resting heart: a mean interval, respiratory sinus arrhythmia (about 0.25 Hz), a slower LF wave
/// (about 0.1 Hz) and noise, with an ectopic beat now and then (a short interval, then a compensatory long one).
func rrSeries(beats: Int, mean: Double, ectopicEvery: Int?, seed: UInt64) -> [Double] {
    var random = SeededGenerator(seed: seed)
    let breathing = Double.random(in: 0.2...0.3, using: &random)
    var time = 0.0
    var series: [Double] = []
    while series.count < beats {
        let rsa = 40 * sin(2 * Double.pi * breathing * time)
        let lf = 25 * sin(2 * Double.pi * 0.1 * time + 1)
        var interval = mean + rsa + lf + Double.random(in: -12...12, using: &random)
        if let every = ectopicEvery, Int.random(in: 0..<every, using: &random) == 0 {
            series.append(interval * 0.6)
            interval *= 1.4
        }
        series.append(interval)
        time += interval / 1_000
    }
    return Array(series.prefix(beats))
}

@Suite("HRV: RMSSD, SDNN and total power against hrv-analysis")
struct HRVTests {
    @Test("the artefact rule: outside 300–2000 ms, or more than 20% from the previous accepted interval")
    func artefacts() {
        let (accepted, rejected) = HRV.accepted([800, 250, 810, 2100, 500, 830, 990, 1000, 1100, 300, 1200])
        // 250 and 2100 are implausible; 500 is -38% from 810; 990 is +19.3% from 830; 300 is -72% from 1100;
        // 1200 is +9% from 1100
        #expect(accepted == [800, 810, 830, 990, 1000, 1100, 1200])
        #expect(rejected == 4)
        #expect(HRV.accepted([299.9, 2000.1]).accepted.isEmpty)
        #expect(HRV.accepted([300, 360, 2000]).accepted == [300, 360])
    }

    @Test("figures of the smallest series: none without two intervals, no power under 4 seconds")
    func small() {
        let none = HRVFigures(rr: [])
        #expect(none.rmssd == nil && none.sdnn == nil && none.power == nil && none.accepted == 0)
        let one = HRVFigures(rr: [100])
        #expect(one.rmssd == nil && one.accepted == 0 && one.rejected == 1)
        let two = HRVFigures(rr: [800, 900])
        #expect(two.rmssd == 100 && two.sdnn == (5_000.0).squareRoot() && two.power == nil && two.accepted == 2)
    }

    /// An oracle's figures for each series: hrv-analysis's (`hrv.py`) or numpy's stress index (`stress.py`).
    static func oracle(_ series: [[Double]], script: String = "hrv.py") throws -> [[String: Double]] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Oracles.python())
        process.arguments = [Oracles.script(script)]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: series))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Double]])
    }

    @Test(
        "24 series (clean, with ectopic beats, short, long): RMSSD and SDNN within 0.1%, power within 10%",
        .needs(.oracles))
    func againstHRVAnalysis() throws {
        var series: [[Double]] = []
        for seed in 0..<24 {
            let beats = [90, 150, 400, 1_500][seed % 4]
            let ectopic: Int? = seed % 3 == 0 ? nil : [40, 12][seed % 2]
            let mean = Double(650 + (seed * 37) % 400)
            let rr = rrSeries(beats: beats, mean: mean, ectopicEvery: ectopic, seed: UInt64(seed) + 1)
            series.append(HRV.accepted(rr).accepted)
        }
        #expect(series.contains { $0.count < 100 } && series.contains { $0.count > 1_000 })
        let expected = try Self.oracle(series)
        #expect(expected.count == series.count)
        var worst = (rmssd: 0.0, power: 0.0)
        defer { print("largest relative differences: rmssd \(worst.rmssd), power \(worst.power)") }
        for (nn, oracle) in zip(series, expected) {
            let mine = HRVFigures(rr: nn)
            #expect(mine.accepted == nn.count && mine.rejected == 0)
            func close(_ value: Double?, _ reference: Double?, _ tolerance: Double) -> Bool {
                guard let value, let reference else { return false }
                return abs(value - reference) <= tolerance * abs(reference)
            }
            #expect(close(mine.rmssd, oracle["rmssd"], 0.001), "rmssd \(mine.rmssd ?? -1) vs \(oracle["rmssd"] ?? -1)")
            #expect(close(mine.sdnn, oracle["sdnn"], 0.001), "sdnn \(mine.sdnn ?? -1) vs \(oracle["sdnn"] ?? -1)")
            #expect(close(mine.power, oracle["power"], 0.10), "power \(mine.power ?? -1) vs \(oracle["power"] ?? -1)")
            worst.rmssd = max(worst.rmssd, abs((mine.rmssd ?? 0) / (oracle["rmssd"] ?? 1) - 1))
            worst.power = max(worst.power, abs((mine.power ?? 0) / (oracle["power"] ?? 1) - 1))
        }
    }
}
