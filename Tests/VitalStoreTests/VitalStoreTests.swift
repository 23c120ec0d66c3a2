import Foundation
import Locking
import Testing
import VitalCore
import VitalTestSupport

@testable import VitalStore

@Suite("VitalStore")
struct VitalStoreTests {
    static let mac = MACAddress("004D3208D2F4")!
    static let at = Timestamp(parsing: "2026-11-19 07:00:00")!

    static let readings: [Reading] = [
        .bloodPressure(
            BloodPressureReading(systolic: 120, diastolic: 80, heartRate: 72, arrhythmia: true, measuredAt: at)),
        .bloodPressure(
            BloodPressureReading(
                systolic: 121, diastolic: 79, measuredAt: Timestamp(secondsSince1970: at.secondsSince1970 + 60))),
        .glucose(GlucoseReading(mgPerDeciliter: 104, measuredAt: at)),
        .weight(WeightReading(kilograms: 70.005, measuredAt: at)),
        .weight(
            WeightReading(
                kilograms: 80.5, measuredAt: Timestamp(secondsSince1970: at.secondsSince1970 + 120),
                bodyComposition: BodyComposition(
                    bodyFatPercentage: 21.4, basalMetabolism: 7_120, musclePercentage: 41.3, muscleMass: 33.245,
                    fatFreeMass: 63.27, softLeanMass: 58.1, bodyWaterMass: 46.005, impedance: 512.3))),
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
        let ids = try store.readings.store(Self.readings, device: Self.mac)
        #expect(ids.count == Self.readings.count && Set(ids).count == ids.count)
        let stored = try store.readings.all(device: Self.mac)
        #expect(Set(stored.map(\.reading)) == Set(Self.readings))
        #expect(stored.map(\.reading.measuredAt) == stored.map(\.reading.measuredAt).sorted())
        // WAL mode on disk
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("vitalbridge.sqlite-wal").path))
    }

    @Test("the connection that writes runs in WAL mode with synchronous FULL, also when the file is reopened")
    func durability() throws {
        let (store, directory) = try Self.fileStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        try store.readings.store(Self.readings, device: Self.mac)
        #expect(try store.pragma("journal_mode") == "wal")
        #expect(try store.pragma("synchronous") == "2")  // FULL
        #expect(try store.pragma("wal_autocheckpoint") == "100")
        let reopened = try VitalStore(path: directory.appendingPathComponent("vitalbridge.sqlite").path)
        #expect(try reopened.pragma("journal_mode") == "wal")
        #expect(try reopened.pragma("synchronous") == "2")
        #expect(try reopened.readings.all().count == Self.readings.count)
    }

    @Test("the schema version is kept in user_version: an older store is migrated, a newer one refused")
    func schemaVersion() throws {
        let (first, directory) = try Self.fileStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        try first.readings.store(Self.readings, device: Self.mac)
        let version = VitalStore.schemaVersion
        #expect(try first.pragma("user_version") == "\(version)")
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
        #expect(try migrated.pragma("user_version") == "\(version)")
        #expect(try migrated.readings.all().count == Self.readings.count)
        _ = consume migrated
        try setUserVersion(UInt8(version + 1))
        #expect {
            try VitalStore(path: path)
        } throws: { error in
            "\(error)".contains("written by a newer VitalBridge (schema \(version + 1); this one knows \(version))")
        }
    }

    @Test("a reading the store already has is never stored twice")
    func idempotent() throws {
        let store = try VitalStore()
        let first = try store.readings.store(Self.readings, device: Self.mac)
        let second = try store.readings.store(Self.readings.reversed(), device: Self.mac)
        #expect(second == first.reversed())
        #expect(try store.readings.all().count == Self.readings.count)
        // the same values on another device are another reading
        try store.readings.store([Self.readings[0]], device: MACAddress("AABBCCDDEEFF")!)
        #expect(try store.readings.all().count == Self.readings.count + 1)
    }

    @Test("a batch that fails part-way stores none of it, and the next write and a second caller's queue work")
    func failedBatchRollsBack() throws {
        let (store, directory) = try Self.fileStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try store.readings.store([Self.readings[0]], device: Self.mac)
        // two callers asked for the device: each new reading is pending for both
        for caller in ["com.example.a", "com.example.b"] {
            _ = try store.journal.reservePending(device: Self.mac, caller: caller, for: ReservationOwner(owner: caller))
            {
                pending in
                while try pending.next() != nil {}
                return ((), readingIDs: [])
            }
        }
        // a rule that breaks the store's contract on the third reading: the two before it are rolled back with it
        let broken = ReadingMerge(
            mayMerge: { if case .glucose = $0 { true } else { false } },
            merged: { new, _ in
                guard case .glucose(var glucose) = new else { return nil }
                glucose.measuredAt = Timestamp(secondsSince1970: glucose.measuredAt.secondsSince1970 + 1)
                return .glucose(glucose)
            })
        let other = Reading.glucose(GlucoseReading(mgPerDeciliter: 110, measuredAt: Self.at))
        let batch = [Self.readings[1], Self.readings[3], Self.readings[2], other]
        #expect(throws: StoreError.self) {
            try store.readings.store(batch, device: Self.mac, merging: broken)
        }
        #expect(try store.readings.all().map(\.reading) == [Self.readings[0]])
        // the failed transaction left nothing open: the next write commits, queued for both callers
        let ids = try store.readings.store(batch, device: Self.mac)
        let stored = try store.readings.all().count
        #expect(Set(ids).count == 4 && stored == 5)
        for caller in ["com.example.a", "com.example.b"] {
            #expect(
                try store.journal.undelivered(device: Self.mac, caller: caller).map(\.id).sorted()
                    == (first + ids).sorted())
        }
        #expect(
            try VitalStore(path: directory.appendingPathComponent("vitalbridge.sqlite").path).readings.all().count == 5)
    }

    /// A rule for readings sent in parts, as a driver supplies one (a scale's, restated: VitalDevices'
    /// `RecordMerging`): a weight with a body composition completes the same mass without one, and is the same mass
    /// with one.
    static let weightParts = ReadingMerge(
        mayMerge: { if case .weight = $0 { true } else { false } },
        merged: { new, stored in
            guard case .weight(let weight) = new, case .weight(let kept) = stored, weight.kilograms == kept.kilograms
            else { return nil }
            switch (kept.bodyComposition, weight.bodyComposition) {
            case (nil, .some): return new
            case (.some, nil): return stored
            default: return nil
            }
        })

    @Test("readings a given rule makes one, stored in either order, are one reading, pending again when completed")
    func bodyComposition() throws {
        let store = try VitalStore()
        let caller = "com.example.a"
        func weight(_ kilograms: Double, fat: Double?, at offset: Int64 = 0) -> Reading {
            .weight(
                WeightReading(
                    kilograms: kilograms,
                    measuredAt: Timestamp(secondsSince1970: Self.at.secondsSince1970 + offset),
                    bodyComposition: fat.map { BodyComposition(bodyFatPercentage: $0, bodyWaterMass: 40.5) }))
        }
        /// Delivers what is pending for the caller, as a callback does; returns the readings delivered.
        func deliver(_ owner: String) throws -> [StoredReading] {
            let reservation = ReservationOwner(owner: owner)
            let readings = try store.journal.reservePending(device: Self.mac, caller: caller, for: reservation) {
                pending in
                var readings: [StoredReading] = []
                while let reading = try pending.next() { readings.append(reading) }
                return (readings, readingIDs: readings.map(\.id))
            }
            try store.journal.record(
                caller: caller, device: Self.mac, action: .layered(cmd: 2), status: 0, at: Self.at,
                readingIDs: readings.map(\.id),
                remaining: 0, owner: reservation)
            return readings
        }
        let plain = try store.readings.store([weight(70, fat: nil)], device: Self.mac, merging: Self.weightParts)
        #expect(try deliver("a").map(\.reading) == [weight(70, fat: nil)])
        #expect(try store.journal.undelivered(device: Self.mac, caller: caller).isEmpty)
        // the composition completes the weight delivered without it: the same reading, revised, pending again
        #expect(try store.readings.store([weight(70, fat: 21.4)], device: Self.mac, merging: Self.weightParts) == plain)
        #expect(try store.readings.all().map(\.reading) == [weight(70, fat: 21.4)])
        #expect(try store.journal.undelivered(device: Self.mac, caller: caller).map(\.id) == plain)
        #expect(try deliver("b").map(\.reading) == [weight(70, fat: 21.4)])
        #expect(try deliver("c").isEmpty)
        // the weight again, alone, is the reading it is part of
        #expect(try store.readings.store([weight(70, fat: nil)], device: Self.mac, merging: Self.weightParts) == plain)
        // the composition first, then its weight: one reading too
        let first = try store.readings.store([weight(71, fat: 30, at: 60)], device: Self.mac, merging: Self.weightParts)
        #expect(
            try store.readings.store([weight(71, fat: nil, at: 60)], device: Self.mac, merging: Self.weightParts)
                == first)
        // another mass or another composition at the same time is another reading
        let other = try store.readings.store(
            [weight(70.5, fat: nil), weight(70, fat: 22)], device: Self.mac, merging: Self.weightParts)
        #expect(Set(other + plain + first).count == 4)
        #expect(try store.readings.all().count == 4)
        // without a rule the store knows no parts: a weight and its composition are two readings
        let plainStore = try VitalStore()
        let two = try plainStore.readings.store([weight(70, fat: nil), weight(70, fat: 21.4)], device: Self.mac)
        #expect(Set(two).count == 2)
    }

    @Test("pending readings are those not yet delivered to that caller; the journal keeps every delivery")
    func deliveries() throws {
        let store = try VitalStore()
        let ids = try store.readings.store(Array(Self.readings.prefix(3)), device: Self.mac)
        try store.journal.record(
            caller: "com.example.a", device: Self.mac, action: .layered(cmd: 2), status: 0, at: Self.at,
            readingIDs: [ids[0]],
            remaining: 2)
        #expect(
            try store.journal.undelivered(device: Self.mac, caller: "com.example.a").map(\.id).sorted()
                == ids[1...].sorted())
        #expect(try store.journal.undelivered(device: Self.mac, caller: "com.example.b").count == 3)
        let journal = try store.journal.deliveries()
        #expect(journal.count == 1 && journal[0].readingIDs == [ids[0]] && journal[0].remaining == 2)
        #expect(
            try store.readings.all(
                device: Self.mac, since: Timestamp(secondsSince1970: Self.at.secondsSince1970 + 1)
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
                mac: Self.mac, model: .am4, firmwareRevision: "2.0", addedAt: Timestamp(secondsSince1970: 0)))
        let device = try #require(try store.device(Self.mac))
        #expect(device.serialNumber == "AM4-1" && device.firmwareRevision == "2.0" && device.profile == profile)
        #expect(device.addedAt == Self.at)
        #expect(try store.devices().count == 1)
        #expect(try store.device(MACAddress("AABBCCDDEEFF")!) == nil)
    }

    @Test("the store's version moves with every commit, this connection's or another's, and with nothing else")
    func version() throws {
        let directory = try TemporaryDirectory("store-version")
        defer { directory.remove() }
        let path = directory.path + "/vitalbridge.sqlite"
        let store = try VitalStore(path: path)
        let other = try VitalStore(path: path)
        let first = try store.version()
        _ = try store.devices()
        _ = try other.devices()
        #expect(try store.version() == first, "a read changed the version")
        try store.saveDevice(StoredDevice(mac: Self.mac, model: .am4, addedAt: Self.at))
        let own = try store.version()
        #expect(own != first, "the connection's own commit")
        try other.saveDevice(StoredDevice(mac: MACAddress("AABBCCDDEEFF")!, model: .bg5, addedAt: Self.at))
        let others = try store.version()
        #expect(others != own, "another connection's commit")
        try other.forgetDevice(Self.mac, deletingReadings: nil, at: Self.at)
        #expect(try store.version() != others, "another connection's deletion")
        #expect(try store.devices().map(\.mac) == [MACAddress("AABBCCDDEEFF")!])
    }

    @Test("a store that cannot be opened is a clear error")
    func badPath() {
        let error = #expect(throws: StoreError.self) { try VitalStore(path: "/nonexistent-dir/x/vitalbridge.sqlite") }
        #expect(error?.description.hasPrefix("cannot open the store at /nonexistent-dir/x/vitalbridge.sqlite") == true)
    }
}

