import Foundation
import Testing
import VitalStore
import VitalTestSupport

/// A home written by an earlier release opens with this one, everything in it intact.
@Suite("Upgrade: a home of release 0.14.0")
struct UpgradeTests {
    /// `Tests/Fixtures/home-0.14.0`, made once by release 0.14.0's binary (`make-home-0.14.0.sh`), and what that
    /// release printed of it in `home-0.14.0.expected`.
    static let fixture = Oracles.root.appendingPathComponent("Tests/Fixtures/home-0.14.0").path

    static func expected(_ name: String) throws -> String {
        try String(contentsOfFile: fixture + ".expected/" + name, encoding: .utf8)
    }

    /// A copy of the fixture, to be changed.
    static func copy() throws -> TemporaryDirectory {
        let home = try TemporaryDirectory("vitalbridge-upgrade")
        try FileManager.default.removeItem(atPath: home.path)
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: home.path)
        return home
    }

    /// What `doctor` says of the home's store.
    static func storeLine(_ home: TemporaryDirectory) throws -> String {
        let doctor = try vitalbridge(["doctor", "--home", home.path], environment: DoctorTests.desktop(home.path))
        return doctor.stdout.split(separator: "\n").first { $0.contains("store:") }.map(String.init) ?? doctor.stdout
    }

    @Test(
        "a command that only reads upgrades the home once and answers as after an upgrade by init",
        arguments: [
            ["records", "--format", "json"], ["changes"], ["devices"], ["sink", "status"], ["sink", "push"],
            ["report", "--out", "-"],
        ])
    func readingCommandUpgrades(command: [String]) throws {
        let home = try Self.copy()
        defer { home.remove() }
        let first = try vitalbridge(command + ["--home", home.path])
        #expect(first.status == 0 && first.stderr.isEmpty, "\(command): \(first.stderr)")
        #expect(try Self.storeLine(home).contains("sound, schema \(VitalStore.schemaVersion)"))
        // the ritual it replaces: init, then the command
        let ritual = try Self.copy()
        defer { ritual.remove() }
        #expect(try vitalbridge(["init", "--home", ritual.path]).status == 0)
        let after = try vitalbridge(command + ["--home", ritual.path])
        switch command[0] {
        case "changes":
            // each home made its hub's identity as it upgraded: the changes are the same but for it
            func ops(_ text: String) -> [String] {
                text.split(separator: "\n").map {
                    $0.replacingOccurrences(of: #""cursor":"[^"]*","#, with: "", options: .regularExpression)
                        .replacingOccurrences(of: #""hub":"[^"]*","#, with: "", options: .regularExpression)
                }
            }
            #expect(!first.stdout.isEmpty && ops(first.stdout) == ops(after.stdout))
        case "report":
            #expect(first.stdout.hasPrefix("<!DOCTYPE html>") && after.stdout.hasPrefix("<!DOCTYPE html>"))
        default:
            #expect(first.stdout == after.stdout)
        }
        // the second run finds it upgraded: the same answer
        let second = try vitalbridge(command + ["--home", home.path])
        #expect(second.status == 0 && second.stderr.isEmpty)
        if command[0] != "report" && command[0] != "changes" { #expect(second.stdout == first.stdout) }
    }

    @Test("two commands that only read, started together on an older home, upgrade it once and answer alike")
    func racingUpgrades() throws {
        let home = try Self.copy()
        defer { home.remove() }
        let path = home.path
        // the second waits on the store's lock while the first migrates, then finds it migrated (a second run of a
        // migration would fail on the migrations table's key)
        let commands: [@Sendable () throws -> ProcessOutput] = [
            { try vitalbridge(["records", "--home", path, "--format", "json"]) },
            { try vitalbridge(["devices", "--home", path]) },
            { try vitalbridge(["records", "--home", path, "--format", "json"]) },
        ]
        let outputs = try RacingSyncTests.together(commands).results
        for output in outputs { #expect(output.status == 0 && output.stderr.isEmpty, "\(output.stderr)") }
        #expect(outputs[0].stdout == outputs[2].stdout && !outputs[0].stdout.isEmpty)
        #expect(outputs[1].stdout == (try Self.expected("devices.txt")))
        #expect(try Self.storeLine(home).contains("sound, schema \(VitalStore.schemaVersion)"))
    }

    @Test("a home its user cannot write is refused with one line naming the command that upgrades it, unchanged")
    func unwritableHomeRefused() throws {
        let home = try Self.copy()
        defer {
            _ = chmod(home.path, 0o700)
            home.remove()
        }
        let store = home.file("vitalbridge.sqlite")
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let output: ProcessOutput
        if geteuid() == 0 {
            // root writes through any mode: the home is mounted read-only in a mount namespace of the command's own
            let script = "mount --bind -o ro \"$1\" \"$1\" && exec \"$2\" records --home \"$1\""
            output = try runProgram(
                "/usr/bin/unshare", ["-m", "sh", "-c", script, "sh", home.path, vitalbridgePath.path])
        } else {
            #expect(chmod(home.path, 0o500) == 0)
            output = try vitalbridge(["records", "--home", home.path])
        }
        #expect(output.status == 1 && output.stdout.isEmpty)
        #expect(output.stderr.split(separator: "\n").count == 1, "\(output.stderr)")
        #expect(output.stderr.contains("its schema is 5, older than this release's \(VitalStore.schemaVersion)"))
        #expect(output.stderr.contains("`vitalbridge init --home \(home.path)` upgrades it"), "\(output.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
        // its owner's init upgrades it; then it reads
        _ = chmod(home.path, 0o700)
        #expect(try vitalbridge(["init", "--home", home.path]).status == 0)
        #expect(try vitalbridge(["records", "--home", home.path]).status == 0)
    }

    @Test("its next answers, readings and devices are what 0.14.0 gave: the journal, the pending queue and every row")
    func opensIntact() throws {
        let home = try TemporaryDirectory("vitalbridge-upgrade")
        defer { home.remove() }
        try FileManager.default.removeItem(atPath: home.path)
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: home.path)
        // the first caller was answered everything already; the second, never answered, gets every glucose reading
        let demo = try vitalbridge([
            "open", "--home", home.path,
            "ihealth-layer://?cmd=2&devicemodel=100&mac=004D3208D2F4&ver=100&scheme=vitalbridge-demo",
        ])
        let demoExpected = try Self.expected("sync-demo.txt")
        #expect(demo.status == 0 && demo.stdout == demoExpected, "\(demo.stderr)")
        let other = try vitalbridge([
            "open", "--home", home.path,
            "ihealth-layer://?cmd=2&devicemodel=400&mac=004D3208D308&ver=100&scheme=otherapp",
        ])
        let otherExpected = try Self.expected("sync-other.txt")
        #expect(other.status == 0 && other.stdout == otherExpected, "\(other.stderr)")
        let records = try vitalbridge(["records", "--home", home.path, "--format", "json"])
        let recordsExpected = try Self.expected("records.json")
        #expect(records.status == 0 && records.stdout == recordsExpected, "\(records.stderr)")
        let devices = try vitalbridge(["devices", "--home", home.path])
        let devicesExpected = try Self.expected("devices.txt")
        #expect(devices.status == 0 && devices.stdout == devicesExpected, "\(devices.stderr)")
        let doctor = try vitalbridge(["doctor", "--home", home.path], environment: DoctorTests.desktop(home.path))
        #expect(doctor.status == 0 && doctor.stdout.contains("ok      store: sound"), "\(doctor.stdout)")
    }
}
