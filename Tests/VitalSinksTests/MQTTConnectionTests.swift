import Foundation
import Logging
import SinkSettings
import TestRequirements
import Testing
import VitalSinks
import VitalTestSupport

/// The MQTT connection against a real broker (a private mosquitto), with mosquitto_sub as the independent client
/// that reads back what arrived.
@Suite("MQTTConnection against mosquitto", .needs(Requirement.mosquitto))
struct MQTTConnectionTests {
    static let logger = Logger(label: "org.vitalbridge.mqtt.tests")

    static func options(
        _ clientID: String = "vitalbridge-test", password: String? = PrivateBroker.password, keepAlive: UInt16 = 60
    ) -> MQTTConnection.Options {
        MQTTConnection.Options(
            clientID: clientID, userName: PrivateBroker.user, password: password, keepAlive: keepAlive, window: 16)
    }

    static func connect(_ broker: PrivateBroker, _ options: MQTTConnection.Options = options()) async throws
        -> MQTTConnection
    {
        try await MQTTConnection.connect(host: "127.0.0.1", port: broker.port, options: options, logger: logger)
    }

    /// Runs `body` with a broker, stopped afterwards whatever `body` does.
    static func withBroker(_ body: (PrivateBroker) async throws -> Void) async throws {
        let broker = try PrivateBroker()
        defer { broker.stop() }
        try await body(broker)
    }

    @Test("2,000 messages pipelined 16 at a time arrive once each, in order")
    func pipelined() async throws {
        try await Self.withBroker { broker in
            // a session kept by the broker: what is published while the subscriber is away is queued for it
            let session = ["-c", "-i", "counter", "-q", "1", "-t", "vitalbridge/test/#"]
            let subscribed = try broker.subscribe(session + ["-E"])
            #expect(subscribed.status == 0, "\(subscribed.stderr)")
            let connection = try await Self.connect(broker)
            let messages = (1...2_000).map {
                MQTTConnection.Message(topic: "vitalbridge/test/\($0 % 3)", payload: Array("\($0)".utf8))
            }
            try await connection.publish(Array(messages[..<1_000]))
            try await connection.publish(Array(messages[1_000...]))
            await connection.close()
            let received = try broker.subscribe(session + ["-C", "2000", "-W", "20", "-v"])
            #expect(received.status == 0, "\(received.stderr)")
            let lines = received.stdout.split(separator: "\n").map(String.init)
            #expect(lines == messages.map { "\($0.topic) \(String(decoding: $0.payload, as: UTF8.self))" })
        }
    }

    @Test("a retained message is kept for a subscriber that comes later; an empty one retained clears it")
    func retained() async throws {
        try await Self.withBroker { broker in
            let connection = try await Self.connect(broker)
            try await connection.publish([
                .init(topic: "homeassistant/sensor/x/config", payload: Array("{}".utf8), retain: true)
            ])
            let kept = try broker.subscribe(["-t", "homeassistant/#", "-C", "1", "-W", "5", "-v"])
            #expect(kept.stdout == "homeassistant/sensor/x/config {}\n")
            try await connection.publish([.init(topic: "homeassistant/sensor/x/config", payload: [], retain: true)])
            await connection.close()
            // nothing retained: mosquitto_sub times out (status 27) having printed nothing
            let cleared = try broker.subscribe(["-t", "homeassistant/#", "-C", "1", "-W", "1", "-v"])
            #expect(cleared.stdout.isEmpty && cleared.status != 0)
        }
    }