@Suite("Reservations")
struct ReservationTests {
    /// A store with the suite's readings of one device, and their identifiers.
    static func store() throws -> (VitalStore, [Int64]) {
        let store = try VitalStore()
        let ids = try store.readings.store(VitalStoreTests.readings, device: VitalStoreTests.mac)
        return (store, ids)
    }

    /// Reserves the first `count` pending readings for `caller` as `owner`; returns their identifiers.
    static func take(_ count: Int, _ store: VitalStore, _ owner: ReservationOwner, caller: String = "app")
        throws -> [Int64]
    {
        try store.journal.reservePending(device: VitalStoreTests.mac, caller: caller, for: owner) { pending in
            var ids: [Int64] = []
            while ids.count < count, let reading = try pending.next() { ids.append(reading.id) }
            return (ids, readingIDs: ids)
        }
    }

    @Test("two owners never hold the same reading for one caller; another caller is not affected")
    func disjoint() throws {
        let (store, ids) = try Self.store()
        let first = try Self.take(1, store, ReservationOwner(owner: "a#1"))
        let second = try Self.take(10, store, ReservationOwner(owner: "b#1"))
        #expect(first.count == 1 && Set(first).isDisjoint(with: second) && (first + second).sorted() == ids.sorted())
        #expect(try Self.take(10, store, ReservationOwner(owner: "c#1"), caller: "other").count == ids.count)
        // journaled with its owner, a's reservation ends and its reading is delivered, not pending
        try store.journal.record(
            caller: "app", device: VitalStoreTests.mac, action: .layered(cmd: 2), status: 0, at: VitalStoreTests.at,
            readingIDs: first, remaining: 0, owner: ReservationOwner(owner: "a#1"))
        #expect(try store.journal.reservations().allSatisfy { $0.owner != "a#1" })
        try store.journal.releaseReservations(of: ReservationOwner(owner: "b#1"))
        #expect(try Set(store.journal.undelivered(device: VitalStoreTests.mac, caller: "app").map(\.id)) == Set(second))
    }

