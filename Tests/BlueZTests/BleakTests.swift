import BlueZ
import Foundation
import HealthGATT
import SimulatedBlueZ
import TestRequirements
import Testing
import VitalCore
import VitalDevices
import VitalSimulation
import VitalTestSupport

/// bleak, a BlueZ client nobody here wrote, against the simulated `org.bluez`: if it could not talk to our BlueZ,
/// neither could a real client.
@Suite("bleak against the simulated BlueZ", .needs(Requirement.bus + [.oracles]))
struct BleakTests {
    /// What bleak found, by address.
    struct Probe: Decodable {
        let name: String?
        let services: [String]
        let reads: [String: String]
        /// The reads the device refused, with bleak's message.
        let errors: [String: String]
        let values: [String: [String]]
    }

    static func bytes(_ hex: String) -> [UInt8] {
        var result: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            result.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return result
    }

    static func withoutComposition(_ reading: Reading) -> Reading {
        guard case .weight(var weight) = reading else { return reading }
        weight.bodyComposition = nil
        return .weight(weight)
    }

    /// Runs the oracle `script` with `arguments` against `bench`'s BlueZ, and returns what it printed.
    static func run(_ script: String, _ arguments: [String], on bench: BlueZBench) async throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Oracles.python())
        process.arguments = [Oracles.script(script)] + arguments
        process.environment = ["DBUS_SYSTEM_BUS_ADDRESS": bench.bus.address, "PATH": "/usr/bin:/bin"]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // waited for off the runtime's pool, whose threads the simulated BlueZ needs meanwhile
        let (data, stderr) = try await blockingOffPool {
            let data = output.fileHandleForReading.readDataToEndOfFile()
            let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (data, stderr)
        }
        #expect(process.terminationStatus == 0, "\(stderr)")
        return data
    }

    /// What bleak did with a User Data Service.
    struct UserDataProbe: Decodable {
        let properties: [String: [String]]
        let indexBefore: String
        let refused: String?
        let responses: [String]
        let index: String
    }

    @Test("bleak registers a user on the built-in scale, consents as them, and is refused a wrong consent code")
    func userDataService() async throws {
        // served on a thread of its own: on the pool, a CI run whose other tests blocked its threads left bleak's
        // scan unanswered for its whole timeout
        let bench = try await BlueZBench(pace: 0.01)
        let scale = MACAddress("004D3208D316")!
        let data: Data
        do {
            data = try await Self.run("bleak_uds.py", [BlueZNames.address(scale), "4321"], on: bench)
        } catch {
            await bench.stop()
            throw error
        }
        await bench.stop()
        let probe = try JSONDecoder().decode(UserDataProbe.self, from: data)
        // the service's characteristics with the flags bluetoothd gives them
        let readWrite = ["read", "write"]
        #expect(
            probe.properties == [
                BlueZNames.uuid(0x2A8A): readWrite, BlueZNames.uuid(0x2A80): readWrite,
                BlueZNames.uuid(0x2A85): readWrite, BlueZNames.uuid(0x2A8C): readWrite,
                BlueZNames.uuid(0x2A8E): readWrite, BlueZNames.uuid(0x2A99): ["notify", "read", "write"],
                BlueZNames.uuid(0x2A9A): ["read"], BlueZNames.uuid(0x2A9F): ["indicate", "write"],
            ])
        #expect(probe.indexBefore == "ff")
        // bleak adds what it knows of the code: "(Unknown code)" for an application error
        #expect(probe.refused?.contains("[org.bluez.Error.Failed] Operation failed with ATT error: 0x80") == true)
        // registered in the lowest free slot (Ann and Bob hold 1 and 2), consented as it, refused as Ann with 9999:
        // each response indicated, and delivered as the control point's Value
        #expect(probe.responses == ["20010100", "200201", "200205"])
        #expect(probe.index == "00")
        let registered = await bench.world.deviceState(of: scale)?.users?.first
        #expect(registered == SimulatedUser(index: 0, consentCode: 4321))
    }

    @Test("bleak scans, connects, reads and subscribes to every simulated device, and decodes what the hub decodes")
    func probe() async throws {
        // served on the runtime's pool, as it was when this test was written (on the executor of a thread of its own,
        // the heart-rate sensor sent bleak fewer than ten beats in two runs of the whole suite, never alone)
        let bench = try await BlueZBench(pace: 0.01, executor: nil)
        let reference = try SimulatedWorld(fleet: .default, start: Timestamp(parsing: "2026-11-20 08:00:00")!)
        let data: Data
        do {
            data = try await Self.run("bleak_probe.py", ["0.3"], on: bench)
        } catch {
            await bench.stop()
            throw error
        }
        await bench.stop()
        let probes = try JSONDecoder().decode([String: Probe].self, from: data)

        let bluetooth = reference.configurations.filter { $0.entry.reach == .bluetooth }
        #expect(Set(probes.keys) == Set(bluetooth.map { BlueZNames.address($0.mac) }))
        for device in bluetooth {
            let found = try #require(probes[BlueZNames.address(device.mac)], "\(device.mac)")
            #expect(found.name == device.advertisement.localName)
            #expect(found.services == device.advertisement.services.map(BlueZNames.uuid))
            #expect(found.reads[BlueZNames.uuid(0x2A25)].map(Self.bytes) == device.serial.map { Array($0.utf8) })
            #expect(found.reads[BlueZNames.uuid(0x2A26)].map(Self.bytes) == device.firmware.map { Array($0.utf8) })
            #expect(found.reads[BlueZNames.uuid(0x2A19)] == "5a")
            // a User Data Service reads its user index to anyone, its user's data only after a consent
            let userData: [UInt16] = [0x2A8A, 0x2A80, 0x2A85, 0x2A8C, 0x2A8E, 0x2A99]
            #expect(Set(found.errors.keys) == Set(device.userData == nil ? [] : userData.map(BlueZNames.uuid)))
            #expect(found.errors.values.allSatisfy { $0.contains("Operation failed with ATT error: 0x80") })
            #expect(found.reads[BlueZNames.uuid(0x2A9A)] == (device.userData == nil ? nil : "ff"))
            // what a push device indicates and what a glucose meter reports are its stored readings, in order
            let measurement = device.entry.measurementCharacteristic.characteristic
            switch device.entry.family {
            case .bloodPressure, .thermometer, .scale, .glucose:
                let values = found.values[BlueZNames.uuid(measurement)] ?? []
                var readings = try values.map { try DeviceRecord(decoding: Self.bytes($0), of: measurement).reading }
                // a device with users sends theirs only on a link consented as them, which bleak's is not
                var stored = await reference.storedReadings(of: device.mac).filter { reading in
                    let user = reading.annotations.userIndex
                    return device.userData == nil || user == nil || user == UserDataService.unknownUser
                }
                if device.bodyComposition != nil {
                    // a scale's compositions come apart from its weights: each is the stored reading's of its time
                    let compositions = found.values[BlueZNames.uuid(0x2A9C)] ?? []
                    #expect(compositions.count >= stored.count)
                    var matched = 0
                    for value in compositions {
                        let composition = try BodyCompositionMeasurement(bytes: Self.bytes(value))
                        let time = try #require(composition.timeStamp)
                        let reading = stored.first { DateTime($0.measuredAt) == time }
                        guard case .weight(let weight)? = reading else { continue }
                        #expect(
                            Double(composition.bodyFatPercentage) / 10 == weight.bodyComposition?.bodyFatPercentage)
                        matched += 1
                    }
                    // every stored reading's composition came, besides the user's new one
                    #expect(matched == stored.count)
                    readings = readings.map(Self.withoutComposition)
                    stored = stored.map(Self.withoutComposition)
                }
                #expect(readings.filter(stored.contains) == stored, "\(device.entry.model.name)")
                // a generic device's simulated user measures while bleak listens: one new reading (a meter notifies
                // it, and reports it again from its memory)
                let new = Set(readings.filter { !stored.contains($0) })
                #expect(new.count <= (device.entry.model.isStandardProfile ? 1 : 0), "\(device.entry.model.name)")
            case .heartRateSensor:
                let beats = try (found.values[BlueZNames.uuid(0x2A37)] ?? []).map {
                    try HeartRateMeasurement(bytes: Self.bytes($0))
                }
                #expect(
                    beats.count >= 10 && beats.allSatisfy { (40...120).contains($0.heartRate) }, "\(beats.count) beats")
                #expect(beats.allSatisfy { $0.rrIntervals.count == 1 })
            default:
                break
            }
        }
        // a glucose meter answers the report request bleak wrote with a RACP success
        let meter = try #require(probes[BlueZNames.address(MACAddress("004D3208D308")!)])
        #expect(meter.values[BlueZNames.uuid(0x2A52)] == ["06000101"])
    }
}
