import Foundation
import SinkSettings
import TestRequirements
import Testing
import VitalCore
import VitalSinks
import VitalTestSupport

/// What one connection of the MQTT sink publishes for Home Assistant, read back by a session the broker keeps
/// (mosquitto_sub): every owner's at the first push, a state or a clear once, everything again on a new connection.
@Suite("MQTTSink: what a connection retains for Home Assistant", .needs(Requirement.mosquitto))
struct MQTTSinkDiscoveryTests {
    static let mac = MACAddress("004D3208D2F4")!
    static let session = ["-c", "-i", "watcher", "-q", "1", "-t", "homeassistant/#", "-t", "vitalbridge/+/+/+/state"]

    static func temperature(_ minute: Int64, _ celsius: Double) -> LatestReading {
        let reading = Reading.temperature(
            TemperatureReading(celsius: celsius, measuredAt: Timestamp(secondsSince1970: 1_763_700_000 + minute * 60)))
        return LatestReading(
            owner: .home, person: nil, kind: .temperature,
            reading: StoredReading(id: minute, device: mac, reading: reading))
    }

    /// Ann has no weight: her weight sensors and state are cleared.
    static let noWeight = LatestReading(owner: .person(1), person: "Ann", kind: .weight, reading: nil)

    static func batch(_ latest: [LatestReading]) -> ChangeBatch {
        ChangeBatch(hubID: hubA, devices: [], people: ["Ann"], changes: [], through: 0, latest: latest)
    }

    /// Every message the watcher's session was sent since it last read, as `TOPIC PAYLOAD` lines (an empty payload
    /// is `(null)`): read for 2 seconds, never cut short (a read ended mid-stream leaves a message in flight, which
    /// the broker sends again, as QoS 1 may), and without the retained messages each subscription is sent anew (`-R`).
    static func received(from broker: PrivateBroker) throws -> [String] {
        try broker.subscribe(session + ["-v", "-R", "-W", "2"]).stdout.split(separator: "\n").map(String.init)
    }

    static func connect(_ broker: PrivateBroker) async throws -> MQTTSink {
        try await MQTTSink.connect(
            try MQTTAddress("mqtt://\(PrivateBroker.user)@127.0.0.1:\(broker.port)"),
            password: PrivateBroker.password, hubID: hubA, sinkName: "ha", position: 0, logger: testLogger)
    }

    @Test(
        "every owner's at a connection's first push; a state or a clear published once; all again on a new connection")
    func onceAConnection() async throws {
        let broker = try PrivateBroker()
        defer { broker.stop() }
        #expect(try broker.subscribe(Self.session + ["-E"]).status == 0)
        let clears = HomeAssistantDiscovery.sensors(of: .weight).count + 1
        var sink = try await Self.connect(broker)
        #expect(sink.latestScope == .every)
        try await sink.push(Self.batch([Self.temperature(1, 36.6), Self.noWeight]))
        #expect(sink.latestScope == .touched)
        // the temperature's configuration and state, Ann's weight's configurations and state cleared
        let first = try Self.received(from: broker)
        #expect(first.count == 2 + clears)
        let state = String(decoding: HomeAssistantDiscovery.state(Self.temperature(1, 36.6).reading!), as: UTF8.self)
        #expect(first.count > 1 && first[1] == "vitalbridge/\(hubA)/home/temperature/state \(state)")
        #expect(first.suffix(clears).allSatisfy { $0.hasSuffix(" (null)") }, "\(first)")

        // the same again publishes nothing; a newer temperature, its state alone
        try await sink.push(Self.batch([Self.temperature(1, 36.6), Self.noWeight]))
        try await sink.push(Self.batch([Self.temperature(2, 37.1), Self.noWeight]))
        let second = try Self.received(from: broker)
        #expect(
            second.count == 1 && second[0].hasPrefix("vitalbridge/\(hubA)/home/temperature/state ")
                && second[0].contains("37.1"), "\(second)")
        await sink.close()

        // a new connection cannot know what the broker kept: it publishes it all again
        sink = try await Self.connect(broker)
        #expect(sink.latestScope == .every)
        try await sink.push(Self.batch([Self.temperature(2, 37.1), Self.noWeight]))
        #expect(try Self.received(from: broker).count == 2 + clears)
        await sink.close()
    }
}
