import Foundation
import LayeredProtocol
import Testing
import VitalCore
import VitalSimulation
import VitalTestSupport

/// Issue 35 through the real process, from the simulated device's bytes to every output: a fleet file scripts what
/// a Blood Pressure Service monitor says beyond its values, `vitalbridge open` syncs it, and the callback, CSV and
/// FHIR each say it; readings of several users reach only their person's callers.
@Suite("What devices say, from their bytes to every output")
struct WholeTruthTests {
    static let monitor = "004D3208D314"
    static let scale = "004D3208D316"

    /// One scripted blood pressure per special value, each with statuses, and a plain one.
    static let records = """
        {"measuredAt": "2026-11-19 07:00:00", "systolic": "NaN", "diastolic": 80, "pulse": 71, "status": ["bodyMovement"]},
        {"measuredAt": "2026-11-19 08:00:00", "systolic": 125, "diastolic": 81, "pulse": "NRes", "status": ["cuffTooLoose", "improperPosition"]},
        {"measuredAt": "2026-11-19 09:00:00", "systolic": "+INF", "diastolic": 82, "pulse": 73, "status": ["irregularPulse"]},
        {"measuredAt": "2026-11-19 10:00:00", "systolic": 126, "diastolic": "-INF", "pulse": 74, "status": ["pulseRateTooLow"]},
        {"measuredAt": "2026-11-19 11:00:00", "systolic": 127, "diastolic": 84, "pulse": 75, "status": ["pulseRateTooHigh"]},
        {"measuredAt": "2026-11-19 12:00:00", "systolic": 128, "diastolic": 85, "pulse": 76}
        """

    /// What each output must say of the six readings: the callback's flags and unavailable members, the CSV's
    /// flags cell, and the FHIR data-absent reason of the unavailable value.
    static let expected: [(flags: [String]?, unavailable: [String: String]?, csv: String, absent: String?)] = [
        (["bodyMovement"], ["systolic": "NaN"], "bodyMovement systolic=NaN", "not-a-number"),
        (
            ["cuffTooLoose", "improperPosition"], ["heart_rate": "NRes"],
            "cuffTooLoose improperPosition heart_rate=NRes", "error"
        ),
        (["irregularPulse"], ["systolic": "+INF"], "irregularPulse systolic=+INF", "positive-infinity"),
        (["pulseRateTooLow"], ["diastolic": "-INF"], "pulseRateTooLow diastolic=-INF", "negative-infinity"),
        (["pulseRateTooHigh"], nil, "pulseRateTooHigh", nil),
        (nil, nil, "", nil),
    ]

    static func home() throws -> TestHome {
        let fleet = try Fleet(
            json: Array(
                """
                {"devices": [{"model": "BPS", "mac": "\(monitor)", "records": {"list": [\(records)]}}]}
                """.utf8))
        return try TestHome(fleet: fleet)
    }

