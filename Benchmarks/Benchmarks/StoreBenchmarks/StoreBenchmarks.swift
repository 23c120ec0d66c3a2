import Benchmark
import Foundation
import GRDB
import VitalBridge
import VitalCore
import VitalDevices
import VitalSimulation
import VitalStore

/// A fresh store file in a temporary folder.
func temporaryStore() throws -> (VitalStore, URL) {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return (try VitalStore(path: directory.appendingPathComponent("vitalbridge.sqlite").path), directory)
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// 10,000 glucose readings a few minutes apart.
let readings: [Reading] = (0..<10_000).map { index in
    .glucose(
        GlucoseReading(
            mgPerDeciliter: Double(80 + index % 120),
            measuredAt: Timestamp(secondsSince1970: 1_700_000_000 + Int64(index) * 300)))
}

let recordsPerSecond = BenchmarkMetric.custom("records per second", polarity: .prefersLarger, useScalingFactor: false)
let microsecondsPerCommit = BenchmarkMetric.custom("µs per commit", polarity: .prefersSmaller, useScalingFactor: false)
let microsecondsPerRecord = BenchmarkMetric.custom("µs per record", polarity: .prefersSmaller, useScalingFactor: false)

/// A push device (BP5, or the HS4S with its body compositions) holding `count` records, synced through its driver
/// into a store file in process: the microseconds each record costs (one durable commit each, as the device forgets
/// a record when it is confirmed).
func pushSync(_ benchmark: Benchmark, count: Int, model: DeviceModel = .bp5) async throws {
    let (store, directory) = try temporaryStore()
    defer { try? FileManager.default.removeItem(at: directory) }
    let mac = MACAddress("004D3208D2F4")!
    let world = try SimulatedWorld(
        fleet: Fleet(devices: [
            FleetDevice(
                model: model.name, mac: mac.description,
                records: RecordsScript(
                    generate: GeneratedRecords(count: count, from: "2016-01-01 00:00:00", to: "2026-01-01 00:00:00")))
        ]),
        start: Timestamp(secondsSince1970: 1_763_625_600))
    _ = await world.deviceState(of: mac)  // the device's memory is made before the clock starts
    let clock = ContinuousClock()
    benchmark.startMeasurement()
    let start = clock.now
    let connection = try await world.connect(to: mac)
    let driver = makeDriver(for: DeviceCatalog.entry(for: model), connection: connection) { world.clock.wallTime }
    let synced = try await driver.sync(into: StoreSink(store: store, device: mac)) { _ in }
    let elapsed = clock.now - start
    benchmark.stopMeasurement()
    precondition(synced == count)
    benchmark.measurement(microsecondsPerRecord, Int(seconds(elapsed) * 1e6 / Double(count)))
}

/// A store file of `count` glucose readings, made once per process for each size (the feed's pages read it).
func feedStore(_ count: Int) throws -> VitalStore {
    feedStoresLock.lock()
    defer { feedStoresLock.unlock() }
    do {
        if let store = feedStores[count] { return store }
        let (store, _) = try temporaryStore()
        let mac = MACAddress("004D3208D308")!
        for batch in stride(from: 0, to: count, by: 10_000) {
            try store.readings.store(
                (batch..<min(batch + 10_000, count)).map { index in
                    .glucose(
                        GlucoseReading(
                            mgPerDeciliter: Double(80 + index % 120),
                            measuredAt: Timestamp(secondsSince1970: 1_500_000_000 + Int64(index) * 60)))
                }, device: mac)
        }
        feedStores[count] = store
        return store
    }
}

nonisolated(unsafe) var feedStores: [Int: VitalStore] = [:]
let feedStoresLock = NSLock()

/// A page of 1,000 changes of the feed of a home of `count` readings, after a cursor in its middle.
func feedPage(_ benchmark: Benchmark, count: Int) throws {
    let store = try feedStore(count)
    var cursor = try store.feed.end()
    cursor.sequence /= 2
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
        blackHole(try store.feed.changes(after: cursor, limit: 1_000))
    }
    benchmark.stopMeasurement()
}