    @Test("a reservation returns to pending when it expires or its owner is gone, not before")
    func expiry() throws {
        let (store, ids) = try Self.store()
        let now = Locked(1_000.0)
        let clock: @Sendable () -> Double = { now.withLock { $0 } }
        _ = try Self.take(10, store, ReservationOwner(owner: "a#1", lifetime: 60, clock: clock))
        #expect(try Self.take(10, store, ReservationOwner(owner: "b#1", clock: clock)).isEmpty)
        now.withLock { $0 = 1_060 }
        #expect(try Set(Self.take(10, store, ReservationOwner(owner: "b#1", clock: clock))) == Set(ids))
        // b's process ended: c takes its readings at once
        let gone = ReservationOwner(owner: "c#1", clock: clock, isAbandoned: { $0 == "b#1" })
        #expect(try Set(Self.take(10, store, gone)) == Set(ids))
    }

    @Test("a reservation commits without a flush, and the connection is back to synchronous = FULL after it")
    func fullAfterReservation() throws {
        let (store, directory) = try VitalStoreTests.fileStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ids = try store.readings.store(VitalStoreTests.readings, device: VitalStoreTests.mac)
        #expect(try Self.take(10, store, ReservationOwner(owner: "a#1")).count == ids.count)
        try store.journal.reserve([ids[0]], caller: "app", for: ReservationOwner(owner: "b#1"))
        #expect(try store.pragma("synchronous") == "2")
    }

