import Foundation
import LayeredProtocol
import TestRequirements
import Testing
import VitalCore
import VitalSimulation
import VitalStore
import VitalTestSupport

/// A PO3 history's pulse waves through the real process: synced, listed by `records` in every format, exported to
/// FHIR as sampled data; a wave the hub cannot read refused without losing what the store holds.
@Suite("vitalbridge: a PO3 history's pulse waves")
struct PO3WaveCLITests {
    /// A home whose PO3 holds 3 generated records (the first two with a wave), synced.
    static func syncedHome() throws -> TestHome {
        let home = try TestHome(
            fleet: fleet(.po3) {
                $0.records = RecordsScript(
                    generate: GeneratedRecords(count: 3, from: "2026-11-19 07:00:00", to: "2026-11-19 21:00:00"))
            })
        let callback = try home.callback(request(.sync, .po3))
        #expect(callback.status == .success(.sync))
        return home
    }

    static func storedWaves(_ home: TestHome) throws -> [[Int]?] {
        try home.store().readings.all(device: MACAddress(macOf(.po3))!).map { stored in
            guard case .oximetry(let oximetry) = stored.reading else { return nil }
            return oximetry.wave
        }
    }

    @Test("a synced history's waves reach records: a JSON list, space-separated in CSV, a count in the table")
    func records() throws {
        let home = try Self.syncedHome()
        let waves = try Self.storedWaves(home)
        #expect(waves.map { $0?.count } == [18, 18, nil])
        let json = try home.run(["records", "--home", home.path, "--format", "json", "--device", macOf(.po3)])
        #expect(json.status == 0, "\(json.stderr)")
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(objects.map { ($0["wave"] as? [Int]) } == waves)
        let csv = try home.run(["records", "--home", home.path, "--format", "csv", "--device", macOf(.po3)])
        let lines = csv.stdout.split(separator: "\r\n").map(String.init)
        #expect(lines.first?.hasSuffix(",sport_totals,sleep_segments,wave,flags") == true)
        #expect(lines.count == 4)
        // the wave is the column before `flags` (which says the PO3's times are unverified)
        let cells = lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        // (typed step by step: as one expression inside #expect it took the type checker seven seconds)
        let waveCells: [String] = cells.map { String($0[$0.count - 2]) }
        let expected: [String] = waves.map { (wave: [Int]?) -> String in
            guard let wave else { return "" }
            return wave.map { String($0) }.joined(separator: " ")
        }
        #expect(waveCells == expected)
        let table = try home.run(["records", "--home", home.path, "--device", macOf(.po3)])
        #expect(table.stdout.contains("wave=18 samples"), "\(table.stdout)")
    }

    @Test(
        "FHIR gives the wave as the SpO2 observation's SampledData component, as fhir.resources reads it",
        .needs(.oracles))
    func fhir() throws {
        let home = try Self.syncedHome()
        let waves = try Self.storedWaves(home)
        let bundle = try FHIRExportTests.export(home, ["--patient", "Ada"])
        let entries = try FHIRExportTests.oracle(bundle)
        let spO2 = entries.filter { ($0["codes"] as? [String])?.first == "2708-6" }
        #expect(spO2.count == 3)
        let sampled = spO2.map { $0["sampled"] as? [[Any]] ?? [] }
        #expect(sampled.map(\.count) == [1, 1, 0])
        for (components, wave) in zip(sampled, waves) where !components.isEmpty {
            #expect(components[0][0] as? String == "150452")
            let data = try #require(components[0][1] as? [String: Any])
            #expect(data["data"] as? String == wave?.map(String.init).joined(separator: " "))
            #expect(data["period"] as? String == "20")
            #expect(data["dimensions"] as? Int == 1)
            #expect(data["lowerLimit"] as? String == "0" && data["upperLimit"] as? String == "100")
            #expect((data["origin"] as? [String: Any])?["code"] as? String == "%")
        }
    }