/// A consumer resumes the feed after 1,000,000 inserts, 10,000 deletions and 1,000 corrections made since its
/// cursor: the time to read all of it (in pages of 10,000), checked to be exactly that difference.
func feedResume(_ benchmark: Benchmark) throws {
    let (store, directory) = try temporaryStore()
    defer { try? FileManager.default.removeItem(at: directory) }
    let mac = MACAddress("004D3208D40C")!
    func weight(_ index: Int, fat: Double? = nil) -> Reading {
        .weight(
            WeightReading(
                kilograms: 60 + Double(index % 400) / 10,
                measuredAt: Timestamp(secondsSince1970: 1_400_000_000 + Int64(index) * 60),
                bodyComposition: fat.map { BodyComposition(bodyFatPercentage: $0) }))
    }
    try store.readings.store((0..<1_000).map { weight($0) }, device: mac)
    let cursor = try store.feed.end()
    for batch in stride(from: 1_000, to: 1_001_000, by: 20_000) {
        try store.readings.store((batch..<batch + 20_000).map { weight($0) }, device: mac)
    }
    // every 100th reading deleted, every 1,000th (of the others) corrected: before and after the cursor
    for id in stride(from: Int64(50), through: 1_001_000, by: 100) {
        try store.readings.delete(id, reason: "benchmark", at: Timestamp(secondsSince1970: 1_764_000_000))
    }
    // indexes 10, 1,010, …: readings 11, 1,011, …, never a deleted one
    let corrections = stride(from: 10, to: 1_000_000, by: 1_000).map { weight($0, fat: 20) }
    try store.readings.store(
        corrections, device: mac,
        merging: ReadingMerge(
            mayMerge: { _ in true },
            merged: { new, stored in
                guard case .weight(var whole) = stored, case .weight(let part) = new else { return nil }
                whole.bodyComposition = part.bodyComposition
                return .weight(whole)
            }))
    var counts: [ReadingChange.Operation: Int] = [:]
    var position = cursor
    benchmark.startMeasurement()
    while true {
        let page = try store.feed.changes(after: position, limit: 10_000)
        guard let last = page.last else { break }
        for change in page { counts[change.operation, default: 0] += 1 }
        position.sequence = last.sequence
    }
    benchmark.stopMeasurement()
    // 10,010 deletions, 1,000 corrections; every new reading neither deleted nor corrected once as an insert
    precondition(counts[.delete] == 10_010 && counts[.update] == 1_000, "\(counts)")
    let newDeleted = stride(from: 50, through: 1_001_000, by: 100).filter { $0 > 1_000 }.count
    let newCorrected = stride(from: 10, to: 1_000_000, by: 1_000).filter { $0 >= 1_000 }.count
    precondition(counts[.insert] == 1_000_000 - newDeleted - newCorrected, "\(counts)")
}

let itemsPerSecond = BenchmarkMetric.custom("band items per second", polarity: .prefersLarger, useScalingFactor: false)

/// A Fit Pro 9614N that recorded for `days` days (each completed heart-rate hour, each night, sport and day), synced
/// through its driver into a store file in process, radio timing off: what it holds is pushed, committed in batches
/// of 512 and acknowledged, and each day's summary revised as its items arrive.
func bandSync(_ benchmark: Benchmark, days: Int) async throws {
    let (store, directory) = try temporaryStore()
    defer { try? FileManager.default.removeItem(at: directory) }
    let mac = MACAddress("004D3208D310")!
    let start = Timestamp(secondsSince1970: 1_763_640_000)
    var band = FleetDevice(model: "FitPro9614N", mac: mac.description)
    band.recordingSince = Timestamp(secondsSince1970: start.secondsSince1970 - Int64(days) * 86_400).description
    let world = try SimulatedWorld(fleet: Fleet(devices: [band]), start: start)
    let clock = ContinuousClock()
    benchmark.startMeasurement()
    let begin = clock.now
    let connection = try await world.connect(to: mac)
    let driver = makeDriver(for: DeviceCatalog.entry(for: .fitPro9614N), connection: connection) {
        world.clock.wallTime
    }
    let count = try await driver.sync(into: StoreSink(store: store, device: mac)) { _ in }
    let elapsed = clock.now - begin
    benchmark.stopMeasurement()
    let stored = try store.readings.all(device: mac).count
    precondition(stored == days + 1, "\(stored) days stored of \(days + 1)")
    benchmark.measurement(itemsPerSecond, Int(Double(count) / seconds(elapsed)))
}

/// Wall time, peak memory and the records per second each benchmark reports.
var throughput: Benchmark.Configuration {
    .init(metrics: [.wallClock, .peakMemoryResident, recordsPerSecond], maxDuration: .seconds(10), maxIterations: 20)
}