    @Test("a wrong password, a broker that is not there, a topic with a wildcard: one line each, naming the broker")
    func refusals() async throws {
        try await Self.withBroker { broker in
            await #expect(
                throws: SinkError(
                    .connectionFailed,
                    "cannot connect to 127.0.0.1:\(broker.port): the broker refused the connection: Connection Refused, not authorized (the broker's access rules do not let this user in)"
                )
            ) {
                _ = try await Self.connect(broker, Self.options(password: "wrong"))
            }
            let connection = try await Self.connect(broker)
            await #expect(
                throws: SinkError(
                    .queryFailed, "cannot publish to \"a/+\": a topic name may not hold the wildcard +: only a filter")
            ) {
                try await connection.publish([.init(topic: "a/+", payload: [])])
            }
            // refused before a byte was sent: the connection goes on
            try await connection.publish([.init(topic: "a/b", payload: [])])
            await connection.close()
        }
        let port = try PrivateBroker().stoppedPort()
        await #expect(
            throws: SinkError(
                .connectionFailed, "cannot connect to 127.0.0.1:\(port): connection refused (no server listens there)")
        ) {
            _ = try await MQTTConnection.connect(
                host: "127.0.0.1", port: port, options: Self.options(), logger: Self.logger)
        }
    }

    @Test("a broker that stops fails the next publish and every later one, naming the broker")
    func brokerGone() async throws {
        let broker = try PrivateBroker()
        let connection = try await Self.connect(broker)
        try await connection.publish([.init(topic: "a/b", payload: [1])])
        broker.stop()
        let message = "the broker at 127.0.0.1:\(broker.port): the broker closed the connection"
        await #expect(throws: SinkError(.queryFailed, message)) {
            try await connection.publish([.init(topic: "a/b", payload: [2])])
        }
        await #expect(throws: SinkError(.queryFailed, message)) {
            try await connection.publish([.init(topic: "a/b", payload: [3])])
        }
        await connection.close()
    }

    @Test("a connection kept idle past its keep-alive stays open: PINGREQ every half of it")
    func keepAlive() async throws {
        try await Self.withBroker { broker in
            // mosquitto drops a client silent for one and a half keep-alives: 3 seconds here
            let connection = try await Self.connect(broker, Self.options(keepAlive: 2))
            try await Task.sleep(for: .seconds(8))
            try await connection.publish([.init(topic: "a/b", payload: [1])])
            await connection.close()
        }
    }
}

extension PrivateBroker {
    /// The broker's port after it was stopped: a port where nothing listens.
    fileprivate func stoppedPort() -> Int {
        stop()
        return port
    }
}

/// A broker that answers pings but never acknowledges (Tests/Oracles/mqtt_silent_broker.py).
@Suite("MQTTConnection against a broker that never acknowledges", .needs(.python3))
struct SilentBrokerTests {
    @Test("a publish fails after the acknowledgement timeout, however often the broker answers pings")
    func acknowledgementTimeout() async throws {
        let port = try PrivateBroker.freePort()
        let broker = try SpawnedProgram("/usr/bin/python3", [Oracles.script("mqtt_silent_broker.py"), "\(port)"])
        defer {
            kill(broker.pid, SIGKILL)
            _ = broker.wait()
        }
        for _ in 0..<500 {
            if PrivateBroker.accepts(port) { break }
            usleep(10_000)
        }
        // a ping every second, each answered, and nothing acknowledged for three
        let options = MQTTConnection.Options(clientID: "silent", keepAlive: 2, acknowledgementTimeout: .seconds(3))
        let connection = try await MQTTConnection.connect(
            host: "127.0.0.1", port: port, options: options, logger: MQTTConnectionTests.logger)
        // timed on a thread of its own: what is measured is the connection's deadline
        let started = ContinuousClock.now
        let (result, ended) = await startedOnTestThread {
            try await connection.publish([.init(topic: "a/b", payload: [1])])
        }.value
        #expect(
            result.error as? SinkError
                == SinkError(
                    .queryFailed, "the broker at 127.0.0.1:\(port): the broker acknowledged nothing for 3.0 seconds"))
        // 3 s, not a hang (it hung past 40 s when a ping's answer restarted the deadline); the bound leaves room for
        // a loaded machine (6.2 s once beside the whole suite and a fuzzer)
        #expect(ended - started < .seconds(20))
        await connection.close()
    }
}
