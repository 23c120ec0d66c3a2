import Foundation
import LayeredProtocol
import TestRequirements
import Testing
import VitalCore
import VitalStore
import VitalTestSupport

/// `vitalbridge devices remove` (issue 53), through the real process.
@Suite("vitalbridge devices remove: a device forgotten, its readings kept or deleted through the feed")
struct DevicesRemoveTests {
    static let mac = macOf(.bp5)

    /// A home whose demo caller synced the BP5's five records.
    static func syncedHome() throws -> TestHome {
        let home = try TestHome()
        #expect(try home.callback(request(.sync, .bp5)).status == .success)
        return home
    }

    /// What `arguments` print on `home`, which must exit 0.
    static func output(_ home: TestHome, _ arguments: [String]) throws -> String {
        let output = try home.run(arguments + ["--home", home.path])
        #expect(output.status == 0, "\(arguments): \(output.stderr)")
        return output.stdout
    }

    /// The readings `records` lists, as JSON objects.
    static func records(_ home: TestHome) throws -> [[String: Any]] {
        let text = try output(home, ["records", "--format", "json"])
        return try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
    }

    @Test("the device leaves the list, its saved state is reset and its lock file kept; its readings stay, unchanged")
    func removes() throws {
        let home = try Self.syncedHome()
        let listed = try Self.output(home, ["devices"])
        #expect(try listed.contains(Self.mac) && listed == Self.output(home, ["devices", "list"]))
        let state = home.path + "/world/\(Self.mac).json"
        #expect(FileManager.default.fileExists(atPath: state))
        let changes = try Self.output(home, ["changes"])

        let removed = try home.run(["devices", "remove", "--home", home.path, Self.mac])
        #expect(removed.status == 0 && removed.stderr.isEmpty, "\(removed.stderr)")
        #expect(removed.stdout == "removed \(Self.mac) (BP5); its 5 readings stay in the store\n")
        #expect(try Self.output(home, ["devices"]).hasPrefix("no devices yet"))
        #expect(!FileManager.default.fileExists(atPath: state))
        #expect(FileManager.default.fileExists(atPath: home.path + "/locks/\(Self.mac).lock"))
        #expect(try Self.records(home).count == 5)
        #expect(try Self.output(home, ["changes"]) == changes)
    }

    @Test("--delete-readings off a terminal without --yes is a usage error naming --yes, and changes nothing")
    func unconfirmed() throws {
        let home = try Self.syncedHome()
        let changes = try Self.output(home, ["changes"])
        let refused = try home.run(["devices", "remove", "--home", home.path, Self.mac, "--delete-readings"])
        #expect(refused.status == 2 && refused.stdout.isEmpty)
        #expect(refused.stderr.contains("--yes"), "\(refused.stderr)")
        #expect(try Self.output(home, ["devices"]).contains(Self.mac))
        #expect(try Self.records(home).count == 5 && Self.output(home, ["changes"]) == changes)
    }

    @Test("--delete-readings --yes: the readings are gone from records and are deletions in changes, with the reason")
    func deletes() throws {
        let home = try Self.syncedHome()
        let end = try home.store().feed.end()
        let removed = try home.run(["devices", "remove", "--home", home.path, Self.mac, "--delete-readings", "--yes"])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout == "removed \(Self.mac) (BP5) and deleted its 5 readings\n")
        #expect(try Self.records(home).isEmpty)
        let deletions = try FeedCommandTests.lines(
            home.run(["changes", "--home", home.path, "--after", end.description]))
        #expect(deletions.map { $0["id"] as? Int } == [1, 2, 3, 4, 5])
        for line in deletions {
            #expect(line["op"] as? String == "delete" && line["device"] as? String == Self.mac)
            #expect(line["reason"] as? String == "device \(Self.mac) removed" && line["reading"] == nil)
        }
    }

    @Test(
        "a request for the removed device answers as for one never added: it is added again, and its records, sent again, are neither stored twice nor delivered again",
        arguments: [false, true])
    func requestedAgain(deleting: Bool) throws {
        let fresh = try TestHome()
        let firstTime = try fresh.callback(request(.sync, .bp5))
        let home = try Self.syncedHome()
        let removed = try home.run(
            ["devices", "remove", "--home", home.path, Self.mac] + (deleting ? ["--delete-readings", "--yes"] : []))
        #expect(removed.status == 0, "\(removed.stderr)")
        let changes = try Self.output(home, ["changes"])

        let again = try home.callback(request(.sync, .bp5))
        #expect(again.status == firstTime.status && again.reason == firstTime.reason && again.mac == firstTime.mac)
        #expect(again.result == .list([]), "the five records were delivered before, or deleted")
        #expect(try Self.output(home, ["devices"]).contains(Self.mac))
        #expect(try Self.records(home).count == (deleting ? 0 : 5))
        #expect(try Self.output(home, ["changes"]) == changes)
    }

    @Test("a MAC the hub does not know exits 1 naming it; a malformed one is a usage error naming the argument")
    func refusals() throws {
        let home = try Self.syncedHome()
        let unknown = try home.run(["devices", "remove", "--home", home.path, "004D3208D399"])
        #expect(unknown.status == 1 && unknown.stdout.isEmpty)
        #expect(unknown.stderr == "004D3208D399 is not a device of this hub\n")
        #expect(!FileManager.default.fileExists(atPath: home.path + "/locks/004D3208D399.lock"))
        let malformed = try home.run(["devices", "remove", "--home", home.path, "004D3208D2FZ"])
        #expect(malformed.status == 2 && malformed.stderr.contains("<mac>"), "\(malformed.stderr)")
        #expect(try Self.output(home, ["devices"]).contains(Self.mac))
    }

    @Test("at a terminal it asks before deleting: no keeps everything, yes deletes", .needs(.python3))
    func asks() throws {
        let home = try Self.syncedHome()
        let question = "Delete the 5 readings of \(Self.mac)? [y/N] "
        let arguments = ["devices", "remove", "--home", home.path, Self.mac, "--delete-readings"]
        let declined = try onTerminal(arguments, answers: [(question, "n\n")])
        #expect(declined.status == 1 && declined.unanswered.isEmpty && declined.stdout.isEmpty)
        #expect(try Self.records(home).count == 5 && Self.output(home, ["devices"]).contains(Self.mac))
        let confirmed = try onTerminal(arguments, answers: [(question, "y\n")])
        #expect(confirmed.status == 0 && confirmed.unanswered.isEmpty)
        #expect(confirmed.stdout == "removed \(Self.mac) (BP5) and deleted its 5 readings\n")
        #expect(try Self.records(home).isEmpty)
    }

    @Test("on a BlueZ home, even without a bus, a device is removed and nothing simulated is touched")
    func bluezHome() throws {
        let home = try TestHome()
        try home.add(.bp5)
        let state = home.path + "/world/\(Self.mac).json"
        let saved = try Data(contentsOf: URL(fileURLWithPath: state))
        #expect(try home.run(["init", "--home", home.path, "--adapter", "hci0"]).status == 0)
        let environment = ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/bus"]
        let removed = try home.run(["devices", "remove", "--home", home.path, Self.mac], environment: environment)
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout == "removed \(Self.mac) (BP5); it had no readings\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: state)) == saved)
        #expect(
            try home.run(["devices", "--home", home.path], environment: environment).stdout.hasPrefix("no devices"))
    }
}