let benchmarks: @Sendable () -> Void = {
    Benchmark(
        "One synchronous = FULL commit in WAL mode (one row, bare SQLite), the floor of a push sync's record",
        configuration: .init(metrics: [microsecondsPerCommit], maxDuration: .seconds(10), maxIterations: 20)
    ) { benchmark in
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("commit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try DatabaseQueue(path: directory.appendingPathComponent("bare.sqlite").path)
        try database.writeWithoutTransaction { db in
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = FULL")
            try db.execute(sql: "CREATE TABLE row (id INTEGER PRIMARY KEY, value TEXT NOT NULL)")
        }
        let commits = 500
        let clock = ContinuousClock()
        benchmark.startMeasurement()
        let start = clock.now
        for index in 0..<commits {
            try database.writeWithoutTransaction { db in
                try db.execute(sql: "INSERT INTO row (value) VALUES (?)", arguments: ["reading \(index)"])
            }
        }
        let elapsed = clock.now - start
        benchmark.stopMeasurement()
        benchmark.measurement(microsecondsPerCommit, Int(seconds(elapsed) * 1e6 / Double(commits)))
    }

    Benchmark(
        "Push sync (BP5) of 4,000 records into a store file, in process: the cost of one record",
        configuration: .init(
            metrics: [.wallClock, .peakMemoryResident, microsecondsPerRecord], maxDuration: .seconds(20),
            maxIterations: 5)
    ) { benchmark in
        try await pushSync(benchmark, count: 4_000)
    }

    Benchmark(
        "Push sync (HS4S) of 4,000 weights with their body composition into a store file, in process: one record",
        configuration: .init(
            metrics: [.wallClock, .peakMemoryResident, microsecondsPerRecord], maxDuration: .seconds(20),
            maxIterations: 5)
    ) { benchmark in
        try await pushSync(benchmark, count: 4_000, model: .hs4s)
    }

    Benchmark(
        "Push sync (BP5) of 65,000 records into a store file, in process: the cost of one record",
        configuration: .init(
            metrics: [.wallClock, .peakMemoryResident, microsecondsPerRecord], maxDuration: .seconds(30),
            maxIterations: 2)
    ) { benchmark in
        try await pushSync(benchmark, count: 65_000)
    }

    Benchmark(
        "Smartband month (30 days: 720 heart-rate hours, about 41,000 minutes, nights, sports) into a store file",
        configuration: .init(
            metrics: [.wallClock, .peakMemoryResident, itemsPerSecond], maxDuration: .seconds(20), maxIterations: 10)
    ) { benchmark in
        try await bandSync(benchmark, days: 30)
    }

    Benchmark(
        "Smartband year (365 days: 8,760 heart-rate hours, about 500,000 minutes) into a store file",
        configuration: .init(
            metrics: [.wallClock, .peakMemoryResident, itemsPerSecond], maxDuration: .seconds(60), maxIterations: 3)
    ) { benchmark in
        try await bandSync(benchmark, days: 365)
    }

    Benchmark(
        "Sync 10,000 glucose records from the simulated BG5 into a store file, in process", configuration: throughput
    ) { benchmark in
        let (store, directory) = try temporaryStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let mac = MACAddress("004D3208D308")!
        let world = try SimulatedWorld(
            fleet: Fleet(devices: [
                FleetDevice(
                    model: "BG5", mac: mac.description,
                    records: RecordsScript(
                        generate: GeneratedRecords(
                            count: 10_000, from: "2025-01-01 00:00:00", to: "2026-01-01 00:00:00")))
            ]),
            start: Timestamp(secondsSince1970: 1_763_625_600))
        let clock = ContinuousClock()
        benchmark.startMeasurement()
        let start = clock.now
        let connection = try await world.connect(to: mac)
        let driver = GlucoseDriver(entry: DeviceCatalog.entry(for: .bg5), connection: connection)
        let count = try await driver.sync(into: StoreSink(store: store, device: mac)) { _ in }
        let elapsed = clock.now - start
        benchmark.stopMeasurement()
        benchmark.measurement(recordsPerSecond, Int(Double(count) / seconds(elapsed)))
    }

    Benchmark(
        "A page of 1,000 changes of the feed of a 10,000-reading home (vitalbridge changes --limit 1000)",
        configuration: .init(metrics: [.wallClock, .peakMemoryResident], maxDuration: .seconds(10), maxIterations: 200)
    ) { benchmark in
        try feedPage(benchmark, count: 10_000)
    }

    Benchmark(
        "A page of 1,000 changes of the feed of a 1,000,000-reading home (vitalbridge changes --limit 1000)",
        configuration: .init(metrics: [.wallClock, .peakMemoryResident], maxDuration: .seconds(10), maxIterations: 200)
    ) { benchmark in
        try feedPage(benchmark, count: 1_000_000)
    }

    Benchmark(
        "Resume the feed after 1,000,000 inserts, 10,000 deletions and 1,000 corrections, checked to be exactly those",
        configuration: .init(metrics: [.wallClock, .peakMemoryResident], maxDuration: .seconds(10), maxIterations: 1)
    ) { benchmark in
        try feedResume(benchmark)
    }

    Benchmark(
        "Store 10,000 readings in a new store file (WAL, synchronous FULL), in batches of 512",
        configuration: throughput
    ) { benchmark in
        let (store, directory) = try temporaryStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let mac = MACAddress("004D3208D308")!
        let clock = ContinuousClock()
        benchmark.startMeasurement()
        let start = clock.now
        for batch in stride(from: 0, to: readings.count, by: 512) {
            try store.readings.store(Array(readings[batch..<min(batch + 512, readings.count)]), device: mac)
        }
        let elapsed = clock.now - start
        benchmark.stopMeasurement()
        benchmark.measurement(recordsPerSecond, Int(Double(readings.count) / seconds(elapsed)))
    }
}
