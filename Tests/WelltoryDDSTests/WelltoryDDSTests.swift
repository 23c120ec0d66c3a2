import Foundation
import TestRequirements
import Testing
import VitalTestSupport

@testable import WelltoryDDS

@Suite("DDS links and callbacks")
struct DDSLinkTests {
    @Test("the document's request links: first launch and direct, callback percent-encoded, extras kept in order")
    func requestLinks() throws {
        let request = DDSRequest(source: "DemoApp", callback: "https://www.demoapp.com/dds/")
        #expect(
            request.link(on: DDSRequest.firstLaunchLink)
                == "https://welltory.onelink.me/2180424117/bf497b9?source=DemoApp&callback=https%3A%2F%2Fwww.demoapp.com%2Fdds%2F"
        )
        #expect(
            request.link()
                == "https://welltory.com/action/dds/measurement?source=DemoApp&callback=https%3A%2F%2Fwww.demoapp.com%2Fdds%2F"
        )
        let extended = DDSRequest(
            source: "Demo App", callback: "https://demoapp.com/dds/?user=1", extra: [("visit", "a&b"), ("n", "2")])
        let link = extended.link()
        #expect(
            link.hasSuffix("?source=Demo%20App&callback=https%3A%2F%2Fdemoapp.com%2Fdds%2F%3Fuser%3D1&visit=a%26b&n=2"))
        #expect(try DDSRequest(link: link) == extended)
    }

    /// Request links that are refused, with the error.
    static let badRequestLinks: [(String, String)] = [
        ("https://welltory.com/action/dds/measurement?callback=x", "source is required"),
        ("https://welltory.com/action/dds/measurement?source=A", "callback is required"),
        ("https://welltory.com/action/dds/measurement?source=&callback=x", "source is required"),
        ("https://welltory.com/action/dds/measurement?source=A&source=B&callback=x", "source is given twice"),
        ("https://welltory.com/action/dds/measurement?source=A&callback=%ZZ", "callback is not percent-encoded"),
    ]

    @Test(
        "a request link without source or callback, or with a name twice, is refused naming the parameter",
        arguments: badRequestLinks)
    func badRequests(link: String, message: String) {
        #expect(throws: DDSError.self) { try DDSRequest(link: link) }
        #expect((try? DDSRequest(link: link)) == nil)
        do {
            _ = try DDSRequest(link: link)
        } catch {
            #expect(error.description == message)
        }
    }

    /// The document's callback example.
    static let callback =
        "https://demoapp.com/dds/?stress=0.32&energy=0.75&productivity=0.63&rmssd=90.3&sdnn=45.1&power=100&stress_c=green&productivity_c=red&energy_c=yellow"
    /// The callback URL the refused queries follow.
    static let base = "https://demoapp.com/dds/?"

    @Test("the document's callback example decodes to its values and colours")
    func callbackExample() throws {
        let result = try DDSResult(callback: Self.callback)
        #expect(result.stress == 0.32 && result.energy == 0.75 && result.productivity == 0.63)
        #expect(result.rmssd == 90.3 && result.sdnn == 45.1 && result.power == 100)
        #expect(result.stressColour == .green && result.productivityColour == .red && result.energyColour == .yellow)
        #expect(result.energyColour?.meaning == "Normal" && result.token == nil && result.extra.isEmpty)
        // an unknown colour stays unknown, with its text; extra parameters are kept
        let other = try DDSResult(callback: "https://x/?stress_c=unknown&energy_c=purple&visit=7&token=abc")
        #expect(other.stressColour == .unknown("unknown") && other.energyColour == .unknown("purple"))
        #expect(other.energyColour?.meaning == "Unknown" && other.token == "abc")
        #expect(other.extra.count == 1 && other.extra[0] == ("visit", "7"))
        // what a provider writes reads back the same
        let written = result.callbackURL(on: "https://demoapp.com/dds/?visit=7")
        #expect(written.hasPrefix("https://demoapp.com/dds/?visit=7&stress=0.32&energy=0.75"))
        var expected = result
        expected.extra = [("visit", "7")]
        #expect(try DDSResult(callback: written) == expected)
    }

    /// Callback queries that are refused, with the error.
    static let badCallbackQueries: [(String, String)] = [
        ("stress=1.5", "stress must be a number from 0 to 1, not '1.5'"),
        ("energy=-0.1", "energy must be a number from 0 to 1, not '-0.1'"),
        ("productivity=abc", "productivity must be a number from 0 to 1, not 'abc'"),
        ("rmssd=-3", "rmssd must be a number of at least 0, not '-3'"),
        ("sdnn=nan", "sdnn must be a number of at least 0, not 'nan'"),
        ("power=inf", "power must be a number of at least 0, not 'inf'"),
        ("stress=0.1&stress=0.2", "stress is given twice"),
        // FuzzDDS found these: a raw byte was read, then written back escaped as one the reader refuses (%00)
        ("\0?", "the URL has a byte that is not printable ASCII at offset 25; percent-encode it"),
        ("token=a b", "the URL has a byte that is not printable ASCII at offset 32; percent-encode it"),
        ("token=\u{1B}[2J", "the URL has a byte that is not printable ASCII at offset 31; percent-encode it"),
        ("token=é", "the URL has a byte that is not printable ASCII at offset 31; percent-encode it"),
    ]

    @Test("an out-of-range or non-numeric value is an error naming the parameter", arguments: badCallbackQueries)
    func badCallbacks(query: String, message: String) {
        do {
            _ = try DDSResult(callback: Self.base + query)
            Issue.record("accepted \(query)")
        } catch {
            #expect(error.description == message)
        }
    }
}

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

    /// hrv-analysis's figures for each series.
    static func oracle(_ series: [[Double]]) throws -> [[String: Double]] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Oracles.python())
        process.arguments = [Oracles.script("hrv.py")]
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
