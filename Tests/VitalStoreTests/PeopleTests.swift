import Testing
import VitalCore
import VitalTestSupport

@testable import VitalStore

/// Whose readings they are: a multi-user device's readings go to the person their user index is assigned to, and
/// to no one (quarantine) until it is; never by guess.
@Suite("People and quarantine")
struct PeopleTests {
    static let monitor = MACAddress("004D3208D30B")!
    static let scale = MACAddress("004D3208D30C")!

    /// A blood pressure of user `user` (none: a single-user device) at minute `minute`.
    static func pressure(_ minute: Int64, user: UInt8?, systolic: Double = 120) -> Reading {
        .bloodPressure(
            BloodPressureReading(
                systolic: systolic, diastolic: 80, heartRate: 60,
                measuredAt: Timestamp(secondsSince1970: 1_763_700_000 + minute * 60),
                annotations: ReadingAnnotations(userIndex: user)))
    }

    /// A weight of user `user` at minute `minute`.
    static func weight(_ minute: Int64, user: UInt8, kilograms: Double) -> Reading {
        .weight(
            WeightReading(
                kilograms: kilograms, measuredAt: Timestamp(secondsSince1970: 1_763_700_000 + minute * 60),
                annotations: ReadingAnnotations(userIndex: user)))
    }

    /// Delivers to `caller` everything pending for it of `device`, as a callback does; returns what it carried.
    static func deliver(_ store: VitalStore, _ device: MACAddress, to caller: String) throws -> [StoredReading] {
        let owner = "\(caller)-\(device)"
        let delivered = try store.journal.reservePending(
            device: device, caller: caller, for: ReservationOwner(owner: owner)
        ) {
            pending in
            var readings: [StoredReading] = []
            while let reading = try pending.next() { readings.append(reading) }
            return (readings, readingIDs: readings.map(\.id))
        }
        try store.journal.record(
            caller: caller, device: device, action: .layered(cmd: 2), status: 0, at: Timestamp(secondsSince1970: 0),
            readingIDs: delivered.map(\.id), remaining: 0, owner: ReservationOwner(owner: owner))
        // the queue agrees with the journal
        #expect(try store.journal.undelivered(device: device, caller: caller).isEmpty)
        return delivered
    }

    @Test("a reading of an unassigned user index is quarantined: stored, never delivered, released when assigned")
    func quarantine() throws {
        let store = try VitalStore()
        let held = Self.pressure(1, user: 2)
        let plain = Self.pressure(2, user: nil)
        try store.readings.store([held, plain], device: Self.monitor)
        #expect(try Self.deliver(store, Self.monitor, to: "app").map(\.reading) == [plain])
        var quarantined: [Reading] = []
        try store.readings.forEach(selection: .quarantined) { quarantined.append($0.reading) }
        #expect(quarantined == [held])
        var released: [Reading] = []
        try store.readings.forEach(selection: .released) { released.append($0.reading) }
        #expect(released == [plain])
        // a reading stored while the caller already has a queue is not queued either
        try store.readings.store([Self.pressure(3, user: 2)], device: Self.monitor)
        #expect(try Self.deliver(store, Self.monitor, to: "app").isEmpty)

        try store.people.add("Ann")
        #expect(try store.people.assign(device: Self.monitor, userIndex: 2, to: "Ann") == 2)
        // the home's one person: a caller naming no person receives hers, with their own times
        let delivered = try Self.deliver(store, Self.monitor, to: "app").map(\.reading)
        #expect(delivered == [held, Self.pressure(3, user: 2)])
        var left = 0
        try store.readings.forEach(selection: .quarantined) { _ in left += 1 }
        #expect(left == 0)
    }

