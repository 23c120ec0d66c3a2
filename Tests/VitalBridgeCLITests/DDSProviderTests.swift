import Foundation
import LayeredProtocol
import Testing
import VitalCore
import VitalStore
import VitalTestSupport
import WelltoryDDS

@Suite("vitalbridge open vitalbridge://dds/: VitalBridge as a DDS provider")
struct DDSProviderTests {
    static let callback = "https://www.demoapp.com/dds/"

    /// A home with the DDS source DemoApp and, when `sensor`, the built-in heart-rate sensor added.
    static func home(sensor: Bool = true) throws -> TestHome {
        let home = try TestHome()
        if sensor { try home.add(.heartRateSensor) }
        let added = try home.run(["dds", "sources", "add", "--home", home.path, "DemoApp", callback])
        #expect(added.status == 0, "\(added.stderr)")
        return home
    }

    static func link(_ extra: String = "", source: String = "DemoApp", callback: String = callback) -> String {
        "vitalbridge://dds/measurement?source=\(source)&callback=\(DDSEncodingForTests.encode(callback))\(extra)"
    }

    @Test("a registered source gets stress, RMSSD, SDNN and power of the RR series it stored; extras are echoed")
    func measurement() throws {
        let home = try Self.home()
        let output = try home.open(Self.link("&visit=7&duration=180"))
        #expect(output.status == 0, "\(output.stderr)")
        let result = try DDSResult(callback: String(output.stdout.dropLast()))
        #expect(output.stdout.hasPrefix(Self.callback + "?stress="))
        #expect(result.extra.count == 1 && result.extra[0] == ("visit", "7"))
        // no published method computes energy or productivity: they are left out, with their colours
        #expect(result.energy == nil && result.productivity == nil)
        #expect(result.energyColour == nil && result.productivityColour == nil)
        // the figures are those of the stored series
        let stored = try home.store().readings.all()
        guard case .heartRate(let reading)? = stored.last?.reading else {
            Issue.record("no RR series stored")
            return
        }
        let seconds = reading.rrIntervals.reduce(0, +) / 1_000
        #expect(seconds >= 180 && seconds < 182)
        let figures = HRVFigures(rr: reading.rrIntervals)
        #expect(result.rmssd == ((figures.rmssd ?? 0) * 10).rounded() / 10)
        #expect(result.sdnn == ((figures.sdnn ?? 0) * 10).rounded() / 10)
        #expect(result.power == ((figures.power ?? 0) * 10).rounded() / 10)
        // the stress of that series' Baevsky index, as DDSStress maps it
        let index = try #require(figures.stressIndex)
        #expect(result.stress != nil && result.stress == DDSStress.score(index).stress)
        #expect(result.stressColour == DDSStress.score(index).colour)
        // and `vitalbridge hrv` says the same of that series
        let hrv = try vitalbridge(["hrv", "--rr", reading.rrIntervals.map { "\($0)" }.joined(separator: ",")])
        let printed = try #require(try JSONSerialization.jsonObject(with: Data(hrv.stdout.utf8)) as? [String: Double])
        #expect(abs((printed["rmssd"] ?? 0) - (result.rmssd ?? -1)) < 0.06)
        #expect(abs((printed["stress_index"] ?? 0) - index.value) < 0.001)
        // the default is 300 s
        _ = try home.open(Self.link())
        guard case .heartRate(let full)? = try home.store().readings.all().last?.reading else {
            Issue.record("no RR series stored for the default duration")
            return
        }
        #expect(full.rrIntervals.reduce(0, +) >= 300_000)
    }

    @Test("a registered callback URL with a query of its own keeps it: the results follow with &")
    func callbackWithQuery() throws {
        let callback = "notesapp://dds?x=1"
        for sensor in [true, false] {
            let home = try TestHome()
            if sensor { try home.add(.heartRateSensor) }
            let added = try home.run(["dds", "sources", "add", "--home", home.path, "Notes", callback])
            #expect(added.status == 0, "\(added.stderr)")
            let output = try home.open(Self.link("&visit=7&duration=120", source: "Notes", callback: callback))
            #expect(output.status == 0, "\(output.stderr)")
            let result = try DDSResult(callback: String(output.stdout.dropLast()))
            #expect(result.extra.map(\.name) == ["x", "visit"] && result.extra.map(\.value) == ["1", "7"])
            if sensor {
                #expect(output.stdout.hasPrefix(callback + "&stress="), "\(output.stdout)")
                #expect(result.rmssd != nil && result.sdnn != nil && result.power != nil)
            } else {
                #expect(output.stdout == callback + "&error=no_device&visit=7\n")
            }
        }
    }

    @Test("no callback for an unregistered source, another callback URL or another link; bad parameters exit 1")
    func refusals() throws {
        let home = try Self.home()
        let cases: [(String, Int32, String)] = [
            (Self.link(source: "Other"), 3, "no callback: Other is not a registered DDS source"),
            (
                Self.link(callback: "https://evil.example/dds/"), 3,
                "no callback: the callback is not the one registered"
            ),
            (Self.link(callback: Self.callback + "x"), 3, "no callback: the callback is not the one registered"),
            ("vitalbridge://dds/other?source=DemoApp&callback=x", 3, "is not vitalbridge://dds/measurement"),
            ("vitalbridge://dds/measurement?callback=x", 3, "source is required"),
            (Self.link("&duration=119"), 1, "duration must be a whole number of seconds from 120 to 86400, not '119'"),
            (Self.link("&duration=abc"), 1, "duration must be a whole number"),
            (Self.link("&mac=zz"), 1, "mac must be 12 hexadecimal digits"),
        ]
        for (url, status, message) in cases {
            let output = try home.open(url)
            #expect(
                output.status == status && output.stdout.isEmpty && output.stderr.contains(message),
                "\(url): \(output.stderr)")
        }
        #expect(try home.store().readings.all().isEmpty)
    }

    @Test("no sensor of the home can record, or not the one named: a failure callback without values, nothing stored")
    func noSensor() throws {
        for (home, extra, why) in [
            (try Self.home(sensor: false), "", "no heart-rate sensor of the home can measure"),
            (try Self.home(), "&mac=004D3208D2F4", "004D3208D2F4 is not a heart-rate sensor of the home"),
        ] {
            let output = try home.open(Self.link(extra + "&visit=7"))
            #expect(output.status == 0 && output.stderr.contains(why), "\(output.stderr)")
            #expect(output.stdout == Self.callback + "?error=no_device&visit=7\n")
            let result = try DDSResult(callback: String(output.stdout.dropLast()))
            #expect(result.failure == .noDevice && result.rmssd == nil && result.sdnn == nil && result.power == nil)
            #expect(try home.store().readings.all().isEmpty)
        }
    }
}

/// The strict percent-encoding DDS links use, for building requests in tests.
enum DDSEncodingForTests {
    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(
            withAllowedCharacters: CharacterSet(
                charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? text
    }
}
