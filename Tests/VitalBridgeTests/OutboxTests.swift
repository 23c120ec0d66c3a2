import Locking
import TestRequirements
import Testing
import VitalBridge
import VitalCore
import VitalStore
import VitalTestSupport

/// A destination in memory with the exactly-once rules of a real one (VitalSinks' PostgreSQL schema): per hub its
/// position, one row per live reading at its latest version, a tombstone per deletion; a change older than what it
/// holds changes nothing. It can be told to fail.
final class MemoryDestination: ChangeSink {
    struct State {
        var positions: [String: Int64] = [:]
        var rows: [String: [Int64: (version: Int64, reading: Reading)]] = [:]
        var tombstones: [String: [Int64: Int64]] = [:]
        var batches = 0
        /// Fails the push of this batch (counted from 1) before committing it, when set.
        var failBefore: Int?
        /// Commits this batch, then fails as if the connection dropped before the answer, when set.
        var failAfter: Int?
        var refuseConnections = false
        var closed = 0
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let state = Locked(State())
    var latestScope: LatestScope { .none }
    var isClosed: Bool { false }

    func position(hub hubID: String) async throws -> Int64 {
        try state.withLock { state in
            if state.refuseConnections { throw Failure(description: "connection refused") }
            return state.positions[hubID] ?? 0
        }
    }

    func push(_ batch: ChangeBatch) async throws {
        try state.withLock { state in
            state.batches += 1
            if state.failBefore == state.batches { throw Failure(description: "the server closed the connection") }
            var rows = state.rows[batch.hubID] ?? [:]
            var tombstones = state.tombstones[batch.hubID] ?? [:]
            for change in batch.changes {
                let newer = { (version: Int64?) in version.map { $0 < change.version } ?? true }
                switch change.operation {
                case .insert, .update:
                    if newer(rows[change.readingID]?.version), newer(tombstones[change.readingID]) {
                        rows[change.readingID] = (change.version, change.reading!)
                    }
                case .delete:
                    if newer(rows[change.readingID]?.version) { rows[change.readingID] = nil }
                    tombstones[change.readingID] = max(tombstones[change.readingID] ?? 0, change.version)
                }
            }
            state.rows[batch.hubID] = rows
            state.tombstones[batch.hubID] = tombstones
            state.positions[batch.hubID] = max(state.positions[batch.hubID] ?? 0, batch.through)
            if state.failAfter == state.batches { throw Failure(description: "the connection dropped") }
        }
    }

    func close() async { state.withLock { $0.closed += 1 } }

    /// The readings it holds of `hub`, by identifier.
    func readings(of hub: String) -> [Int64: Reading] {
        state.withLock { $0.rows[hub]?.mapValues(\.reading) ?? [:] }
    }
}

@Suite("Outbox: the change feed pushed to a sink exactly once")
struct OutboxTests {
    static let mac = MACAddress("004D3208D50A")!
    static let now = Timestamp(secondsSince1970: 1_764_000_000)

    static func glucose(_ minute: Int64) -> Reading {
        .glucose(
            GlucoseReading(
                mgPerDeciliter: 80 + Double(minute % 50),
                measuredAt: Timestamp(secondsSince1970: 1_763_000_000 + minute * 60)))
    }

    /// A store with `count` readings and a sink named `lab`.
    static func store(_ count: Int) throws -> VitalStore {
        let store = try VitalStore()
        try store.readings.store((0..<Int64(count)).map(glucose), device: mac)
        try store.sinks.add(SinkRecord(name: "lab", address: "postgresql://hub@localhost/lab", addedAt: now))
        return store
    }

    static func outbox(_ store: VitalStore, batchSize: Int = 10) -> Outbox {
        Outbox(store: store, now: { now }, clock: ContinuousClock(), batchSize: batchSize, logger: testLogger)
    }

    /// The store's exported readings, by identifier.
    static func exported(_ store: VitalStore) throws -> [Int64: Reading] {
        Dictionary(uniqueKeysWithValues: try store.readings.all().map { ($0.id, $0.reading) })
    }

