import Foundation
import Testing
import VitalCore
import VitalTestSupport
import WelltoryDDS

@Suite("vitalbridge dds and hrv")
struct DDSCommandTests {
    @Test("hrv prints the library's figures for --rr and --rr-file, and names a bad interval")
    func hrv() throws {
        let series = (0..<300).map { (index: Int) -> Double in
            let wave: Double = 40 * sin(Double(index) * 1.3)
            return 800 + wave + Double(index % 7)
        }
        let figures = HRVFigures(rr: series + [250])
        let text = series.map { (value: Double) -> String in String(format: "%.3f", value) }
        let direct = try vitalbridge(["hrv", "--rr", (text + ["250"]).joined(separator: ",")])
        #expect(direct.status == 0, "\(direct.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(direct.stdout.utf8)) as? [String: Double])
        #expect(object["accepted"] == 300 && object["rejected"] == 1)
        let figuresPrinted = [
            ("rmssd", figures.rmssd!), ("sdnn", figures.sdnn!), ("power", figures.power!),
            ("stress_index", figures.stressIndex!.value),
        ]
        for (key, value) in figuresPrinted {
            #expect(abs(object[key]! - value) <= 0.0005 + 1e-6 * value, "\(key)")
        }
        #expect(
            direct.stdout.hasPrefix("{\"rmssd\": ")
                && direct.stdout.hasSuffix(", \"accepted\": 300, \"rejected\": 1}\n"))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("rr-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: file) }
        try ((text + ["250"]).joined(separator: "\n\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        #expect(try vitalbridge(["hrv", "--rr-file", file.path]).stdout == direct.stdout)
        try "800\n810\nabc\n".write(to: file, atomically: true, encoding: .utf8)
        let bad = try vitalbridge(["hrv", "--rr-file", file.path])
        #expect(bad.status == 1 && bad.stderr == "\(file.path) line 3 ('abc') is not an interval in milliseconds\n")
        let negative = try vitalbridge(["hrv", "--rr", "800,-5"])
        #expect(negative.status == 1 && negative.stderr.contains("--rr item 2 ('-5')"))
        let short = try vitalbridge(["hrv", "--rr", "800"])
        #expect(
            short.stdout
                == #"{"rmssd": null, "sdnn": null, "power": null, "stress_index": null, "accepted": 1, "rejected": 0}"#
                + "\n")
        #expect(try vitalbridge(["hrv"]).status == 2)
    }

    @Test("dds request builds the document's links; dds callback decodes the document's example")
    func links() throws {
        let first = try vitalbridge([
            "dds", "request", "--first", "--source", "DemoApp", "--callback", "https://www.demoapp.com/dds/",
        ])
        #expect(
            first.stdout
                == "https://welltory.onelink.me/2180424117/bf497b9?source=DemoApp&callback=https%3A%2F%2Fwww.demoapp.com%2Fdds%2F\n"
        )
        let extra = try vitalbridge([
            "dds", "request", "--source", "DemoApp", "--callback", "https://www.demoapp.com/dds/", "--extra", "visit=7",
        ])
        #expect(
            extra.stdout.hasPrefix("https://welltory.com/action/dds/measurement?")
                && extra.stdout.hasSuffix("&visit=7\n"))
        let example =
            "https://demoapp.com/dds/?stress=0.32&energy=0.75&productivity=0.63&rmssd=90.3&sdnn=45.1&power=100&stress_c=green&productivity_c=red&energy_c=yellow"
        let json = try vitalbridge(["dds", "callback", "--format", "json", example])
        #expect(
            json.stdout
                == #"{"stress":0.32,"energy":0.75,"productivity":0.63,"rmssd":90.3,"sdnn":45.1,"power":100,"stress_c":"green","energy_c":"yellow","productivity_c":"red"}"#
                + "\n")
        let table = try vitalbridge(["dds", "callback", example])
        #expect(table.stdout.contains("productivity  0.63   red (Bad)"))
        let bad = try vitalbridge(["dds", "callback", "https://demoapp.com/dds/?rmssd=-1"])
        #expect(
            bad.status == 1 && bad.stderr == "invalid DDS callback: rmssd must be a number of at least 0, not '-1'\n")
    }

    @Test("dds callback shows a token's share page with the token percent-encoded again: + stays %2B")
    func shareLink() throws {
        let output = try vitalbridge(["dds", "callback", "https://demoapp.com/dds/?rmssd=90.3&token=abc%2B123"])
        #expect(output.status == 0, "\(output.stderr)")
        let line = try #require(output.stdout.split(separator: "\n").first { $0.hasPrefix("token") })
        #expect(line.hasSuffix("abc+123  https://app.welltory.com/share-measurement?token=abc%2B123"), "\(line)")
        #expect(!output.stdout.contains("token=abc+123"))
        let json = try vitalbridge(["dds", "callback", "--format", "json", "https://x/dds/?token=a%26b%2Bc"])
        #expect(json.stdout == #"{"token":"a&b+c"}"# + "\n")
    }

    @Test(
        "dds callback refuses a callback without any result, exit 1, one line naming what is missing",
        arguments: ["https://demoapp.com/dds/", "https://demoapp.com/dds/?", "https://demoapp.com/dds/?visit=7"])
    func emptyCallback(url: String) throws {
        for format in ["table", "json"] {
            let output = try vitalbridge(["dds", "callback", "--format", format, url])
            #expect(output.status == 1 && output.stdout.isEmpty)
            #expect(
                output.stderr
                    == "invalid DDS callback: the callback carries no result: none of stress, energy, productivity, "
                    + "rmssd, sdnn, power, token, stress_c, energy_c, productivity_c or error\n")
        }
    }

    @Test("dds sources: one exact callback per source, https or a custom app scheme, never plain http")
    func sources() throws {
        let home = try TestHome()
        func sources(_ arguments: String...) throws -> ProcessOutput {
            try home.run(["dds", "sources"] + arguments + ["--home", home.path])
        }
        #expect(try sources("add", "DemoApp", "https://www.demoapp.com/dds/").status == 0)
        #expect(try sources("add", "Diary", "diaryapp://dds").status == 0)
        // a callback URL with a query of its own: the results are appended to it
        #expect(try sources("add", "Notes", "notesapp://dds?x=1").status == 0)
        #expect(try sources("add", "Web", "https://notes.example/dds/?user=1").status == 0)
        for bad in ["http://evil.example/", "https:///nohost", "javascript:alert(1)", "file:///etc/passwd"] {
            let refused = try sources("add", "Evil", bad)
            #expect(refused.status == 1, "\(bad)")
        }
        for (bad, message) in [
            ("evilapp://dds?stress=0.1", "stress is a result parameter; a callback URL's own query cannot have it"),
            ("https://evil.example/dds/?x=1&x=2", "x is given twice"),
            ("evilapp://dds?x=%ZZ", "x is not percent-encoded"),
        ] {
            let refused = try sources("add", "Evil", bad)
            #expect(
                refused.status == 1 && refused.stderr == "\(bad) cannot take the results: \(message)\n",
                "\(bad): \(refused.stderr)")
        }
        let list = try sources("list")
        #expect(list.stdout.contains("DemoApp  https://www.demoapp.com/dds/") && !list.stdout.contains("Evil"))
        #expect(list.stdout.contains("Notes    notesapp://dds?x=1"), "\(list.stdout)")
        #expect(try sources("remove", "Diary").status == 0)
        #expect(try sources("remove", "Diary").status == 1)
        #expect(!(try sources("list")).stdout.contains("Diary"))
    }
}
