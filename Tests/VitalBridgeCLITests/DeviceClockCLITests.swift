import Foundation
import LayeredProtocol
import Testing
import VitalCore
import VitalSimulation
import VitalStore
import VitalTestSupport

/// Devices whose clocks are off, through the real `vitalbridge` process: `open` syncs them, and `records` (table,
/// JSON, CSV with --device-time) and its FHIR export give each reading's true time within 2 s, the device's own
/// time beside it where the two differ.
@Suite("Device clocks through vitalbridge")
struct DeviceClockCLITests {
    /// The models synced: a push monitor and a Record Access Control Point meter of the built-in fleet.
    static let models: [DeviceModel] = [.bp5, .bg5]

    /// The built-in fleet with the clocks of ``models`` `offset` seconds ahead, or reset.
    static func fleet(offset: Int?, reset: Bool? = nil) -> Fleet {
        var fleet = Fleet.default
        for index in fleet.devices.indices
        where Self.models.contains(where: { $0.name == fleet.devices[index].model }) {
            fleet.devices[index].clockOffset = offset
            fleet.devices[index].clockReset = reset
        }
        return fleet
    }

    /// The true times of `model`'s records in `fleet`, in seconds since 1970, oldest first.
    static func trueTimes(_ fleet: Fleet, _ model: DeviceModel) async throws -> [Int64] {
        let world = try SimulatedWorld(fleet: fleet, start: Timestamp(parsing: "2026-11-20 08:00:00")!)
        return await world.storedReadings(of: MACAddress(macOf(model))!).map(\.measuredAt.secondsSince1970).sorted()
    }

