import Foundation
import LayeredProtocol
import Testing
import VitalCore
import VitalStore
import VitalTestSupport

/// `vitalbridge people` and the quarantine, through the real process: a multi-user device's readings reach a
/// caller only once their user index is a person's, and only the callers of that person.
@Suite("vitalbridge people")
struct PeopleCommandTests {
    /// A home whose BP5 holds two readings of user 2 (systolic 177 and 178) that no person is assigned yet.
    static func home() throws -> (TestHome, MACAddress) {
        let home = try TestHome(whitelist: ["com.example.ann": "annapp://"])
        let mac = MACAddress(macOf(.bp5))!
        let readings = [177.0, 178].enumerated().map { index, systolic in
            Reading.bloodPressure(
                BloodPressureReading(
                    systolic: systolic, diastolic: 90, heartRate: 70,
                    measuredAt: Timestamp(secondsSince1970: 1_700_000_000 + Int64(index) * 60),
                    annotations: ReadingAnnotations(userIndex: 2)))
        }
        try home.store().readings.store(readings, device: mac)
        return (home, mac)
    }

    /// The systolic pressures a sync of the BP5 by `scheme`'s caller delivers.
    static func syncedSystolic(_ home: TestHome, scheme: String = "vitalbridge-demo", caller: String? = nil) throws
        -> [String]
    {
        let url = request(.sync, .bp5).replacingOccurrences(of: "scheme=vitalbridge-demo", with: "scheme=\(scheme)")
        let callback = try caller.map { try home.callback(url, "--caller", $0) } ?? home.callback(url)
        guard case .list(let objects) = callback.result else { return [] }
        return objects.compactMap { $0.number(.systolic)?.description }
    }

    @Test("quarantined readings are listed by records --quarantine, never synced, and released by people assign")
    func quarantineAndRelease() throws {
        let (home, mac) = try Self.home()
        let held = try home.run(["records", "--home", home.path, "--quarantine"])
        #expect(held.status == 0, "\(held.stderr)")
        #expect(held.stdout.contains("systolic=177 mmHg") && held.stdout.contains("systolic=178 mmHg"))
        #expect(held.stdout.contains("user 2 of \(mac): 2 readings in quarantine until assigned"))
        #expect(!(try home.run(["records", "--home", home.path]).stdout.contains("systolic=177")))
        #expect(!(try Self.syncedSystolic(home).contains("177")))
        // nor re-sent from a time, nor exported: CSV, FHIR and the report leave it out
        let again = try home.callback(request(.sync, .bp5, extra: "&since=2000-01-01%2000:00:00"))
        if case .list(let objects)? = again.result {
            #expect(!objects.contains { $0.number(.systolic)?.description == "177" })
        }
        let csv = try home.run(["records", "--home", home.path, "--format", "csv"])
        #expect(csv.status == 0 && !csv.stdout.contains(",177,"))
        let fhir = try home.run(["records", "--home", home.path, "--format", "fhir", "--patient", "Ann"])
        #expect(fhir.status == 0 && !fhir.stdout.contains("\"value\":177"), "\(fhir.stderr)")
        let report = try home.run(["report", "--home", home.path, "--out", "-"])
        #expect(report.status == 0 && !report.stdout.contains("177"), "\(report.stderr)")

        #expect(try home.run(["people", "add", "--home", home.path, "Ann"]).stdout == "added Ann\n")
        let assigned = try home.run([
            "people", "assign", "--home", home.path, "--mac", mac.description, "--user-index", "2", "--person", "Ann",
        ])
        #expect(assigned.status == 0 && assigned.stdout == "user 2 of \(mac) is Ann: 2 readings released\n")
        // the home's one person: the demo caller, naming none, receives hers, with their own times
        #expect(Array(try Self.syncedSystolic(home).prefix(2)) == ["177", "178"])
        #expect(try home.run(["records", "--home", home.path]).stdout.contains("systolic=177 mmHg"))
        #expect(try home.run(["records", "--home", home.path, "--format", "csv"]).stdout.contains(",177,"))
        let exported = try home.run(["records", "--home", home.path, "--format", "fhir", "--patient", "Ann"]).stdout
        #expect(exported.contains("\"value\":177"))
        #expect(try home.run(["report", "--home", home.path, "--out", "-"]).stdout.contains("177"))
        #expect(!(try home.run(["records", "--home", home.path, "--quarantine"]).stdout.contains("systolic=177")))
        let list = try home.run(["people", "list", "--home", home.path])
        #expect(list.stdout.contains("Ann") && list.stdout.contains("\(mac)#2"))
    }

