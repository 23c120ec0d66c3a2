import Foundation
import Testing
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