    @Test(
        "three people on a monitor and a scale, 1,000 interleaved readings, two of equal weight: each caller gets exactly its person's"
    )
    func threePeople() throws {
        let store = try VitalStore()
        for name in ["Ann", "Bob", "Cid"] { try store.people.add(name) }
        let callers = ["ann.app": "Ann", "bob.app": "Bob", "cid.app": "Cid"]
        for (caller, person) in callers { try store.people.setPerson(person, forCaller: caller) }
        try store.people.setPerson(nil, forCaller: "family.app")
        // user 1 is Ann, 2 Bob on both devices; 3 (Cid) is assigned later. Ann and Bob weigh the same.
        var expected: [String: Set<Int64>] = [:]
        var byUser: [UInt8: [Int64]] = [:]
        for minute in Int64(0)..<1_000 {
            let user = UInt8(minute % 3 + 1)
            let onScale = minute % 2 == 0
            let reading =
                onScale
                ? Self.weight(minute, user: user, kilograms: user == 3 ? 91.5 : 70.0)
                : Self.pressure(minute, user: user, systolic: 110 + Double(minute % 40))
            let id = try store.readings.store([reading], device: onScale ? Self.scale : Self.monitor)[0]
            byUser[user, default: []].append(id)
            if minute == 10 {
                // every caller has asked for both devices before most readings arrive
                for caller in callers.keys.sorted() + ["family.app"] {
                    _ = try Self.deliver(store, Self.monitor, to: caller)
                    _ = try Self.deliver(store, Self.scale, to: caller)
                }
            }
        }
        for device in [Self.monitor, Self.scale] {
            try store.people.assign(device: device, userIndex: 1, to: "Ann")
            try store.people.assign(device: device, userIndex: 2, to: "Bob")
        }
        func deliveredIDs(_ caller: String) throws -> Set<Int64> {
            Set(
                try (Self.deliver(store, Self.monitor, to: caller) + Self.deliver(store, Self.scale, to: caller)).map(
                    \.id))
        }
        expected["ann.app"] = Set(byUser[1]!)
        expected["bob.app"] = Set(byUser[2]!)
        #expect(try deliveredIDs("ann.app") == expected["ann.app"])
        #expect(try deliveredIDs("bob.app") == expected["bob.app"])
        #expect(try deliveredIDs("cid.app").isEmpty)
        // three people: a caller naming none receives no person's readings
        #expect(try deliveredIDs("family.app").isEmpty)
        var quarantined = Set<Int64>()
        try store.readings.forEach(selection: .quarantined) { quarantined.insert($0.id) }
        #expect(quarantined == Set(byUser[3]!))

        try store.people.assign(device: Self.monitor, userIndex: 3, to: "Cid")
        try store.people.assign(device: Self.scale, userIndex: 3, to: "Cid")
        #expect(try deliveredIDs("cid.app") == Set(byUser[3]!))
        #expect(try deliveredIDs("ann.app").isEmpty && deliveredIDs("bob.app").isEmpty)
        // every reading delivered once, to its person's caller only
        for (caller, person) in callers {
            let user = UInt8(["Ann": 1, "Bob": 2, "Cid": 3][person]!)
            let journal = try store.journal.deliveries().filter { $0.caller == caller }.flatMap(\.readingIDs)
            #expect(Set(journal) == Set(byUser[user]!) && journal.count == byUser[user]!.count, "\(caller)")
        }
    }

    @Test("unassigning returns the index's undelivered readings to quarantine; the delivered stay delivered")
    func unassign() throws {
        let store = try VitalStore()
        try store.people.add("Ann")
        try store.people.assign(device: Self.monitor, userIndex: 1, to: "Ann")
        try store.readings.store([Self.pressure(1, user: 1)], device: Self.monitor)
        #expect(try Self.deliver(store, Self.monitor, to: "app").count == 1)
        try store.readings.store([Self.pressure(2, user: 1)], device: Self.monitor)
        #expect(try store.people.unassign(device: Self.monitor, userIndex: 1) == 2)
        #expect(try Self.deliver(store, Self.monitor, to: "app").isEmpty)
        var quarantined = 0
        try store.readings.forEach(selection: .quarantined) { _ in quarantined += 1 }
        #expect(quarantined == 2)
        // a second person: the caller naming none no longer receives the first's
        try store.people.assign(device: Self.monitor, userIndex: 1, to: "Ann")
        try store.people.add("Bob")
        #expect(try Self.deliver(store, Self.monitor, to: "app").isEmpty)
        try store.people.setPerson("Ann", forCaller: "app")
        #expect(try Self.deliver(store, Self.monitor, to: "app").map(\.reading) == [Self.pressure(2, user: 1)])
    }

    @Test(
        "bad names and assignments are refused by name; nothing changes",
        arguments: [
            ("", "cannot be empty"), (String(repeating: "a", count: 65), "at most 64"), ("Ann\n", "control character"),
            (" Ann", "begin or end with a space"), ("Ann", "has a person named Ann already"),
        ])
    func badNames(_ name: String, _ message: String) throws {
        let store = try VitalStore()
        try store.people.add("Ann")
        #expect {
            try store.people.add(name)
        } throws: { error in
            "\(error)".contains(message)
        }
        #expect(try store.people.all().map(\.name) == ["Ann"])
    }

    @Test("an unknown person, an index assigned already, an unassigned index, a person still in use are refused")
    func badAssignments() throws {
        let store = try VitalStore()
        try store.people.add("Ann")
        try store.people.add("Bob")
        func refused(_ message: String, _ body: () throws -> Void) {
            #expect {
                try body()
            } throws: { error in
                "\(error)".contains(message)
            }
        }
        refused("no person named Zoe") { try store.people.assign(device: Self.monitor, userIndex: 1, to: "Zoe") }
        try store.people.assign(device: Self.monitor, userIndex: 1, to: "Ann")
        refused("assigned to Ann already") { try store.people.assign(device: Self.monitor, userIndex: 1, to: "Bob") }
        refused("is not assigned") { try store.people.unassign(device: Self.monitor, userIndex: 2) }
        refused("unassign them first") { try store.people.remove("Ann") }
        try store.people.setPerson("Bob", forCaller: "bob.app")
        refused("names Bob") { try store.people.remove("Bob") }
        refused("no person named Zoe") { try store.people.setPerson("Zoe", forCaller: "bob.app") }
        #expect(try store.people.callers() == ["bob.app": "Bob"])
        #expect(
            try store.people.all()
                == [
                    Person(name: "Ann", assignments: [Assignment(device: Self.monitor, userIndex: 1)]),
                    Person(name: "Bob"),
                ])
    }
}
