import Foundation
import TestRequirements
import Testing
import VitalCore
import VitalStore
import VitalTestSupport

/// What the MQTT sink retains for Home Assistant, through the real process against a private mosquitto, read back and
/// checked by the oracle `ha_discovery.py`: paho-mqtt collects what the broker retains, and Jinja2 renders each
/// sensor's templates against its state as Home Assistant would.
@Suite(
    "vitalbridge sink to MQTT: Home Assistant discovery", .needs(Requirement.mosquitto),
    .needs(Requirement.oracles))
struct MQTTDiscoveryTests {
    /// What Home Assistant would see on the broker.
    struct Seen {
        /// Every retained topic.
        var retained: [String]
        /// Each sensor by unique_id: its device's name, its value and its attributes as Home Assistant renders them.
        var sensors: [String: (device: String, value: String, attributes: String)]
    }

    static func seen(_ broker: PrivateBroker, sourceLocation: SourceLocation = #_sourceLocation) throws -> Seen {
        let output = try SpawnedProgram.run(
            try Oracles.python(),
            [Oracles.script("ha_discovery.py"), "127.0.0.1", "\(broker.port)", PrivateBroker.user],
            environment: ["MQTT_PASSWORD": PrivateBroker.password])
        #expect(output.status == 0, "\(output.stdout)\(output.stderr)", sourceLocation: sourceLocation)
        var lines = output.stdout.split(separator: "\n").map(String.init)
        struct Topics: Decodable { let retained: [String] }
        let topics = try JSONDecoder().decode(Topics.self, from: Data(lines.removeFirst().utf8))
        var seen = Seen(retained: topics.retained, sensors: [:])
        for line in lines {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            try #require(fields.count == 4, "\(line)", sourceLocation: sourceLocation)
            seen.sensors[fields[0]] = (fields[1], fields[2], fields[3])
        }
        return seen
    }

    static func push(_ home: TestHome, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let push = try home.run(["sink", "push", "--home", home.path])
        #expect(push.status == 0, "\(push.stderr)", sourceLocation: sourceLocation)
    }

    static func time(_ index: Int) -> String {
        "\(Timestamp(secondsSince1970: 1_700_000_000 + Int64(index) * 60))"
    }

    @Test(
        "the home's latest glucose by measurement time: a deleted latest gives way to the one before, an old record synced later changes nothing, sink remove clears it all"
    )
    func homeLatest() throws {
        let broker = try PrivateBroker()
        defer { broker.stop() }
        let home = try MQTTSinkCommandTests.homeWithSink(30, broker)
        let hub = try home.store().hubID()
        try Self.push(home)
        var seen = try Self.seen(broker)
        let glucose = "vitalbridge_\(hub)_home_glucose_glucose"
        #expect(
            seen.retained == [
                "homeassistant/sensor/vitalbridge_\(hub)/home_glucose_glucose/config",
                "vitalbridge/\(hub)/home/glucose/state",
            ])
        var sensor = try #require(seen.sensors[glucose])
        // reading 30 (index 29) is the latest: 70 + 29 mg/dL
        #expect(sensor.device == "Home" && sensor.value == "99")
        // Jinja2's tojson sorts the keys
        #expect(sensor.attributes == #"{"device": "\#(SinkCommandTests.mac)", "measured_at": "\#(Self.time(29))"}"#)

        #expect(
            try home.run(["records", "delete", "--home", home.path, "--id", "30", "--reason", "wrong"]).status == 0)
        try Self.push(home)
        sensor = try #require(try Self.seen(broker).sensors[glucose])
        #expect(sensor.value == "98" && sensor.attributes.contains(Self.time(28)))

        // a record measured before all of them, synced now
        try SinkCommandTests.add(1, from: -100, to: home)
        try Self.push(home)
        seen = try Self.seen(broker)
        #expect(seen.sensors[glucose]?.value == "98" && seen.sensors.count == 1)

        let removed = try home.run(["sink", "remove", "--home", home.path, "ha"])
        #expect(removed.stdout == "removed sink ha\n", "\(removed.stderr)")
        #expect(try Self.seen(broker).retained.isEmpty)
    }

    @Test(
        "a person's sensors on a device of their own; an index in quarantine is never published; unassigning clears them"
    )
    func people() throws {
        let broker = try PrivateBroker()
        defer { broker.stop() }
        let home = try MQTTSinkCommandTests.homeWithSink(0, broker)
        let hub = try home.store().hubID()
        let scale = MACAddress("004D3208D30C")!
        #expect(try home.run(["people", "add", "--home", home.path, "Ann"]).status == 0)
        let store = try home.store()
        try store.saveDevice(StoredDevice(mac: scale, model: .weightScale, addedAt: Timestamp(secondsSince1970: 0)))
        try store.readings.store(
            [(1, 61.5), (1, 62.0), (2, 90.5)].enumerated().map { offset, reading in
                .weight(
                    WeightReading(
                        kilograms: reading.1,
                        measuredAt: Timestamp(secondsSince1970: 1_700_000_000 + Int64(offset) * 60),
                        annotations: ReadingAnnotations(userIndex: UInt8(reading.0))))
            }, device: scale)
        let assigned = try home.run([
            "people", "assign", "--home", home.path, "--mac", "\(scale)", "--user-index", "1", "--person", "Ann",
        ])
        #expect(assigned.status == 0, "\(assigned.stderr)")
        let ann = try #require(store.sinks.ownersEver().last ?? nil)
        try Self.push(home)
        var seen = try Self.seen(broker)
        // Ann's weight is her latest (user 1, minute 1), never user 2's newer one, which is in quarantine
        let weight = try #require(seen.sensors["vitalbridge_\(hub)_person\(ann)_weight_weight"])
        #expect(weight.device == "Ann" && weight.value == "62", "\(weight)")
        #expect(weight.attributes.contains(Self.time(1)))
        #expect(seen.sensors.keys.allSatisfy { $0.hasPrefix("vitalbridge_\(hub)_person\(ann)_weight_") })
        #expect(!seen.retained.contains { $0.contains("/home/") || $0.contains("/home_") }, "\(seen.retained)")

        let unassigned = try home.run([
            "people", "unassign", "--home", home.path, "--mac", "\(scale)", "--user-index", "1",
        ])
        #expect(unassigned.status == 0, "\(unassigned.stderr)")
        try Self.push(home)
        seen = try Self.seen(broker)
        #expect(seen.retained.isEmpty && seen.sensors.isEmpty, "\(seen.retained)")
    }
}
