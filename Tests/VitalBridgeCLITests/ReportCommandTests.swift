import Foundation
import LayeredProtocol
import TestRequirements
import Testing
import VitalCore
import VitalStore
import VitalTestSupport

/// `vitalbridge report` as a person sees it: the page rendered by headless Chromium (Debian's `chromium`), its DOM,
/// console and screenshot.
@Suite("vitalbridge report, in Chromium", .needs(.chromium))
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

    @Test(
        "Chromium renders the report with no console message; each chart has a point per reading; a screenshot",
        .needs(.oracles))
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
        let stored = try home.store().readings.all()
        func count(_ kind: String) -> Int { stored.filter { $0.reading.kind.rawValue == kind }.count }
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

    @Test("--device and --since choose the readings a report shows")
    func filters() throws {
        let home = try TestHome()
        _ = try home.callback(request(.addSync, .bp5))
        _ = try home.callback(request(.addSync, .bg5))
        func points(_ arguments: [String]) throws -> [String: Int] {
            let output = try home.run(["report", "--home", home.path, "--out", "-"] + arguments)
            try #require(output.status == 0, "\(output.stderr)")
            var points: [String: Int] = [:]
            for id in ["blood-pressure", "glucose"] {
                points[id] = Self.chart(id, in: output.stdout).map {
                    $0.components(separatedBy: "class=\"point").count - 1
                }
            }
            return points
        }
        let pressures = try home.store().readings.all(device: MACAddress(macOf(.bp5))!)
        let glucose = try home.store().readings.all(device: MACAddress(macOf(.bg5))!)
        try #require(pressures.count >= 3 && glucose.count >= 1)
        #expect(try points([]) == ["blood-pressure": pressures.count, "glucose": glucose.count])
        #expect(try points(["--device", macOf(.bg5)]) == ["glucose": glucose.count])
        let since = pressures[2].reading.measuredAt
        let later = pressures.filter { $0.reading.measuredAt >= since }.count
        #expect(try points(["--device", macOf(.bp5), "--since", since.description]) == ["blood-pressure": later])
    }

    @Test(
        "a report killed as it writes or renames its file leaves the previous report whole; the next run replaces it",
        .needs(.strace))
    func killedWrite() throws {
        let home = try TestHome()
        _ = try home.callback(request(.addSync, .bp5))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("killed-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = folder.appendingPathComponent("report.html")
        try Data("previous report".utf8).write(to: page)
        // the report command writes nothing before its file: its first write() is the report's bytes
        for syscalls in ["write", "rename,renameat,renameat2"] {
            let command =
                "exec strace -f -o /dev/null -e inject=\(syscalls):signal=SIGKILL:when=1 '\(vitalbridgePath.path)' "
                + "report --home '\(home.path)' --out '\(page.path)'"
            let killed = try runProgram("/bin/sh", ["-c", command])
            #expect(killed.status != 0, "\(syscalls)")
            #expect(try String(contentsOf: page, encoding: .utf8) == "previous report", "\(syscalls)")
        }
        // the killed runs' temporary files are removed by the next run, and nothing else of the folder
        let other = folder.appendingPathComponent(".notes.123-abc.tmp")
        try Data().write(to: other)
        // (each run removes the temporary files of the runs before it whose process is gone: one is left here)
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(left.filter { $0.hasPrefix(".report.html.") && $0.hasSuffix(".tmp") }.count == 1 && left.count == 3)
        #expect(try home.run(["report", "--home", home.path, "--out", page.path]).status == 0)
        #expect(try String(contentsOf: page, encoding: .utf8).hasPrefix("<!DOCTYPE html>"))
        #expect(
            Set(try FileManager.default.contentsOfDirectory(atPath: folder.path)) == [
                "report.html", ".notes.123-abc.tmp",
            ])
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
