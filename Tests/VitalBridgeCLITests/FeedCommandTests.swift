import Foundation
import LayeredProtocol
import TestRequirements
import Testing
import VitalCore
import VitalStore
import VitalTestSupport

/// `vitalbridge changes` and `vitalbridge records delete`, through the real process.
@Suite("vitalbridge changes and records delete")
struct FeedCommandTests {
    /// The lines `changes` printed, each parsed by Foundation's JSON reader.
    static func lines(_ output: ProcessOutput) throws -> [[String: Any]] {
        #expect(output.status == 0, "\(output.stderr)")
        return try output.stdout.split(separator: "\n").map { line in
            try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
    }

    /// A home with the BP5's five records synced.
    static func syncedHome() throws -> TestHome {
        let home = try TestHome()
        #expect(try home.callback(request(.sync, .bp5)).status == .success)
        return home
    }

    @Test("every line names its cursor, operation, hub, reading id, version and device, with the reading itself")
    func lineFormat() throws {
        let home = try Self.syncedHome()
        let hub = try home.store().hubID()
        let lines = try Self.lines(home.run(["changes", "--home", home.path]))
        #expect(lines.count == 5)
        for (index, line) in lines.enumerated() {
            let sequence = index + 1
            #expect(line["cursor"] as? String == "\(hub):\(sequence)")
            #expect(line["op"] as? String == "insert" && line["hub"] as? String == hub)
            #expect(line["id"] as? Int == sequence && line["version"] as? Int == sequence)
            #expect(line["device"] as? String == macOf(.bp5))
            let reading = try #require(line["reading"] as? [String: Any])
            #expect(reading["kind"] as? String == "blood_pressure" && reading["systolic_mmHg"] is Int)
        }
        // the reading is what records --format json writes
        let records = try #require(
            JSONSerialization.jsonObject(
                with: Data(try home.run(["records", "--home", home.path, "--format", "json"]).stdout.utf8))
                as? [[String: Any]])
        #expect(
            lines.map { NSDictionary(dictionary: $0["reading"] as! [String: Any]) }
                == records.map { NSDictionary(dictionary: $0) })
    }

    @Test("resumed after any cursor it printed, changes prints exactly the lines after it; --limit pages")
    func resume() throws {
        let home = try Self.syncedHome()
        let all = try home.run(["changes", "--home", home.path]).stdout.split(separator: "\n")
        for (index, line) in all.enumerated() {
            let cursor = try #require(
                Self.lines(ProcessOutput(status: 0, stdout: String(line), stderr: ""))[0]["cursor"])
            let rest = try home.run(["changes", "--home", home.path, "--after", "\(cursor)"])
            #expect(rest.status == 0 && rest.stdout.split(separator: "\n") == Array(all[(index + 1)...]))
        }
        let page = try home.run(["changes", "--home", home.path, "--limit", "2"])
        #expect(page.stdout.split(separator: "\n") == Array(all.prefix(2)))
    }

    @Test("a deleted reading is never delivered nor exported again, and the feed carries its deletion with the reason")
    func deletion() throws {
        let home = try Self.syncedHome()
        let before = try home.run(["records", "--home", home.path, "--format", "csv"]).stdout
        let end = try home.store().feed.end()
        let deleted = try home.run([
            "records", "delete", "--home", home.path, "--id", "2", "--reason", "cuff \"too\" loose",
        ])
        #expect(deleted.status == 0 && deleted.stdout == "deleted reading 2\n", "\(deleted.stderr)")
        let lines = try Self.lines(home.run(["changes", "--home", home.path, "--after", end.description]))
        #expect(lines.count == 1)
        #expect(lines[0]["op"] as? String == "delete" && lines[0]["id"] as? Int == 2)
        #expect(lines[0]["reason"] as? String == "cuff \"too\" loose" && lines[0]["reading"] == nil)
        #expect(lines[0]["version"] as? Int == Int(end.sequence) + 1)
        // the whole feed keeps one line per reading: reading 2's is its deletion, last
        let whole = try Self.lines(home.run(["changes", "--home", home.path]))
        #expect(whole.map { $0["id"] as? Int } == [1, 3, 4, 5, 2])
        // gone from records, CSV, FHIR, the report, and from a caller's re-sync from a time
        let csv = try home.run(["records", "--home", home.path, "--format", "csv"]).stdout
        // the header, then readings 1 to 5 in time order: reading 2's row is gone
        let rows = before.split(separator: "\r\n").enumerated().filter { $0.offset != 2 }.map(\.element)
        #expect(csv.split(separator: "\r\n") == rows)
        let store = try home.store()
        let since = try home.callback(request(.sync, .bp5, extra: "&since=2000-01-01%2000:00:00"))
        guard case .list(let objects)? = since.result else {
            Issue.record("no readings re-sent")
            return
        }
        #expect(objects.count == 4)
        #expect(try store.readings.all().map(\.id) == [1, 3, 4, 5])
    }

    @Test(
        "a malformed cursor, another home's, one ahead of the feed, and a bad deletion are refused in one line, exit 1",
        arguments: [
            (["changes", "--after", "nope"], "--after \"nope\" is not a cursor"),
            (["changes", "--after", "00000000-0000-0000-0000-000000000000:1"], "is of another hub"),
            (["changes", "--after", "HUB:99"], "is ahead of this home's feed, which ends at 5"),
            (["changes", "--after", "HUB:-1"], "is not a cursor"),
            (["records", "delete", "--id", "77", "--reason", "typo"], "the store has no reading 77"),
            (["records", "delete", "--id", "1", "--reason", ""], "a deletion needs a reason"),
            (["records", "delete", "--id", "1", "--reason", "two\nlines"], "cannot hold a control character"),
        ])
    func refusals(arguments: [String], message: String) throws {
        let home = try Self.syncedHome()
        let hub = try home.store().hubID()
        let before = try home.run(["changes", "--home", home.path]).stdout
        let output = try home.run(
            arguments.map { $0.replacingOccurrences(of: "HUB", with: hub) } + ["--home", home.path])
        #expect(output.status == 1 && output.stdout.isEmpty)
        #expect(output.stderr.contains(message) && output.stderr.filter { $0 == "\n" }.count == 1, "\(output.stderr)")
        #expect(try home.run(["changes", "--home", home.path]).stdout == before)
    }

    @Test("--limit 0 and a missing --reason are usage errors")
    func usage() throws {
        let home = try Self.syncedHome()
        #expect(try home.run(["changes", "--home", home.path, "--limit", "0"]).status == 2)
        #expect(try home.run(["records", "delete", "--home", home.path, "--id", "1"]).status == 2)
    }

    @Test(
        "killed at any write of records delete, the reading is deleted with its feed line and queue, or not at all",
        .needs(.strace), arguments: 1...8)
    func killedDeletion(write: Int) throws {
        let home = try Self.syncedHome()
        let process = try runProgram(
            "/usr/bin/env",
            [
                "strace", "-f", "-qq", "-o", "/dev/null", "-P", home.path + "/vitalbridge.sqlite-wal", "-e",
                "trace=pwrite64", "-e", "inject=pwrite64:signal=SIGKILL:when=\(write)", vitalbridgePath.path,
                "records", "delete", "--home", home.path, "--id", "3", "--reason", "wrong arm",
            ])
        let store = try home.store()
        #expect(try store.integrityCheck() == "ok")
        let deletion = try store.feed.changes(after: store.feed.start(), limit: 10).first { $0.readingID == 3 }
        let listed = try store.readings.all().contains { $0.id == 3 }
        if process.status == 0 {
            #expect(deletion?.operation == .delete && !listed, "write \(write): exited 0")
        } else {
            // all or nothing
            #expect((deletion?.operation == .delete) == !listed, "write \(write)")
        }
        // and a deletion after the kill is whole
        if listed {
            #expect(
                try home.run(["records", "delete", "--home", home.path, "--id", "3", "--reason", "again"]).status == 0)
            #expect(try !store.readings.all().contains { $0.id == 3 })
        }
    }
}