    /// Syncs ``models`` on a home of `fleet`; returns the home.
    static func synced(_ fleet: Fleet) throws -> TestHome {
        let home = try TestHome(fleet: fleet)
        for model in models {
            let callback = try home.callback(request(.addSync, model))
            #expect(
                callback.status == ActionStatus(action: .addSync, ran: [.success, .success]),
                "\(model): \(callback.reason?.rawValue ?? "")")
        }
        return home
    }

    /// `records --format json` of `model`: each row's time and device time, oldest first.
    static func jsonTimes(_ home: TestHome, _ model: DeviceModel) throws -> [(time: Int64, device: Int64?)] {
        let output = try home.run(["records", "--home", home.path, "--format", "json", "--device", macOf(model)])
        try #require(output.status == 0, "\(output.stderr)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[String: Any]])
        func seconds(_ text: Any?) -> Int64? {
            (text as? String).flatMap { Timestamp(parsing: $0) }?.secondsSince1970
        }
        return rows.map { (seconds($0["measured_at_utc"]) ?? -1, seconds($0["device_time_utc"])) }
            .sorted { $0.time < $1.time }
    }

    /// The effectiveDateTime of every Observation of `model` in the FHIR export, in seconds since 1970, sorted.
    static func fhirTimes(_ home: TestHome, _ model: DeviceModel) throws -> [Int64] {
        let output = try home.run([
            "records", "--home", home.path, "--format", "fhir", "--patient", "A", "--device", macOf(model),
            "--time-zone", "Asia/Kolkata",
        ])
        try #require(output.status == 0, "\(output.stderr)")
        let bundle = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        let resources = (bundle["entry"] as? [[String: Any]] ?? []).compactMap { $0["resource"] as? [String: Any] }
        return resources.filter { $0["resourceType"] as? String == "Observation" }.compactMap { observation in
            (observation["effectiveDateTime"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) }.map {
                Int64($0.timeIntervalSince1970)
            }
        }.sorted()
    }

    @Test(
        "a clock −48 h to +48 h off: records and FHIR give the true time within 2 s, records the device's beside it",
        arguments: [-172_800, -3600, -1, 0, 1, 7200, 172_800])
    func offsets(offset: Int) async throws {
        let fleet = Self.fleet(offset: offset)
        let home = try Self.synced(fleet)
        for model in Self.models {
            let truth = try await Self.trueTimes(fleet, model)
            let rows = try Self.jsonTimes(home, model)
            try #require(rows.count == truth.count && !truth.isEmpty, "\(model)")
            for (row, time) in zip(rows, truth) {
                #expect(abs(row.time - time) <= 2, "\(model) \(offset)")
                #expect(row.device == (offset == 0 ? nil : time + Int64(offset)), "\(model) \(offset)")
            }
            let effective = try Self.fhirTimes(home, model)
            #expect(!effective.isEmpty)
            // every Observation is of one of the readings, at its corrected time
            #expect(effective.allSatisfy { time in truth.contains { abs($0 - time) <= 2 } }, "\(model) \(offset)")
        }
    }

    @Test("a clock reset to 2000-01-01 at the first record: the records land at their true times")
    func resetClock() async throws {
        let fleet = Self.fleet(offset: nil, reset: true)
        let home = try Self.synced(fleet)
        for model in Self.models {
            let truth = try await Self.trueTimes(fleet, model)
            let rows = try Self.jsonTimes(home, model)
            try #require(rows.count == truth.count && !truth.isEmpty)
            for (row, time) in zip(rows, truth) {
                #expect(abs(row.time - time) <= 2)
                #expect(row.device == 946_684_800 + time - truth[0])
            }
            #expect(try Self.fhirTimes(home, model).allSatisfy { time in truth.contains { abs($0 - time) <= 2 } })
        }
    }

    @Test("records shows the device's time only with a reading that has one; CSV adds its column on request")
    func recordsForms() throws {
        let home = try Self.synced(Self.fleet(offset: 7200))
        _ = try home.callback(request(.addSync, .thv3))
        let bg5 = macOf(.bg5)
        let table = try home.run(["records", "--home", home.path, "--device", bg5]).stdout
        #expect(table.split(separator: "\n").dropFirst(2).allSatisfy { $0.contains("  (device clock: 2026-11-19 ") })
        let csv = try home.run(["records", "--home", home.path, "--format", "csv", "--device-time"]).stdout
        let lines = csv.split(separator: "\r\n")
        #expect(lines.first?.hasPrefix("device,kind,measured_at_utc,device_time_utc,systolic_mmHg,") == true)
        // a reading of the corrected BG5 carries its device time; one of the THV3, whose clock is right, none
        let rows = lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(rows.filter { $0[0] == bg5 }.allSatisfy { $0[3].hasPrefix("2026-11-19 ") })
        #expect(rows.filter { $0[0] == macOf(.thv3) }.allSatisfy { $0[3].isEmpty })
        #expect(rows.count == 15 && rows.allSatisfy { $0.count == lines.first!.split(separator: ",").count })
        // without --device-time the CSV is as before: no column, the THV3's rows unchanged
        let plain = try home.run(["records", "--home", home.path, "--format", "csv"]).stdout
        #expect(plain.hasPrefix("device,kind,measured_at_utc,systolic_mmHg,"))
        let json = try home.run(["records", "--home", home.path, "--format", "json", "--device", macOf(.thv3)]).stdout
        #expect(!json.contains("device_time_utc"))
        let refused = try home.run([
            "records", "--home", home.path, "--format", "fhir", "--patient", "A", "--device-time",
        ])
        #expect(refused.status == 2 && refused.stderr.contains("--device-time has no FHIR form"))
    }

    @Test("a PO3, whose clock cannot be read: its readings are stored as it sent them, marked timeUnverified")
    func unreadableClock() async throws {
        var fleet = Fleet.default
        let index = fleet.devices.firstIndex { $0.model == DeviceModel.po3.name }!
        fleet.devices[index].clockOffset = 3600
        let home = try TestHome(fleet: fleet)
        _ = try home.callback(request(.addSync, .po3))
        let truth = try await Self.trueTimes(fleet, .po3)
        let stored = try home.store().readings.all(device: MACAddress(macOf(.po3))!).map(\.reading)
        try #require(stored.count == truth.count && !truth.isEmpty)
        #expect(stored.allSatisfy { $0.annotations.status.contains(.timeUnverified) })
        #expect(stored.map(\.measuredAt.secondsSince1970).sorted() == truth.map { $0 + 3600 })
    }
}
