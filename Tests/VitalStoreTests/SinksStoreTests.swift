import Testing
import VitalCore
import VitalStore

/// The sinks facade (`store.sinks`): a home's sinks by name, and how far each has taken the feed.
@Suite("The sinks of a home (store.sinks)")
struct SinksStoreTests {
    static let added = Timestamp(secondsSince1970: 1_764_000_000)
    static let mac = MACAddress("004D3208D2F4")!

    static func weight(_ minute: Int64) -> Reading {
        .weight(WeightReading(kilograms: 70, measuredAt: Timestamp(secondsSince1970: 1_763_700_000 + minute * 60)))
    }

    @Test("a sink is added once, read by name and in name order, its position and failures recorded, and removed")
    func lifecycle() throws {
        let store = try VitalStore()
        try store.sinks.add(SinkRecord(name: "lab", address: "postgresql://hub@db/lab", addedAt: Self.added))
        try store.sinks.add(
            SinkRecord(name: "archive", address: "postgresql://hub@db/archive", passwordFile: "/p", addedAt: Self.added)
        )
        #expect(try store.sinks.all().map(\.name) == ["archive", "lab"])
        #expect(throws: StoreError.self) {
            try store.sinks.add(SinkRecord(name: "lab", address: "postgresql://other@db/x", addedAt: Self.added))
        }
        #expect(try store.sinks.named("lab").address == "postgresql://hub@db/lab")

        try store.saveDevice(StoredDevice(mac: Self.mac, model: .weightScale, addedAt: Self.added))
        try store.readings.store((0..<3).map(Self.weight), device: Self.mac)
        #expect(try store.sinks.queuedChanges(after: 0) == 3)
        let batch = try store.sinks.changeBatch(after: 0, limit: 2)
        #expect(batch.changes.count == 2 && batch.through == batch.changes[1].sequence)
        let hub = try store.hubID()
        #expect(batch.devices.map(\.mac) == [Self.mac] && batch.hubID == hub)

        let pushed = Timestamp(secondsSince1970: 1_764_000_100)
        try store.sinks.recordPush(named: "lab", position: batch.through, at: pushed)
        try store.sinks.recordFailure(named: "lab", message: "connection refused", at: pushed)
        let lab = try store.sinks.named("lab")
        #expect(lab.position == batch.through && lab.lastSuccess == pushed)
        #expect(lab.lastError == "connection refused" && lab.lastErrorAt == pushed)
        #expect(try store.sinks.queuedChanges(after: lab.position) == 1)
        #expect(try store.sinks.changeBatch(after: lab.position, limit: 10).changes.count == 1)

        try store.sinks.remove(named: "lab")
        #expect(try store.sinks.all().map(\.name) == ["archive"])
    }

    @Test("a bad name, or a sink the home does not have, is refused naming it; nothing changes")
    func refusals() throws {
        let store = try VitalStore()
        try store.sinks.add(SinkRecord(name: "lab", address: "postgresql://hub@db/lab", addedAt: Self.added))
        for name in ["", "-lab", "a b", "lab/x", String(repeating: "a", count: 33), "läb"] {
            let error = #expect(throws: StoreError.self) {
                try store.sinks.add(SinkRecord(name: name, address: "postgresql://hub@db/x", addedAt: Self.added))
            }
            #expect(error?.message.contains(name.debugDescription) == true, "\(error?.message ?? "")")
        }
        for attempt: () throws -> Void in [
            { _ = try store.sinks.named("nope") }, { try store.sinks.remove(named: "nope") },
            { try store.sinks.recordPush(named: "nope", position: 1, at: Self.added) },
            { try store.sinks.recordFailure(named: "nope", message: "x", at: Self.added) },
        ] {
            let error = #expect(throws: StoreError.self) { try attempt() }
            #expect(error?.message.hasSuffix(": the home has no sink named nope (vitalbridge sink list)") == true)
        }
        #expect(try store.sinks.all().map(\.name) == ["lab"] && store.sinks.named("lab").position == 0)
    }
}
