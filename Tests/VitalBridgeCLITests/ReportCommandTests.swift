import Foundation
import LayeredProtocol
import Testing
import VitalStore
import VitalTestSupport

/// `vitalbridge report` as a person sees it: the page rendered by headless Chromium (Debian's `chromium`), its DOM,
/// console and screenshot.
@Suite("vitalbridge report, in Chromium")
struct ReportCommandTests {
    /// Runs headless Chromium with its own profile, console messages logged to stderr (`:CONSOLE:` lines).
    static func chromium(_ arguments: [String]) throws -> ProcessOutput {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: profile) }
        return try runProgram(
            "/usr/bin/chromium",
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
                "--user-data-dir=\(profile)", "--enable-logging=stderr", "--v=0",
            ] + arguments)
    }

    /// The console lines Chromium logged for a page.
    static func consoleLines(_ output: ProcessOutput) -> [Substring] {
        output.stderr.split(separator: "\n").filter { $0.contains(":CONSOLE") }
    }

    /// The SVG of chart `id` in `dom`.
    static func chart(_ id: String, in dom: String) -> Substring? {
        guard let start = dom.range(of: "<svg data-chart=\"\(id)\"") else { return nil }
        guard let end = dom[start.upperBound...].range(of: "</svg>") else { return nil }
        return dom[start.lowerBound..<end.upperBound]
    }

    @Test("Chromium renders the report with no console message; each chart has a point per reading; a screenshot")
    func rendered() throws {
        let home = try FHIRExportTests.home()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("report-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = folder.appendingPathComponent("report.html")
        let made = try home.run(
            [
                "report", "--home", home.path, "--out", page.path, "--unit", "mmol/L", "--unit", "lb", "--time-zone",
                "UTC",
            ])
        #expect(made.status == 0 && made.stderr.contains("wrote \(page.path)"), "\(made.stderr)")
        let mode = try FileManager.default.attributesOfItem(atPath: page.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        let dom = try Self.chromium(["--dump-dom", page.absoluteString])
        #expect(dom.status == 0 && dom.stdout.contains("<h1>Health report</h1>"))
        #expect(Self.consoleLines(dom).isEmpty, "\(Self.consoleLines(dom))")
        let stored = try home.store().readings()
        func count(_ kind: String) -> Int { stored.filter { $0.reading.kind == kind }.count }
        let days = Set(
            stored.compactMap { stored -> Int64? in
                switch stored.reading {
                case .activity(let day): day.date.daysSince1970
                case .band(let day): day.date.daysSince1970
                default: nil
                }
            })
        let expected = [
            "blood-pressure": count("blood_pressure"), "glucose": count("glucose"), "weight": count("weight"),
            "spo2": count("oximetry"), "temperature": count("temperature"), "steps": days.count, "sleep": days.count,
        ]
        for (id, readings) in expected {
            #expect(readings > 0, "\(id)")
            let svg = try #require(Self.chart(id, in: dom.stdout), "\(id)")
            #expect(svg.components(separatedBy: "class=\"point").count - 1 == readings, "\(id)")
        }
        #expect(dom.stdout.contains("<h2>Glucose (mmol/L)</h2>") && dom.stdout.contains("<h2>Weight (lb)</h2>"))

        // the screenshot: a PNG of the page, drawn in the charts' colours
        let png = folder.appendingPathComponent("report.png")
        let shot = try Self.chromium(["--window-size=1200,2400", "--screenshot=\(png.path)", page.absoluteString])
        #expect(shot.status == 0 && Self.consoleLines(shot).isEmpty)
        let pixels = try runProgram(
            Oracles.python(),
            [
                "-c",
                """
                import sys
                from PIL import Image
                image = Image.open(sys.argv[1]).convert("RGB")
                colours = image.getcolors(1 << 24)
                near = lambda c, t: all(abs(a - b) <= 12 for a, b in zip(c, t))
                red = sum(n for n, c in colours if near(c, (200, 69, 59)))
                blue = sum(n for n, c in colours if near(c, (58, 110, 165)))
                print(image.size[0], image.size[1], len(colours), red, blue)
                """,
                png.path,
            ])
        let figures = pixels.stdout.split(separator: " ").compactMap {
            Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        try #require(figures.count == 5, "\(pixels.stderr)")
        #expect(figures[0] == 1200 && figures[1] == 2400)
        // many colours (text, charts), the systolic red and the points' blue among them
        #expect(figures[2] > 100 && figures[3] > 50 && figures[4] > 500, "\(figures)")
    }

    @Test("the console check sees what it looks for: a page with a broken SVG attribute and a blocked load")
    func consoleCheckCanFail() throws {
        let page = FileManager.default.temporaryDirectory.appendingPathComponent("broken-\(UUID()).html")
        try Data(
            """
            <!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'"></head>
            <body><svg viewBox="0 0 10 10"><circle cx="NaN" cy="1" r="2"/></svg><img src="http://example.com/x.png"></body></html>
            """.utf8
        ).write(to: page)
        defer { try? FileManager.default.removeItem(at: page) }
        let output = try Self.chromium(["--dump-dom", page.absoluteString])
        let lines = Self.consoleLines(output)
        #expect(lines.count == 2 && lines.contains { $0.contains("attribute cx") }, "\(lines)")
    }

    @Test("--out - writes to standard output; bad options exit 2 naming the option; a folder that is not there exits 1")
    func options() throws {
        let home = try TestHome()
        _ = try home.callback(request(.addSync, .bp5))
        let stdout = try home.run([
            "report", "--home", home.path, "--out", "-", "--unit", "kPa", "--title", "Jane's <BP>",
        ])
        #expect(stdout.status == 0 && stdout.stdout.hasPrefix("<!DOCTYPE html>"))
        #expect(stdout.stdout.contains("<title>Jane&#39;s &lt;BP&gt;</title>") && stdout.stdout.contains("(kPa)"))
        let cases: [([String], String)] = [
            (["--out", "-", "--unit", "km"], "--unit \"km\": the report has no quantity in km"),
            (["--out", "-", "--unit", "furlong"], "--unit \"furlong\" is not a unit (mmol/L, mg/dL, mmHg, kPa"),
            (
                ["--out", "-", "--unit", "mmol/L", "--unit", "mg/dL"],
                "--unit mmol/L and --unit mg/dL are units of the same quantity"
            ),
            (["--out", "-", "--time-zone", "Nowhere"], "--time-zone \"Nowhere\" is not a time zone"),
            (["--out", "-", "--device", "xyz"], "--device must be 12 hexadecimal digits"),
            (["--out", "-", "--since", "yesterday"], "--since must be yyyy-MM-dd HH:mm:ss"),
            (["--out", ""], "--out must name a file, or - for standard output"),
            ([], "Missing expected argument '--out <out>'"),
        ]
        for (arguments, message) in cases {
            let output = try home.run(["report", "--home", home.path] + arguments)
            #expect(
                output.status == 2 && output.stderr.contains(message) && output.stdout.isEmpty,
                "\(arguments): \(output.stderr)")
        }
        let nowhere = FileManager.default.temporaryDirectory.appendingPathComponent("none-\(UUID())/report.html").path
        let failed = try home.run(["report", "--home", home.path, "--out", nowhere])
        #expect(failed.status == 1 && failed.stderr.contains("cannot write the report"))
        // a link at --out is replaced by the report; what it pointed to is left alone
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("link-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("target.txt")
        try Data("keep".utf8).write(to: target)
        let link = folder.appendingPathComponent("report.html")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        #expect(try home.run(["report", "--home", home.path, "--out", link.path]).status == 0)
        #expect(try String(contentsOf: target, encoding: .utf8) == "keep")
        #expect(try String(contentsOf: link, encoding: .utf8).hasPrefix("<!DOCTYPE html>"))
    }
}