    @Test("a caller naming a person receives only that person's readings; a second person stops the default")
    func callersOfPeople() throws {
        let (home, mac) = try Self.home()
        for name in ["Ann", "Bob"] { _ = try home.run(["people", "add", "--home", home.path, name]) }
        _ = try home.run([
            "people", "assign", "--home", home.path, "--mac", mac.description, "--user-index", "2", "--person", "Bob",
        ])
        let added = try home.run([
            "whitelist", "add", "--home", home.path, "com.example.ann", "annapp://", "--person", "Ann",
        ])
        #expect(added.status == 0 && added.stdout == "com.example.ann → annapp:// (the readings of Ann)\n")
        #expect(try home.run(["whitelist", "list", "--home", home.path]).stdout.contains("Ann"))
        // Ann's caller never gets Bob's; the demo caller names no one in a home of two: neither
        #expect(!(try Self.syncedSystolic(home, scheme: "annapp", caller: "com.example.ann").contains("177")))
        #expect(!(try Self.syncedSystolic(home).contains("177")))
        _ = try home.run(["whitelist", "add", "--home", home.path, "com.example.bob", "bobapp://", "--person", "Bob"])
        #expect(
            Array(try Self.syncedSystolic(home, scheme: "bobapp", caller: "com.example.bob").prefix(2)) == [
                "177", "178",
            ])
    }

    @Test(
        "bad people commands are refused with one line naming what was wrong, and change nothing",
        arguments: [
            (["people", "add", ""], 1, "a person's name cannot be empty"),
            (["people", "add", "Ann"], 1, "has a person named Ann already"),
            (["people", "assign", "--mac", "XYZ", "--user-index", "1", "--person", "Ann"], 2, "--mac must be"),
            (["people", "assign", "--mac", "004D3208D2F4", "--user-index", "256", "--person", "Ann"], 2, "0 to 255"),
            (
                ["people", "assign", "--mac", "004D3208D2F4", "--user-index", "1", "--person", "Zoe"], 1,
                "no person named Zoe"
            ),
            (["people", "unassign", "--mac", "004D3208D2F4", "--user-index", "9"], 1, "is not assigned"),
            (["people", "remove", "Zoe"], 1, "no person named Zoe"),
            (["whitelist", "add", "com.example.zoe", "zoeapp://", "--person", "Zoe"], 1, "no person named Zoe"),
            (["records", "--quarantine", "--format", "csv"], 2, "not exported"),
            (["records", "--quarantine", "--format", "fhir", "--patient", "A"], 2, "not exported"),
        ] as [([String], Int32, String)])
    func refused(_ arguments: [String], _ status: Int32, _ message: String) throws {
        let (home, _) = try Self.home()
        _ = try home.run(["people", "add", "--home", home.path, "Ann"])
        let before = try home.run(["people", "list", "--home", home.path]).stdout
        let whitelist = try home.run(["whitelist", "list", "--home", home.path]).stdout
        let output = try home.run(Array(arguments.prefix(2)) + ["--home", home.path] + arguments.dropFirst(2))
        #expect(output.status == status, "\(arguments): \(output.stderr)")
        #expect(output.stderr.contains(message), "\(arguments): \(output.stderr)")
        #expect(output.stdout.isEmpty)
        #expect(try home.run(["people", "list", "--home", home.path]).stdout == before)
        #expect(try home.run(["whitelist", "list", "--home", home.path]).stdout == whitelist)
    }
}