    @Test("a push sends the whole history in batches, records the position, and a second push sends nothing")
    func wholeHistory() async throws {
        let store = try Self.store(95)
        let destination = MemoryDestination()
        let result = try await Self.outbox(store).push(try store.sinks.named("lab")) { destination }
        #expect(result == OutboxPush(pushed: 95, position: 95))
        #expect(destination.state.withLock { $0.batches } == 10)
        #expect(destination.readings(of: try store.hubID()) == (try Self.exported(store)))
        let sink = try store.sinks.named("lab")
        #expect(sink.position == 95 && sink.lastSuccess == Self.now && sink.lastError == nil)
        #expect(try store.sinks.queuedChanges(after: sink.position) == 0)
        let again = try await Self.outbox(store).push(sink) { destination }
        #expect(again == OutboxPush(pushed: 0, position: 95))
        #expect(destination.state.withLock { ($0.batches, $0.closed) } == (10, 2))
    }

    @Test("a failure mid-push is recorded and keeps the rest queued; the next push completes it, nothing twice")
    func failureMidPush() async throws {
        let store = try Self.store(50)
        let destination = MemoryDestination()
        destination.state.withLock { $0.failBefore = 3 }
        await #expect(throws: OutboxError.self) {
            try await Self.outbox(store).push(try store.sinks.named("lab")) { destination }
        }
        var sink = try store.sinks.named("lab")
        #expect(sink.position == 20 && sink.lastError == "the server closed the connection")
        #expect(sink.lastErrorAt == Self.now && sink.lastSuccess == Self.now)
        #expect(try store.sinks.queuedChanges(after: sink.position) == 30)
        // corrections and deletions made meanwhile are queued too
        try store.readings.delete(5, reason: "wrong strip", at: Self.now)
        try store.readings.delete(45, reason: "wrong strip", at: Self.now)
        let result = try await Self.outbox(store).push(sink) { destination }
        // the 30 queued, reading 45's insert replaced by its deletion, and reading 5's deletion
        #expect(result.pushed == 31)
        sink = try store.sinks.named("lab")
        #expect(destination.readings(of: try store.hubID()) == (try Self.exported(store)))
        #expect(destination.readings(of: try store.hubID()).count == 48)
    }

