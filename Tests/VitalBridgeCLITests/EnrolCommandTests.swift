import Foundation
import LayeredProtocol
import TestRequirements
import Testing
import VitalCore
import VitalSimulation
import VitalStore
import VitalTestSupport

/// Issue 54 through the real process: a family scale with a User Data Service holds Ann (user 1, code 1111), Bob
/// (user 2, code 2222), an unclaimed user 3 and a guest's measurement; each person's caller gets exactly their
/// user's readings.
@Suite("vitalbridge people enroll and forget")
struct EnrolCommandTests {
    static let scale = "004D3208D316"

    /// The scale of the example.
    static let fleet = """
        {"devices": [{"model": "\(DeviceModel.weightScale.name)", "mac": "\(scale)",
          "userData": {"slots": 4, "users": [
            {"index": 1, "consent": 1111, "changeIncrement": 1},
            {"index": 2, "consent": 2222, "changeIncrement": 1},
            {"index": 3, "consent": 3333}]},
          "records": {"list": [
            {"measuredAt": "2026-11-19 07:00:00", "weight": 61.5, "user": 1},
            {"measuredAt": "2026-11-19 07:05:00", "weight": 80.5, "user": 2},
            {"measuredAt": "2026-11-19 07:10:00", "weight": 62, "user": 1},
            {"measuredAt": "2026-11-19 07:15:00", "weight": 55, "user": 3},
            {"measuredAt": "2026-11-19 07:20:00", "weight": 70, "user": 255}]}}]}
        """

    /// The weights in kilograms a sync of the scale by `scheme`'s caller delivers.
    static func synced(_ home: TestHome, _ scheme: String) throws -> [String] {
        let url = request(.sync, .weightScale, mac: scale).replacingOccurrences(
            of: "scheme=vitalbridge-demo", with: "scheme=\(scheme)")
        let callback = try home.callback(url)
        #expect(callback.status == .success(.sync))
        guard case .list(let objects) = callback.result else { return [] }
        return objects.compactMap { $0.number(.weight)?.description }
    }

    @Test("the issue's family: claims, a refused code, each caller its own user's readings, forget keeps Bob's")
    func family() throws {
        let home = try TestHome(fleet: Fleet(json: Array(Self.fleet.utf8)))
        func run(_ arguments: String...) throws -> ProcessOutput {
            try home.run(Array(arguments.prefix(2)) + ["--home", home.path] + arguments.dropFirst(2))
        }
        for (person, scheme) in [("Ann", "annapp"), ("Bob", "bobapp"), ("Dee", "deeapp")] {
            #expect(try run("people", "add", person).status == 0)
            #expect(
                try run("whitelist", "add", "com.example.\(scheme)", "\(scheme)://", "--person", person).status == 0)
        }
        try home.add(.weightScale)

        let ann = try run("people", "enroll", "Ann", "--mac", Self.scale, "--user-index", "1", "--consent", "1111")
        #expect(ann.status == 0 && ann.stdout == "Ann is user 1 of \(Self.scale): claimed with its consent code\n")
        let wrong = try run("people", "enroll", "Bob", "--mac", Self.scale, "--user-index", "2", "--consent", "9999")
        #expect(wrong.status == 1 && wrong.stdout.isEmpty)
        #expect(wrong.stderr.hasPrefix("\(Self.scale): the device refused the consent code of user 2"))
        #expect(wrong.stderr.filter { $0 == "\n" }.count == 1 && !wrong.stderr.contains("9999"))
        #expect(try home.store().people.enrolments(on: MACAddress(Self.scale)!).map(\.person) == ["Ann"])
        let bob = try run("people", "enroll", "Bob", "--mac", Self.scale, "--user-index", "2", "--consent", "2222")
        #expect(bob.status == 0, "\(bob.stderr)")

