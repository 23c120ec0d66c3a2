import HealthGATT
import Testing
import VitalCore
import VitalDevices
import VitalTestSupport

@testable import VitalSimulation

/// The seeds of `Fuzz/Sources/FuzzFleet` (fleets and saved device states) and `FuzzSmartband` (the vendor codecs,
/// each after the byte that picks its codec there: 0 band message, 1 band command, 2 vendor command, 3 vendor
/// event, 4 activity day record), from this target's examples.
@Suite("Fuzz corpus: fleets and vendor codecs")
struct SimulationCorpusTests {
    @Test("the fleet seeds are the default fleet, random fleets and random device states, one with users")
    func fleets() throws {
        var random = SeededGenerator(seed: 0xC0_4905)
        let fleets = [Fleet.default] + (0..<6).map { _ in FleetJSONTests.randomFleet(&random) }
        var states = (0..<6).map { _ in FleetJSONTests.randomState(&random) }
        states.append(FleetJSONTests.withUsers(states[0]))
        let seeds =
            fleets.enumerated().map { (name: "fleet-\($0.offset)", bytes: $0.element.json) }
            + states.enumerated().map { (name: "state-\($0.offset)", bytes: $0.element.json) }
        #expect(try FuzzCorpus.differences("FuzzFleet", seeds) == [])
    }

    @Test("the vendor codec seeds are every message, command and event of the codec tests")
    func vendorCodecs() throws {
        var random = SeededGenerator(seed: 0xBA_4D02)
        let items = (0..<10).map { index in
            BandMessage.item(sequence: UInt32(index + 1), SmartbandCodecTests.randomItem(&random))
        }
        var encoded: [(codec: UInt8, bytes: [UInt8])] = []
        encoded += (items + SmartbandCodecTests.otherMessages).map { (0, $0.encoded(today: SmartbandCodecTests.day)) }
        encoded += try SmartbandCodecTests.exampleCommands().map { (1, $0.encoded) }
        encoded += ActivityMonitorTests.vendorCommands.map { (2, $0.encoded) }
        encoded += ActivityMonitorTests.vendorEvents.map { (3, $0.encoded) }
        encoded.append((4, ActivityDayRecord(day: ActivityMonitorTests.activityDay).encoded))
        encoded.append((5, BandTimeCodecTests.exampleBytes))
        // an item moved back by 90 minutes (i32, little-endian), then by -1441
        let moved = items[3].encoded(today: SmartbandCodecTests.day)
        encoded += [[90, 0, 0, 0], [0x5F, 0xFA, 0xFF, 0xFF]].map { (6, $0 + moved) }
        // the settings read back
        encoded += try BandSettingsCodecTests.answers().map { (0, $0.bytes) }
        encoded += BandSettingsCodecTests.getters.map { (1, $0.bytes) }
        let names = [
            "band-message", "band-command", "vendor-command", "vendor-event", "activity-day", "band-time", "moved-item",
        ]
        let seeds = encoded.enumerated().map { index, seed in
            (name: "\(names[Int(seed.codec)])-\(index)", bytes: [seed.codec] + seed.bytes)
        }
        #expect(try FuzzCorpus.differences("FuzzSmartband", seeds) == [])
    }
}
