import Foundation
import LayeredProtocol
import TestRequirements
import Testing
import VitalCore
import VitalStore
import VitalTestSupport

/// What a device said beyond the values, through the `vitalbridge` process: `records` in CSV, JSON and the table,
/// and a sync's callback, from readings stored with annotations.
@Suite("vitalbridge records and callbacks: statuses and unavailable values")
struct AnnotatedRecordsTests {
    static let since = "2026-12-01 00:00:00"

    static func time(_ minute: Int) -> Timestamp {
        Timestamp(year: 2026, month: 12, day: 1, hour: 8, minute: minute, second: 0)!
    }

    /// One reading per special value (the systolic pressure), one with statuses only, one plain; with the `flags`
    /// cell each must give.
    static let readings: [(reading: Reading, flags: String)] =
        SpecialValue.allCases.enumerated().map { index, special in
            (
                annotated(
                    .bloodPressure(.init(systolic: 0, diastolic: 80, heartRate: 70, measuredAt: time(index))),
                    [(.systolic, special)]),
                "systolic=\(special)"
            )
        } + [
            (
                annotated(
                    .bloodPressure(.init(systolic: 131, diastolic: 0, measuredAt: time(10))), [(.diastolic, .nan)],
                    status: [.bodyMovement, .irregularPulse, .timeUnverified]),
                "bodyMovement irregularPulse timeUnverified diastolic=NaN"
            ),
            (
                annotated(
                    .bloodPressure(.init(systolic: 125, diastolic: 82, measuredAt: time(11))),
                    status: [.cuffTooLoose, .improperPosition]),
                "cuffTooLoose improperPosition"
            ),
            (.bloodPressure(.init(systolic: 119, diastolic: 79, measuredAt: time(12))), ""),
        ]

    /// A home whose BP5 is added and synced, then holds `readings` too.
    static func home() throws -> TestHome {
        let home = try TestHome()
        _ = try home.callback(request(.addSync, .bp5))
        try home.store().readings.store(readings.map(\.reading), device: MACAddress(macOf(.bp5))!)
        return home
    }

    @Test("CSV: an unavailable value's cell is empty, the flags column names it and the statuses", .needs(.python3))
    func csv() throws {
        let home = try Self.home()
        let output = try home.run(["records", "--home", home.path, "--since", Self.since, "--format", "csv"])
        #expect(output.status == 0)
        let header = try #require(output.stdout.components(separatedBy: "\r\n").first)
        #expect(header.hasSuffix(",impedance_ohm,sport_totals,sleep_segments,wave,flags"))
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = [
            "python3", "-c",
            "import csv, json, sys; print(json.dumps(list(csv.DictReader(sys.stdin, strict=True))))",
        ]
        let input = Pipe()
        let result = Pipe()
        python.standardInput = input
        python.standardOutput = result
        try python.run()
        input.fileHandleForWriting.write(Data(output.stdout.utf8))
        try input.fileHandleForWriting.close()
        let data = result.fileHandleForReading.readDataToEndOfFile()
        python.waitUntilExit()
        let rows = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: String]])
        #expect(rows.count == Self.readings.count)
        for (row, expected) in zip(rows, Self.readings) {
            #expect(row["flags"] == expected.flags, "\(row)")
            guard case .bloodPressure(let bp) = expected.reading else { continue }
            let missing = Set(expected.reading.unavailableFields.compactMap { $0.field.column })
            #expect(row["systolic_mmHg"] == (missing.contains(.systolic) ? "" : "\(Int(bp.systolic))"), "\(row)")
            #expect(row["diastolic_mmHg"] == (missing.contains(.diastolic) ? "" : "\(Int(bp.diastolic))"), "\(row)")
        }
    }

    @Test("JSON carries flags and unavailable only where the device said something; the table names them")
    func jsonAndTable() throws {
        let home = try Self.home()
        let json = try home.run(["records", "--home", home.path, "--since", Self.since, "--format", "json"]).stdout
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        #expect(objects.count == Self.readings.count)
        for (object, expected) in zip(objects, Self.readings) {
            let status = expected.reading.annotations.status.names
            #expect((object["flags"] as? [String]) == (status.isEmpty ? nil : status))
            let unavailable = expected.reading.unavailableFields
            if let (field, special) = unavailable.first {
                let name = try #require(field.column?.field)
                #expect((object["unavailable"] as? [String: String]) == [name: special.description])
                #expect(object[field.column!.name] == nil)
            } else {
                #expect(object["unavailable"] == nil)
            }
        }
        #expect(json.contains(#""unavailable":{"systolic":"+INF"}"#))
        let table = try home.run(["records", "--home", home.path, "--since", Self.since]).stdout
        #expect(table.contains("diastolic=80 mmHg, heart_rate=70 bpm, systolic=NaN\n"))
        #expect(table.contains("systolic=131 mmHg, diastolic=NaN [body movement, irregular pulse, time unverified]"))
        for special in SpecialValue.allCases { #expect(table.contains("systolic=\(special)")) }
    }

    @Test("a sync delivers the pending annotated readings: the unavailable key absent, flags and unavailable set")
    func callback() throws {
        let home = try Self.home()
        let callback = try home.callback(request(.sync, .bp5))
        guard case .list(let objects)? = callback.result else {
            Issue.record("no result")
            return
        }
        let delivered = objects.filter { $0.measuredAt.map { $0 >= Self.time(0) } ?? false }
        #expect(delivered == Self.readings.map { $0.reading.resultObject(unit: .mmHg) })
        #expect(delivered[0][.systolic] == nil && delivered[0].object(.unavailable)?.string(.systolic) == "NaN")
        #expect(delivered[5].strings(.flags) == ["bodyMovement", "irregularPulse", "timeUnverified"])
        #expect(delivered[7][.flags] == nil && delivered[7][.unavailable] == nil)
    }

    @Test(
        "the report of such a home renders in Chromium without a console message: a mark per reading, the legend",
        .needs(.chromium))
    func report() throws {
        let home = try Self.home()
        let page = URL(fileURLWithPath: home.path).appendingPathComponent("report.html")
        let made = try home.run(["report", "--home", home.path, "--out", page.path, "--time-zone", "UTC"])
        #expect(made.status == 0, "\(made.stderr)")
        let dom = try ReportCommandTests.chromium(["--dump-dom", page.absoluteString])
        #expect(
            dom.status == 0 && ReportCommandTests.consoleLines(dom).isEmpty, "\(ReportCommandTests.consoleLines(dom))")
        let svg = try #require(ReportCommandTests.chart("blood-pressure", in: dom.stdout))
        let stored = try home.store().readings.all()
        #expect(svg.components(separatedBy: "class=\"point").count - 1 == stored.count)
        // every reading the device said something about is ringed, none of them at a made-up value
        #expect(svg.components(separatedBy: "class=\"point flagged\"").count - 1 == 7)
        #expect(!svg.contains(">0</text>"))
        #expect(dom.stdout.contains("<ul class=\"legend\">") && dom.stdout.contains("systolic=+INF"))
    }
}