    @Test("one reading per special value and status: the callback, CSV and FHIR each say it, never a number")
    func everyOutput() throws {
        let home = try Self.home()
        let callback = try home.callback(request(.sync, .bloodPressureMonitor, mac: Self.monitor))
        guard case .list(let objects)? = callback.result else {
            Issue.record("no result in \(callback.url)")
            return
        }
        #expect(objects.count == 6)
        for (object, expected) in zip(objects, Self.expected) {
            #expect(object.strings(.flags) == expected.flags, "\(object)")
            let unavailable = object.object(.unavailable).map { members in
                Dictionary(
                    uniqueKeysWithValues: members.fields.map { field in
                        (field.key.rawValue, members.string(field.key) ?? "?")
                    })
            }
            #expect(unavailable == expected.unavailable, "\(object)")
            for key in expected.unavailable?.keys.sorted() ?? [] {
                #expect(!object.fields.contains { $0.key.rawValue == key }, "\(key) is absent: \(object)")
            }
        }
        // the URL itself never carries a special value's bits as a number (2047, 2048, 2046, 2050)
        for number in ["2047", "2048", "2046", "2050"] { #expect(!callback.url.contains(":\(number)")) }

        let csv = try home.run(["records", "--home", home.path, "--format", "csv"])
        let rows = csv.stdout.split(separator: "\r\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false)
        }
        let header = try #require(rows.first).map(String.init)
        let flags = try #require(header.firstIndex(of: "flags"))
        let systolic = try #require(header.firstIndex(of: "systolic_mmHg"))
        #expect(rows.dropFirst().map { String($0[flags]) } == Self.expected.map(\.csv))
        #expect(rows[1][systolic].isEmpty && rows[3][systolic].isEmpty && rows[2][systolic] == "125")

        let fhir = try home.run(["records", "--home", home.path, "--format", "fhir", "--patient", "Jane Doe"])
        #expect(fhir.status == 0, "\(fhir.stderr)")
        let bundle = try #require(try JSONSerialization.jsonObject(with: Data(fhir.stdout.utf8)) as? [String: Any])
        let resources = (bundle["entry"] as? [[String: Any]] ?? []).compactMap { $0["resource"] as? [String: Any] }
        var reasons: [String] = []
        func collect(_ value: Any) {
            if let object = value as? [String: Any] {
                if let absent = object["dataAbsentReason"] as? [String: Any],
                    let coding = (absent["coding"] as? [[String: Any]])?.first, let code = coding["code"] as? String
                {
                    reasons.append(code)
                    #expect(object["valueQuantity"] == nil)
                }
                object.values.forEach(collect)
            } else if let array = value as? [Any] {
                array.forEach(collect)
            }
        }
        resources.forEach(collect)
        #expect(reasons.sorted() == Self.expected.compactMap(\.absent).sorted())
    }

    /// Minute `minute`'s reading of user `minute % 3 + 1`: a blood pressure on odd minutes, a weight on even ones;
    /// users 1 and 2 weigh the same.
    static func reading(_ minute: Int) -> (device: String, json: String) {
        let time = Timestamp(secondsSince1970: 1_763_000_000 + Int64(minute) * 60)
        let user = minute % 3 + 1
        if minute % 2 == 1 {
            let systolic = 100 + user * 15
            return (
                monitor,
                #"{"measuredAt": "\#(time)", "systolic": \#(systolic), "diastolic": 80, "pulse": 70, "user": \#(user)}"#
            )
        }
        let weight = user == 3 ? "91.5" : "70.0"
        return (scale, #"{"measuredAt": "\#(time)", "weight": \#(weight), "user": \#(user)}"#)
    }

    @Test(
        "three people on a monitor and a scale, 1,000 interleaved readings, two of equal weight: all by index, none to the wrong caller, the unassigned quarantined then released"
    )
    func threePeople() throws {
        let readings = (0..<1_000).map(Self.reading)
        func list(_ device: String) -> String {
            readings.filter { $0.device == device }.map(\.json).joined(separator: ",")
        }
        let fleet = try Fleet(
            json: Array(
                """
                {"devices": [{"model": "BPS", "mac": "\(Self.monitor)", "records": {"list": [\(list(Self.monitor))]}},
                 {"model": "WSS", "mac": "\(Self.scale)", "records": {"list": [\(list(Self.scale))]}}]}
                """.utf8))
        let home = try TestHome(
            fleet: fleet,
            whitelist: ["com.example.ann": "annapp://", "com.example.bob": "bobapp://", "com.example.cid": "cidapp://"])
        // the time of a reading says whose it is
        func user(_ time: String) -> Int {
            Int((Timestamp(parsing: time)!.secondsSince1970 - 1_763_000_000) / 60) % 3 + 1
        }
        /// Everything a sync delivers to `caller` from `device`, callback after callback, by user.
        func drain(_ caller: String, _ device: String) throws -> [Int] {
            let model: DeviceModel = device == Self.monitor ? .bloodPressureMonitor : .weightScale
            let scheme = ["com.example.ann": "annapp", "com.example.bob": "bobapp", "com.example.cid": "cidapp"][
                caller]!
            var users: [Int] = []
            for _ in 0..<20 {
                let url = request(.sync, model, mac: device).replacingOccurrences(
                    of: "scheme=vitalbridge-demo", with: "scheme=\(scheme)")
                let callback = try home.callback(url, "--caller", caller)
                if case .list(let objects)? = callback.result {
                    users += objects.compactMap { $0.string(.measuredAt).map(user) }
                }
                if (callback.remaining ?? 0) == 0 { break }
            }
            return users
        }
        for (name, caller) in [("Ann", "com.example.ann"), ("Bob", "com.example.bob"), ("Cid", "com.example.cid")] {
            #expect(try home.run(["people", "add", "--home", home.path, name]).status == 0)
            #expect(
                try home.run([
                    "whitelist", "add", "--home", home.path, caller, String(caller.dropFirst(12)) + "app://",
                    "--person", name,
                ])
                .status == 0)
        }
        for device in [Self.monitor, Self.scale] {
            for (index, name) in [(1, "Ann"), (2, "Bob")] {
                let assigned = try home.run([
                    "people", "assign", "--home", home.path, "--mac", device, "--user-index", "\(index)", "--person",
                    name,
                ])
                #expect(assigned.status == 0, "\(assigned.stderr)")
            }
        }
        var delivered: [String: [Int]] = [:]
        for caller in ["com.example.ann", "com.example.bob", "com.example.cid"] {
            delivered[caller] = try drain(caller, Self.monitor) + drain(caller, Self.scale)
        }
        let count = { (user: Int) in (0..<1_000).filter { $0 % 3 + 1 == user }.count }
        #expect(delivered["com.example.ann"]!.allSatisfy { $0 == 1 } && delivered["com.example.ann"]!.count == count(1))
        #expect(delivered["com.example.bob"]!.allSatisfy { $0 == 2 } && delivered["com.example.bob"]!.count == count(2))
        #expect(delivered["com.example.cid"]!.isEmpty)
        let held = try home.run(["records", "--home", home.path, "--quarantine", "--format", "json"])
        let quarantined = try #require(try JSONSerialization.jsonObject(with: Data(held.stdout.utf8)) as? [Any])
        #expect(quarantined.count == count(3))

        for device in [Self.monitor, Self.scale] {
            #expect(
                try home.run([
                    "people", "assign", "--home", home.path, "--mac", device, "--user-index", "3", "--person", "Cid",
                ]).status == 0)
        }
        let released = try drain("com.example.cid", Self.monitor) + drain("com.example.cid", Self.scale)
        #expect(released.allSatisfy { $0 == 3 } && released.count == count(3))
        #expect(try drain("com.example.ann", Self.monitor).isEmpty && drain("com.example.bob", Self.scale).isEmpty)
    }
}
