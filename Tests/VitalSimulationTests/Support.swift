import Locking
import Testing
import VitalCore
import VitalDevices
import VitalSimulation

/// A sink that keeps what it is given, optionally failing after some records.
final class MemorySink: RecordSink, Sendable {
    private let records = Locked<[DeviceRecord]>([])
    private let calls = Locked(0)
    let failAfter: Int?

    init(failAfter: Int? = nil) { self.failAfter = failAfter }

    func store(_ batch: [DeviceRecord]) async throws {
        try records.withLock { records in
            if let failAfter, records.count + batch.count > failAfter { throw StoreFailure() }
            records += batch
        }
        calls.withLock { $0 += 1 }
    }

    var stored: [DeviceRecord] { records.withLock { $0 } }
    var readings: [Reading] { stored.map(\.reading) }
    var callCount: Int { calls.withLock { $0 } }

    struct StoreFailure: Error {}
}

let start = Timestamp(parsing: "2026-11-20 08:00:00")!

/// A world of one device.
func world(_ device: FleetDevice, user: UserScript = UserScript()) throws -> SimulatedWorld {
    try SimulatedWorld(fleet: Fleet(user: user, devices: [device]), start: start)
}

/// A driver for the world's device `mac`.
func driver(_ world: SimulatedWorld, _ mac: String) async throws -> any DeviceDriver {
    let address = MACAddress(mac)!
    let connection = try await world.connect(to: address)
    let model = world.configurations.first { $0.mac == address }!.entry
    return makeDriver(for: model, connection: connection) { world.clock.wallTime }
}

/// `count` readings listed in a fleet file for `family`, an hour apart from 2026-11-19 00:00.
func listedRecords(_ family: DeviceFamily, count: Int) -> RecordsScript {
    RecordsScript(
        list: (0..<count).map { index in
            var reading = SimulatedReading()
            let time = Timestamp(secondsSince1970: start.secondsSince1970 - 86_400 + Int64(index) * 3600)
            reading.measuredAt = time.description
            switch family {
            case .bloodPressure:
                (reading["systolic"], reading["diastolic"], reading["pulse"]) = (
                    .number(Double(110 + index)), .number(70), .number(64)
                )
            case .glucose: reading["glucose"] = .number(Double(90 + index))
            case .scale: reading["weight"] = .number(70 + Double(index) * 0.005)
            case .thermometer: reading["temperature"] = .number(36.5 + Double(index % 10) / 10)
            case .pulseOximeter:
                (reading["spo2"], reading["pulse"], reading["pi"]) = (
                    .number(Double(95 + index % 5)), .number(60), .number(2.5)
                )
            case .activityMonitor:
                reading.measuredAt = nil
                reading.date =
                    Timestamp(secondsSince1970: start.secondsSince1970 - Int64(count - index) * 86_400).day
                    .description
                (reading["steps"], reading["calories"], reading["sleepMinutes"], reading["sleepEfficiency"]) = (
                    .integer(1000 + index), .integer(200), .integer(420), .integer(90)
                )
            case .smartband, .heartRateSensor:
                preconditionFailure("a smartband or heart-rate sensor keeps no listed records")
            }
            return reading
        })
}

/// `reading` as a driver reads it from a device whose clock it cannot read: an activity day marked
/// `timeUnverified`; a reading of an instant as it is (the simulated devices that date instants serve their clock).
func unverifiedIfDay(_ reading: Reading) -> Reading {
    guard case .activity = reading else { return reading }
    var reading = reading
    reading.annotations.status.insert(.timeUnverified)
    return reading
}
