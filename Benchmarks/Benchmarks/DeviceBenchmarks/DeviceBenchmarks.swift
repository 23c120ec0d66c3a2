import Benchmark
import VitalCore
import VitalDevices
import VitalSimulation

/// A sink that keeps the records in memory, as fast as a sink can be.
final class CountingSink: RecordSink, @unchecked Sendable {
    var count = 0
    func store(_ records: [DeviceRecord]) async throws { count += records.count }
}

/// A world with one BG5 holding 10,000 records, with or without radio timing.
func glucoseWorld(radio: RadioTiming?) throws -> SimulatedWorld {
    try SimulatedWorld(
        fleet: Fleet(devices: [
            FleetDevice(
                model: "BG5", mac: "004D3208D308",
                records: RecordsScript(
                    generate: GeneratedRecords(count: 10_000, from: "2025-01-01 00:00:00", to: "2026-01-01 00:00:00")),
                radio: radio)
        ]),
        start: Timestamp(secondsSince1970: 1_763_625_600))
}

func syncAll(_ world: SimulatedWorld) async throws -> Int {
    let connection = try await world.connect(to: MACAddress("004D3208D308")!)
    let driver = GlucoseDriver(entry: DeviceCatalog.entry(for: .bg5), connection: connection)
    let sink = CountingSink()
    let count = try await driver.sync(into: sink) { _ in }
    await connection.disconnect()
    return count
}

let benchmarks: @Sendable () -> Void = {
    // One sync per sample: the world (10,000 generated records) is built before the measurement starts.
    Benchmark(
        "Sync 10,000 glucose records through the RACP driver from the simulator (radio timing off)",
        configuration: .init(
            metrics: [
                .wallClock, .mallocCountTotal, .peakMemoryResident,
                .custom("records per second", polarity: .prefersLarger, useScalingFactor: false),
            ],
            maxDuration: .seconds(10), maxIterations: 30)
    ) { benchmark in
        let world = try glucoseWorld(radio: nil)
        let wall = ContinuousClock()
        benchmark.startMeasurement()
        let start = wall.now
        let count = try await syncAll(world)
        let elapsed = wall.now - start
        benchmark.stopMeasurement()
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        benchmark.measurement(
            .custom("records per second", polarity: .prefersLarger, useScalingFactor: false),
            Int(Double(count) / seconds))
    }

    Benchmark(
        "Sync 10,000 glucose records with radio timing (7.5 ms interval, one record per connection event)",
        configuration: .init(
            metrics: [
                .wallClock,
                .custom("virtual radio time (ms)", polarity: .prefersSmaller, useScalingFactor: false),
            ],
            maxDuration: .seconds(10), maxIterations: 10)
    ) { benchmark in
        let world = try glucoseWorld(radio: RadioTiming(connectionIntervalMilliseconds: 7.5, notificationsPerEvent: 1))
        benchmark.startMeasurement()
        blackHole(try await syncAll(world))
        benchmark.stopMeasurement()
        let virtual = world.clock.elapsedTime
        benchmark.measurement(
            .custom("virtual radio time (ms)", polarity: .prefersSmaller, useScalingFactor: false),
            Int(virtual.components.seconds * 1000 + virtual.components.attoseconds / 1_000_000_000_000_000))
    }
}