    @Test("a live reading reserved by the request that measured it is taken over from any other owner")
    func liveReading() throws {
        let (store, ids) = try Self.store()
        _ = try Self.take(10, store, ReservationOwner(owner: "sync#1"))
        try store.journal.reserve([ids[0]], caller: "app", for: ReservationOwner(owner: "measure#1"))
        #expect(try store.journal.reservations().filter { $0.readingID == ids[0] }.map(\.owner) == ["measure#1"])
    }
}

@Suite("The delivery journal's action")
struct JournalActionTests {
    @Test("each action is kept as the column's code and read back as itself; a negative code is unknown")
    func codes() throws {
        let actions: [JournalAction] = [.layered(cmd: 0), .layered(cmd: 6), .provider(code: 100), .provider(code: 101)]
        for action in actions { #expect(JournalAction(code: action.code) == action) }
        #expect(JournalAction.unknown.code == -1 && JournalAction(code: -1) == .unknown)
        #expect(JournalAction(code: -7) == .unknown)
        let (store, directory) = try VitalStoreTests.fileStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        for action in actions + [.unknown] {
            try store.journal.record(
                caller: "app", device: nil, action: action, status: 0, at: VitalStoreTests.at, readingIDs: [],
                remaining: 0)
        }
        #expect(try store.journal.deliveries().map(\.action) == actions + [.unknown])
    }
}