        #expect(try Self.synced(home, "annapp") == ["61.50", "62.00"])
        #expect(try Self.synced(home, "bobapp") == ["80.50"])
        let quarantined = try run("records", "--quarantine")
        #expect(quarantined.stdout.contains("user 255 of \(Self.scale)") && !quarantined.stdout.contains("55 kg"))
        // the consent codes are nowhere a person can see them
        let listed = try run("people", "list")
        #expect(listed.status == 0 && listed.stdout.contains("\(Self.scale)#1(enrolled)"))
        let doctor = try run("doctor")
        for output in [listed, doctor] {
            #expect(
                !output.stdout.contains("1111") && !output.stdout.contains("2222") && !output.stderr.contains("2222"))
        }

        let forget = try run("people", "forget", "Bob", "--mac", Self.scale)
        #expect(forget.status == 0 && forget.stdout.contains("their readings stay theirs"), "\(forget.stderr)")
        #expect(try run("records").stdout.contains("80.5 kg"))
        // the scale registers new users in its free slots: 0, then 2, which was Bob's
        let dee = try run("people", "enroll", "Dee", "--mac", Self.scale)
        #expect(dee.status == 0 && dee.stdout.contains("Dee is user 0 of \(Self.scale): registered as a new user"))
        #expect(dee.stdout.contains("\nconsent code: "))
        #expect(try run("people", "add", "Carl").status == 0)
        let carl = try run("people", "enroll", "Carl", "--mac", Self.scale, "--consent", "4321")
        #expect(carl.stdout == "Carl is user 2 of \(Self.scale): registered as a new user\n", "\(carl.stderr)")
        #expect(try Self.synced(home, "bobapp").isEmpty)
        let people = try run("people", "list").stdout
        #expect(people.contains("\(Self.scale)#2(enrolled until "))
        // Dee's code is the home's: asking again checks it, and shows it no more
        let again = try run("people", "enroll", "Dee", "--mac", Self.scale)
        #expect(
            again.stdout == "Dee is user 0 of \(Self.scale): enrolled already: the device accepted the consent code\n")
    }

    @Test(
        "bad input is refused by name before anything is asked of the device",
        arguments: [
            (["--user-index", "1"], "give its --consent code too"),
            (["--consent", "10000"], "--consent must be 0 to 9999"),
            (["--user-index", "255", "--consent", "1"], "--user-index must be 0 to 254"),
        ])
    func badInput(_ options: [String], _ message: String) throws {
        let home = try TestHome(fleet: Fleet(json: Array(Self.fleet.utf8)))
        let output = try home.run(["people", "enroll", "--home", home.path, "Ann", "--mac", Self.scale] + options)
        #expect(output.status == 2 && output.stderr.contains(message), "\(output.stderr)")
    }

    @Test("a person unknown or not enrolled, a device unknown, bad data: one line each")
    func refusals() throws {
        let home = try TestHome(fleet: Fleet(json: Array(Self.fleet.utf8)))
        #expect(try home.run(["people", "add", "--home", home.path, "Ann"]).status == 0)
        let unknownDevice = try home.run(["people", "enroll", "--home", home.path, "Ann", "--mac", Self.scale])
        #expect(unknownDevice.status == 1 && unknownDevice.stderr.contains("is not a device of this hub"))
        try home.add(.weightScale)
        let unknownPerson = try home.run(["people", "enroll", "--home", home.path, "Zoe", "--mac", Self.scale])
        #expect(unknownPerson.status == 1 && unknownPerson.stderr.contains("no person named Zoe"))
        let notEnrolled = try home.run(["people", "forget", "--home", home.path, "Ann", "--mac", Self.scale])
        #expect(notEnrolled.status == 1 && notEnrolled.stderr.contains("Ann is not enrolled on \(Self.scale)"))
        let born = try home.run(["people", "add", "--home", home.path, "Bob", "--born", "2999-01-01"])
        #expect(born.status == 2 && born.stderr.contains("date of birth 2999-01-01"))
        let height = try home.run(["people", "add", "--home", home.path, "Bob", "--height", "400"])
        #expect(height.status == 2 && height.stderr.contains("height 400 cm"))
        let sex = try home.run(["people", "add", "--home", home.path, "Bob", "--sex", "x"])
        #expect(sex.status == 2 && sex.stderr.contains("the sex x"))
    }

    @Test("people set changes only the values given; none, a bad one or an unknown person: one line")
    func set() throws {
        let home = try TestHome(fleet: Fleet(json: Array(Self.fleet.utf8)))
        func run(_ arguments: String...) throws -> ProcessOutput {
            try home.run([arguments[0], arguments[1], "--home", home.path] + arguments.dropFirst(2))
        }
        #expect(try run("people", "add", "Ann", "--born", "1980-05-17", "--height", "168").status == 0)
        let set = try run("people", "set", "Ann", "--height", "169", "--sex", "female")
        #expect(set.status == 0 && set.stdout == "Ann: born 1980-05-17, 169 cm, female\n", "\(set.stderr)")
        #expect(try run("people", "list").stdout.contains("1980-05-17  169 cm  female"))
        let none = try run("people", "set", "Ann")
        #expect(none.status == 2 && none.stderr.contains("give at least one of --born, --height and --sex"))
        let height = try run("people", "set", "Ann", "--height", "29")
        #expect(height.status == 2 && height.stderr.contains("height 29 cm"))
        let unknown = try run("people", "set", "Zoe", "--height", "170")
        #expect(unknown.status == 1 && unknown.stderr.contains("no person named Zoe"), "\(unknown.stderr)")
        #expect(try run("people", "list").stdout.contains("1980-05-17  169 cm  female"))
    }

    @Test(
        "killed at any write of people enroll, the enrolment is whole with the data it adopted, or not there at all",
        .needs(.strace), arguments: [1, 2, 3, 9, 10, 11])
    func killedEnrolment(write: Int) throws {
        // the built-in scale's user 1 (code 1111) has Ann's data, which a home knowing none of hers adopts; the
        // enrolment is one transaction of 10 writes to the WAL (five frames of a header and a page: the last frame's
        // header at write 9 commits it once its page is written), so the 11th is never reached
        let home = try TestHome()
        #expect(try home.run(["people", "add", "--home", home.path, "Ann"]).status == 0)
        try home.add(.weightScale)
        let enroll = [
            "people", "enroll", "--home", home.path, "Ann", "--mac", Self.scale, "--user-index", "1", "--consent",
            "1111",
        ]
        let process = try runProgram(
            "/usr/bin/env",
            [
                "strace", "-f", "-qq", "-o", "/dev/null", "-P", home.path + "/vitalbridge.sqlite-wal", "-e",
                "trace=pwrite64", "-e", "inject=pwrite64:signal=SIGKILL:when=\(write)", vitalbridgePath.path,
            ] + enroll)
        #expect((process.status != 0) == (write <= 10), "write \(write): \(process.status) \(process.stderr)")
        let store = try home.store()
        #expect(try store.integrityCheck() == "ok")
        func ann() throws -> (enrolments: [Enrolment], profile: PersonProfile?) {
            (
                try store.people.enrolments(on: MACAddress(Self.scale)!),
                try store.people.all().first { $0.name == "Ann" }?.profile
            )
        }
        if try ann().enrolments.isEmpty {
            #expect(try process.status != 0 && ann().profile == PersonProfile(), "write \(write)")
            let again = try home.run(enroll)
            #expect(again.status == 0, "\(again.stderr)")
        }
        let (enrolments, profile) = try ann()
        #expect(enrolments.map(\.person) == ["Ann"] && enrolments.first?.consentCode == 1111, "write \(write)")
        #expect(profile != PersonProfile() && enrolments.first?.profile == profile, "write \(write)")
    }

    @Test(
        "on a BlueZ home whose bus is unreachable, enroll and forget reach no simulated device and assign nothing",
        arguments: [
            ["enroll", "Ann", "--user-index", "1", "--consent", "1111"], ["enroll", "Ann"], ["forget", "Ann"],
        ])
    func bluezHome(command: [String]) throws {
        let home = try TestHome(fleet: Fleet(json: Array(Self.fleet.utf8)))
        #expect(try home.run(["people", "add", "--home", home.path, "Ann"]).status == 0)
        try home.add(.weightScale)
        if command[0] == "forget" {
            try home.store().people.enroll(
                "Ann", device: MACAddress(Self.scale)!, userIndex: 1, consentCode: 1111, changeIncrement: 1)
        }
        let before = try home.store().people.all()
        let output = try home.run(
            ["people", command[0], "--home", home.path, "--mac", Self.scale, "--transport", "bluez"]
                + command.dropFirst(),
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/bus"])
        #expect(output.status == 1 && output.stdout.isEmpty, "\(output.stdout)")
        #expect(output.stderr.split(separator: "\n").count == 1 && !output.stderr.contains("1111"), "\(output.stderr)")
        #expect(try home.store().people.all() == before)
    }
}