    @Test("a wave the radio cuts is refused: the sync fails, stored readings stay, the PO3 keeps its records")
    func badWave() throws {
        let home = try TestHome(
            fleet: fleet(.po3) {
                $0.waveSamples = 40
                $0.records = RecordsScript(
                    generate: GeneratedRecords(count: 3, from: "2026-11-19 07:00:00", to: "2026-11-19 21:00:00"))
            })
        _ = try home.callback(request(.sync, .bp5))
        let before = try home.store().readings.all()
        #expect(!before.isEmpty)
        let output = try home.open(request(.sync, .po3))
        #expect(output.status == 0, "\(output.stderr)")
        let callback = try LayeredCallback(parsing: String(output.stdout.dropLast()))
        #expect(callback.status == ActionStatus(action: .sync, ran: [.fail]), "\(output.stdout)")
        #expect(try home.store().readings.all() == before)
        // nothing was deleted on the PO3: a device that sends a wave that fits gives every record
        let fixed = fleet(.po3) {
            $0.records = RecordsScript(
                generate: GeneratedRecords(count: 3, from: "2026-11-19 07:00:00", to: "2026-11-19 21:00:00"))
        }
        try Data(fixed.json).write(to: URL(fileURLWithPath: home.path + "/fleet.json"))
        let again = try home.callback(request(.sync, .po3))
        #expect(again.status == .success(.sync))
        #expect(try Self.storedWaves(home).map { $0?.count } == [18, 18, nil])
    }

    @Test("a home of schema 8 opens migrated: every reading reads as before, its wave column NULL", .needs(.python3))
    func upgradedHome() throws {
        let home = try MigrationKillTests.fixtureHome()
        defer { home.remove() }
        // the 0.14.0 fixture brought to schema 8: migrated by this release's first answers, then its migrations 9 and
        // 10 taken back
        for url in [MigrationKillTests.demoSync, MigrationKillTests.otherSync] {
            #expect(try vitalbridge(["open", "--home", home.path, url]).status == 0)
        }
        let downgrade = try runProgram(
            "/usr/bin/env",
            [
                "python3", "-c",
                """
                import sqlite3, sys
                c = sqlite3.connect(sys.argv[1])
                c.execute('ALTER TABLE reading DROP COLUMN wave')
                c.execute('ALTER TABLE reading DROP COLUMN sporttotals')
                c.execute('ALTER TABLE reading DROP COLUMN sleepsegs')
                c.execute("DELETE FROM grdb_migrations WHERE identifier LIKE 'v9:%' OR identifier LIKE 'v10:%'")
                c.execute('PRAGMA user_version = 8')
                c.commit()
                """,
                home.file("vitalbridge.sqlite"),
            ])
        try #require(downgrade.status == 0, "\(downgrade.stderr)")
        // a command that only reads upgrades the home first; the next answer finds it upgraded, and nothing else
        // changed
        let read = try vitalbridge(["records", "--home", home.path])
        #expect(read.status == 0 && read.stderr.isEmpty, "\(read.stderr)")
        let again = try vitalbridge(["open", "--home", home.path, MigrationKillTests.demoSync])
        #expect(again.status == 0, "\(again.stderr)")
        let records = try vitalbridge(["records", "--home", home.path, "--format", "json"])
        #expect(records.status == 0, "\(records.stderr)")
        #expect(records.stdout == (try UpgradeTests.expected("records.json")))
        let probe = try runProgram(
            "/usr/bin/env",
            [
                "python3", "-c",
                """
                import sqlite3, sys
                c = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True)
                print(c.execute('PRAGMA user_version').fetchone()[0],
                      c.execute('SELECT count(*), count(wave) FROM reading').fetchone())
                """,
                home.file("vitalbridge.sqlite"),
            ])
        #expect(probe.stdout == "\(VitalStore.schemaVersion) (110, 0)\n", "\(probe.stderr)")
    }
}
