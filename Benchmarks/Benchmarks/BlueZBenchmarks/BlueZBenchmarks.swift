import Benchmark
import BlueZ
import Foundation
import SimulatedBlueZ
import VitalCore
import VitalDevices
import VitalSimulation
import VitalTestSupport

/// A sink that only counts: the transport is what is measured.
final class CountingSink: RecordSink, @unchecked Sendable {
    var count = 0
    func store(_ records: [DeviceRecord]) async throws { count += records.count }
}

let records = 10_000
let meter = MACAddress("004D3208D308")!

func world() throws -> SimulatedWorld {
    try SimulatedWorld(
        fleet: Fleet(devices: [
            FleetDevice(
                model: "BG5", mac: meter.description,
                records: RecordsScript(
                    generate: GeneratedRecords(
                        count: records, from: "2025-01-01 00:00:00", to: "2026-01-01 00:00:00")))
        ]),
        start: Timestamp(secondsSince1970: 1_763_625_600))
}

func sync(_ central: any BluetoothCentral) async throws -> Int {
    let connection = try await central.connect(to: meter)
    let driver = GlucoseDriver(entry: DeviceCatalog.entry(for: .bg5), connection: connection)
    let count = try await driver.sync(into: CountingSink()) { _ in }
    await connection.disconnect()
    return count
}

let perRecord = BenchmarkMetric.custom("ns per record", polarity: .prefersSmaller, useScalingFactor: false)

/// Measures `run` and reports its time per record.
func measure(_ benchmark: Benchmark, _ run: () async throws -> Int) async throws {
    let clock = ContinuousClock()
    benchmark.startMeasurement()
    let start = clock.now
    let count = try await run()
    let elapsed = clock.now - start
    benchmark.stopMeasurement()
    precondition(count == records)
    let nanoseconds = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
    benchmark.measurement(perRecord, Int((nanoseconds / Double(count)).rounded()))
}

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .peakMemoryResident, perRecord], maxDuration: .seconds(20), maxIterations: 10)

    Benchmark("Sync 10,000 glucose records in process (the seam, no transport)", configuration: configuration) {
        benchmark in
        let simulated = try world()
        try await measure(benchmark) { try await sync(simulated) }
    }

    Benchmark(
        "Sync 10,000 glucose records over D-Bus (simulated org.bluez → dbus-daemon → BlueZCentral → driver)",
        configuration: configuration
    ) { benchmark in
        let daemon = try PrivateBus()
        defer { daemon.stop() }
        let server = try await SimulatedBlueZ(world: try world(), bus: daemon.address, pace: 0)
        let serving = Task { try await server.run() }
        let central = BlueZCentral(
            bus: .address(daemon.address), scanDuration: .milliseconds(200), logger: testLogger)
        try await measure(benchmark) { try await sync(central) }
        await central.close()
        await server.close()
        serving.cancel()
    }
}
