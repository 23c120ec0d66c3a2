import Foundation
import LayeredProtocol
import Testing
import VitalBridge
import VitalCore
import VitalExports
import VitalHome
import VitalStore
import VitalTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// What the hub writes for `records`, `changes` and `report`, and the sources, sinks and requests the CLI hands to
/// it, in process.
@Suite("VitalHome: exports, sources, sinks and requests")
struct ExportsTests {
    static let device = MACAddress("004D3208D308")!

    /// A hub on a new simulated home in `folder`, with `count` glucose readings stored.
    static func hub(in folder: TemporaryDirectory, readings count: Int) throws -> Hub {
        let home = try Home(folder.file("home"), create: true)
        let hub = try Hub(home: home, whitelist: try home.whitelist(), logger: testLogger, report: { _ in })
        let readings = (0..<count).map { index in
            Reading.glucose(
                GlucoseReading(
                    mgPerDeciliter: Double(90 + index),
                    measuredAt: Timestamp(secondsSince1970: 1_763_550_000 + Int64(index) * 60)))
        }
        _ = try hub.store.readings.store(readings, device: device)
        return hub
    }

    /// What `body` writes to a file, as text.
    static func written(in folder: TemporaryDirectory, _ body: (inout ChunkedOutput) throws -> Void) throws -> String {
        let path = folder.file("out-\(UUID().uuidString)")
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #expect(descriptor >= 0)
        var output = ChunkedOutput(descriptor: descriptor)
        try body(&output)
        close(descriptor)
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    @Test("records as JSON: every reading, oldest first, one object each, that a JSON reader reads back")
    func recordsJSON() throws {
        let folder = try TemporaryDirectory("exports")
        defer { folder.remove() }
        let hub = try Self.hub(in: folder, readings: 3)
        let text = try Self.written(in: folder) {
            try hub.writeRecords(.readings, layout: .json, device: nil, since: nil, to: &$0)
        }
        let rows = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]]
        #expect(rows?.count == 3)
        #expect(rows?.compactMap { $0["glucose_mg_dL"] as? Double } == [90, 91, 92])
        let since = try Self.written(in: folder) {
            try hub.writeRecords(
                .readings, layout: .csv(deviceTime: false), device: Self.device,
                since: Timestamp(secondsSince1970: 1_763_550_060), to: &$0)
        }
        #expect(since.split(separator: "\r\n").count == 3, "a header and two rows: \(since)")
    }

    @Test("an output that stops taking bytes ends the listing without an error, and says it closed")
    func closedOutput() throws {
        let folder = try TemporaryDirectory("exports")
        defer { folder.remove() }
        let hub = try Self.hub(in: folder, readings: 2_000)
        // /dev/full refuses every write, as a closed pipe does
        let descriptor = open("/dev/full", O_WRONLY)
        defer { close(descriptor) }
        var output = ChunkedOutput(descriptor: descriptor)
        try hub.writeRecords(.readings, layout: .table, device: nil, since: nil, to: &output)
        #expect(output.closed)
        var direct = ChunkedOutput(descriptor: descriptor)
        #expect(throws: OutputClosed.self) {
            try direct.write(String(repeating: "x", count: 1 << 16))
        }
    }

    @Test("changes: the feed from its start or after a cursor, at most a limit, one line a change")
    func changes() throws {
        let folder = try TemporaryDirectory("exports")
        defer { folder.remove() }
        let hub = try Self.hub(in: folder, readings: 5)
        let all = try Self.written(in: folder) { try hub.writeChanges(after: nil, limit: .max, to: &$0) }
        #expect(all.split(separator: "\n").count == 5)
        let two = try Self.written(in: folder) { try hub.writeChanges(after: nil, limit: 2, to: &$0) }
        #expect(two.split(separator: "\n").count == 2)
        var cursor = try hub.store.feed.start()
        cursor.sequence = 4
        let after = try Self.written(in: folder) { try hub.writeChanges(after: cursor, limit: .max, to: &$0) }
        #expect(after.split(separator: "\n").count == 1)
    }

    @Test("a report counts its readings and names its scope, its times in the zone given")
    func report() throws {
        let folder = try TemporaryDirectory("exports")
        defer { folder.remove() }
        let hub = try Self.hub(in: folder, readings: 4)
        let zone = TimeZone(identifier: "Europe/Berlin")!
        let page = try hub.report(
            units: try ReportUnits(userTexts: ["mmol/L"]), timeZone: zone, device: Self.device, since: nil,
            now: Timestamp(secondsSince1970: 1_763_600_000))
        #expect(page.report.readings == 4)
        #expect(page.subtitle.hasPrefix("Readings of ") && page.subtitle.contains("times in Europe/Berlin"))
        #expect(page.subtitle.hasSuffix("made 2025-11-20 01:53."), "\(page.subtitle)")
        #expect(throws: ReportError.self) { try ReportUnits(userTexts: ["mmol/L", "mg/dL"]) }
        #expect(throws: ReportError.self) { try ReportUnits(userTexts: ["furlong"]) }
    }

    @Test("DDS sources: a source is added, replaced and removed; removing one the home lacks names it")
    func ddsSources() throws {
        let folder = try TemporaryDirectory("exports")
        defer { folder.remove() }
        let home = try Home(folder.file("home"), create: true)
        try DDSSources.update(in: home) { try $0.set("https://www.demoapp.com/dds/", for: "DemoApp") }
        #expect(try DDSSources.load(home).entries == ["DemoApp": "https://www.demoapp.com/dds/"])
        try DDSSources.update(in: home) { try $0.remove("DemoApp") }
        #expect(try DDSSources.load(home).entries.isEmpty)
        #expect {
            try DDSSources.update(in: home) { try $0.remove("Other") }
        } throws: { "\($0)".contains("Other is not a DDS source") }
    }

    @Test("sinks: an address with a password is refused before anything is stored; a sink named that is not one")
    func sinks() throws {
        let folder = try TemporaryDirectory("exports")
        defer { folder.remove() }
        let hub = try Self.hub(in: folder, readings: 3)
        #expect {
            try hub.addSink(named: "clinic", url: "postgresql://hub:secret@db.example.org/health", passwordFile: nil)
        } throws: { !"\($0)".contains("secret") && "\($0)".contains("password") }
        #expect(try hub.store.sinks.all().isEmpty)
        let added = try hub.addSink(named: "local", url: "postgresql://me@localhost/health", passwordFile: nil)
        #expect(added.queued == 3)
        #expect(try hub.sinks(among: []).map(\.name) == ["local"])
        #expect { try hub.sinks(among: ["clinic"]) } throws: { "\($0)".contains("no sink named clinic") }
    }

    @Test("a request in a home that cannot be made answers nothing, saying why")
    func unusableHome() async throws {
        let folder = try TemporaryDirectory("exports")
        defer { folder.remove() }
        try "a file".write(toFile: folder.file("file"), atomically: false, encoding: .utf8)
        let outcome = await Hub.open(
            "ihealth-layer://?cmd=0&devicemodel=100&mac=004D3208D2F4&unit=2&scheme=vitalbridge-demo", platform: .ios,
            caller: nil, scannedQR: nil, home: folder.file("file/home"), transport: TransportChoice(),
            handOff: StandardOutputHandOff(), interrupt: nil, progress: { _ in }, logger: testLogger, report: { _ in })
        guard case .refused(let why) = outcome else {
            Issue.record("answered \(outcome)")
            return
        }
        #expect(why.hasPrefix("cannot use the home folder:"))
    }
}
