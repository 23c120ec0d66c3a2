import Foundation
import LayeredProtocol
import Testing

@testable import VitalStore

@Suite("VitalStore")
struct VitalStoreTests {
    static let mac = MACAddress("004D3208D2F4")!
    static let at = LayeredTimestamp(parsing: "2026-11-19 07:00:00")!

    static let readings: [LayeredReading] = [
        .bloodPressure(
            BloodPressureReading(systolic: 120, diastolic: 80, heartRate: 72, arrhythmia: true, measuredAt: at)),
        .bloodPressure(
            BloodPressureReading(
                systolic: 121, diastolic: 79, measuredAt: LayeredTimestamp(secondsSince1970: at.secondsSince1970 + 60))),
        .glucose(GlucoseReading(mgPerDeciliter: 104, measuredAt: at)),
        .weight(WeightReading(kilograms: 70.005, measuredAt: at)),
        .temperature(TemperatureReading(celsius: 36.6, measuredAt: at)),
        .oximetry(OximetryReading(oxygenSaturation: 98, heartRate: 64, perfusionIndex: 3.1, measuredAt: at)),
        .activity(
            ActivityDay(
                date: at.day, steps: 8000, calories: 320, sleepMinutes: 420, sleepEfficiency: 88, swimMinutes: 30,
                swimCalories: 240)),
    ]

    /// A store in a fresh temporary file.
    static func fileStore() throws -> (VitalStore, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitalstore-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("vitalbridge.sqlite")
        return (try VitalStore(path: path.path), directory)
    }

    @Test("every kind of reading is stored and read back exactly")
    func roundTrip() throws {
        let (store, directory) = try Self.fileStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ids = try store.storeReadings(Self.readings, device: Self.mac)
        #expect(ids.count == Self.readings.count && Set(ids).count == ids.count)
        let stored = try store.readings(device: Self.mac)
        #expect(Set(stored.map(\.reading)) == Set(Self.readings))
        #expect(stored.map(\.reading.measuredAt) == stored.map(\.reading.measuredAt).sorted())
        // WAL mode on disk
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("vitalbridge.sqlite-wal").path))
    }

    @Test("the connection that writes runs in WAL mode with synchronous FULL, also when the file is reopened")
    func durability() throws {
        let (store, directory) = try Self.fileStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        try store.storeReadings(Self.readings, device: Self.mac)
        #expect(try store.pragma("journal_mode") == "wal")
        #expect(try store.pragma("synchronous") == "2")  // FULL
        #expect(try store.pragma("wal_autocheckpoint") == "100")
        let reopened = try VitalStore(path: directory.appendingPathComponent("vitalbridge.sqlite").path)
        #expect(try reopened.pragma("journal_mode") == "wal")
        #expect(try reopened.pragma("synchronous") == "2")
        #expect(try reopened.readings().count == Self.readings.count)
    }

    @Test("the schema version is kept in user_version: an older store is migrated, a newer one refused")
    func schemaVersion() throws {
        let (first, directory) = try Self.fileStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        try first.storeReadings(Self.readings, device: Self.mac)
        #expect(try first.pragma("user_version") == "2")
        let path = directory.appendingPathComponent("vitalbridge.sqlite").path
        /// Closes the store (its last connection checkpoints the WAL into the file), then sets user_version in the
        /// file's header (bytes 60–63, big-endian).
        func setUserVersion(_ version: UInt8) throws {
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            bytes.replaceSubrange(60..<64, with: [0, 0, 0, version])
            try bytes.write(to: URL(fileURLWithPath: path))
        }
        _ = consume first
        try setUserVersion(0)  // a store made before the version was kept
        let migrated = try VitalStore(path: path)
        #expect(try migrated.pragma("user_version") == "2")
        #expect(try migrated.readings().count == Self.readings.count)
        _ = consume migrated
        try setUserVersion(9)
        #expect {
            try VitalStore(path: path)
        } throws: { error in
            "\(error)".contains("written by a newer VitalBridge (schema 9; this one knows 2)")
        }
    }

    @Test("a reading the store already has is never stored twice")
    func idempotent() throws {
        let store = try VitalStore()
        let first = try store.storeReadings(Self.readings, device: Self.mac)
        let second = try store.storeReadings(Self.readings.reversed(), device: Self.mac)
        #expect(second == first.reversed())
        #expect(try store.readings().count == Self.readings.count)
        // the same values on another device are another reading
        try store.storeReadings([Self.readings[0]], device: MACAddress("AABBCCDDEEFF")!)
        #expect(try store.readings().count == Self.readings.count + 1)
    }

    @Test("pending readings are those not yet delivered to that caller; the journal keeps every delivery")
    func deliveries() throws {
        let store = try VitalStore()
        let ids = try store.storeReadings(Array(Self.readings.prefix(3)), device: Self.mac)
        try store.recordDelivery(
            caller: "com.example.a", device: Self.mac, action: 2, status: 0, at: Self.at, readingIDs: [ids[0]],
            remaining: 2)
        #expect(
            try store.undeliveredReadings(device: Self.mac, caller: "com.example.a").map(\.id).sorted()
                == ids[1...].sorted())
        #expect(try store.undeliveredReadings(device: Self.mac, caller: "com.example.b").count == 3)
        let journal = try store.deliveries()
        #expect(journal.count == 1 && journal[0].readingIDs == [ids[0]] && journal[0].remaining == 2)
        #expect(
            try store.readings(
                device: Self.mac, since: LayeredTimestamp(secondsSince1970: Self.at.secondsSince1970 + 1)
            ).count == 1)
    }

    @Test("devices keep their first time and their profile")
    func devices() throws {
        let store = try VitalStore()
        let profile = ActivityProfile(
            userID: 1111, age: 30, sex: .male, height: 180, weight: 80, swim: .on, distanceUnit: .mile)
        try store.saveDevice(
            StoredDevice(mac: Self.mac, model: .am4, serialNumber: "AM4-1", profile: profile, addedAt: Self.at))
        try store.saveDevice(
            StoredDevice(
                mac: Self.mac, model: .am4, firmwareRevision: "2.0", addedAt: LayeredTimestamp(secondsSince1970: 0)))
        let device = try #require(try store.device(Self.mac))
        #expect(device.serialNumber == "AM4-1" && device.firmwareRevision == "2.0" && device.profile == profile)
        #expect(device.addedAt == Self.at)
        #expect(try store.devices().count == 1)
        #expect(try store.device(MACAddress("AABBCCDDEEFF")!) == nil)
    }

    @Test("a store that cannot be opened is a clear error")
    func badPath() {
        let error = #expect(throws: StoreError.self) { try VitalStore(path: "/nonexistent-dir/x/vitalbridge.sqlite") }
        #expect(error?.description.hasPrefix("cannot open the store at /nonexistent-dir/x/vitalbridge.sqlite") == true)
    }
}