    @Test("a batch committed just before the connection dropped is not sent again: the destination's position rules")
    func committedThenDropped() async throws {
        let store = try Self.store(30)
        let destination = MemoryDestination()
        destination.state.withLock { $0.failAfter = 2 }
        await #expect(throws: OutboxError.self) {
            try await Self.outbox(store).push(try store.sinks.named("lab")) { destination }
        }
        // the home recorded 10; the destination has 20
        #expect(try store.sinks.named("lab").position == 10)
        let result = try await Self.outbox(store).push(try store.sinks.named("lab")) { destination }
        #expect(result == OutboxPush(pushed: 10, position: 30))
        #expect(destination.state.withLock { $0.batches } == 3)
        #expect(destination.readings(of: try store.hubID()) == (try Self.exported(store)))
    }

    @Test("a destination that lost the hub's data is sent all of it again")
    func destinationReset() async throws {
        let store = try Self.store(12)
        let destination = MemoryDestination()
        _ = try await Self.outbox(store).push(try store.sinks.named("lab")) { destination }
        destination.state.withLock { $0 = MemoryDestination.State() }
        let result = try await Self.outbox(store).push(try store.sinks.named("lab")) { destination }
        #expect(result == OutboxPush(pushed: 12, position: 12))
        #expect(destination.readings(of: try store.hubID()).count == 12)
    }

    @Test("a destination ahead of the home's feed (a restored home) is refused, and nothing is sent")
    func destinationAhead() async throws {
        let store = try Self.store(3)
        let destination = MemoryDestination()
        destination.state.withLock { $0.positions[try! store.hubID()] = 99 }
        await #expect {
            try await Self.outbox(store).push(try store.sinks.named("lab")) { destination }
        } throws: { error in
            "\(error)".contains("the destination has this hub's feed up to 99, past this home's end (3)")
        }
        #expect(destination.state.withLock { $0.batches } == 0)
        #expect(try store.sinks.named("lab").lastError?.contains("past this home's end") == true)
    }

    @Test("a connection that cannot be made is the sink's last error")
    func unreachable() async throws {
        let store = try Self.store(3)
        await #expect(throws: OutboxError.self) {
            try await Self.outbox(store).push(try store.sinks.named("lab")) {
                throw MemoryDestination.Failure(description: "cannot connect to localhost:5999: connection refused")
            }
        }
        let sink = try store.sinks.named("lab")
        #expect(sink.lastError == "cannot connect to localhost:5999: connection refused" && sink.position == 0)
    }

    @Test("follow pushes new readings as they are stored; a failing sink backs off without holding up another")
    func follow() async throws {
        let store = try Self.store(5)
        try store.sinks.add(SinkRecord(name: "down", address: "postgresql://hub@down/lab", addedAt: Self.now))
        let healthy = MemoryDestination()
        let failing = MemoryDestination()
        failing.state.withLock { $0.refuseConnections = true }
        let events = Locked<[OutboxEvent]>([])
        let outbox = Self.outbox(store)
        let sinks = try store.sinks.all()
        let following = Task {
            try await outbox.follow(sinks, connect: { $0.name == "lab" ? healthy : failing }, poll: .milliseconds(10)) {
                event in events.withLock { $0.append(event) }
            }
        }
        let hub = try store.hubID()
        for round in 1...3 {
            try store.readings.store([Self.glucose(Int64(100 + round))], device: Self.mac)
            let deadline = ContinuousClock.now + .seconds(20)
            while healthy.readings(of: hub).count < 5 + round, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        following.cancel()
        try await following.value
        #expect(healthy.readings(of: hub) == (try Self.exported(store)))
        let seen = events.withLock { $0 }
        #expect(seen.contains(.failed(sink: "down", message: "connection refused", retryIn: .seconds(1))))
        #expect(seen.contains { if case .pushed(sink: "lab", _, _) = $0 { true } else { false } })
        #expect(try store.sinks.named("down").lastError == "connection refused")
        // the connection kept open between pushes is closed at the end
        #expect(healthy.state.withLock { $0.closed } == 1)
    }

    @Test(
        "a follower whose store a newer release migrated stops before reading, pushing or recording anything",
        .needs(.python3))
    func followStopsOnNewerSchema() async throws {
        let directory = try TemporaryDirectory("outbox-schema")
        defer { directory.remove() }
        let path = directory.file("vitalbridge.sqlite")
        let store = try VitalStore(path: path)
        try store.readings.store((0..<5).map(Self.glucose), device: Self.mac)
        try store.sinks.add(SinkRecord(name: "lab", address: "postgresql://hub@localhost/lab", addedAt: Self.now))
        let sinks = try store.sinks.all()
        // a newer release's migration, from another process, while this one has the store open
        let migrate = try migrateAsNewerRelease(path)
        #expect(migrate.status == 0, "\(migrate.stderr)")
        let destination = MemoryDestination()
        let connections = Locked(0)
        await #expect {
            try await Self.outbox(store).follow(
                sinks,
                connect: { _ in
                    connections.withLock { $0 += 1 }
                    return destination
                }, poll: .milliseconds(10))
        } throws: { ($0 as? StoreError)?.code == .schema }
        // five changes were queued, and none left
        #expect(connections.withLock { $0 } == 0 && destination.state.withLock { $0.batches } == 0)
        #expect(try store.sinks.named("lab").position == 0)
    }

    @Test("a push and a failure are one line each, as sink push and sink follow print them")
    func lines() {
        #expect(OutboxPush(pushed: 1, position: 7).line(sink: "lab") == "lab: pushed 1 change; it has the feed up to 7")
        #expect(
            OutboxEvent.pushed(sink: "lab", changes: 3, position: 9).line
                == "lab: pushed 3 changes; it has the feed up to 9")
        #expect(
            OutboxEvent.failed(sink: "lab", message: "refused", retryIn: .seconds(2)).line
                == "lab: refused; trying again in 2.0 seconds")
    }
}
