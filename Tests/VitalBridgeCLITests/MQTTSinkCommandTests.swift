import Foundation
import TestRequirements
import Testing
import VitalCore
import VitalStore
import VitalTestSupport

/// `vitalbridge sink` to an MQTT broker, through the real process against a private mosquitto, with mosquitto_sub
/// as the independent client that reads back what arrived: every change at least once, twice only across a crash.
@Suite("vitalbridge sink to MQTT", .needs(Requirement.mosquitto))
struct MQTTSinkCommandTests {
    /// A broker session kept for the reader: what is published while it is away is queued for it.
    static let session = ["-c", "-i", "reader", "-q", "1", "-t", "vitalbridge/+/changes"]

    /// A home of `count` stored readings with the sink `ha` to `broker`, its password in a file of mode 600, and the
    /// reader's session opened.
    static func homeWithSink(_ count: Int, _ broker: PrivateBroker) throws -> TestHome {
        let home = try SinkCommandTests.home(count)
        try addSink(to: home, broker, queued: count)
        return home
    }

    /// Adds the sink `ha` to `broker` to `home`, which has `queued` readings, its password in a file of mode 600,
    /// and opens the reader's session.
    static func addSink(to home: TestHome, _ broker: PrivateBroker, queued count: Int) throws {
        let passwordFile = home.path + "/mqtt.pw"
        try PrivateBroker.password.write(toFile: passwordFile, atomically: true, encoding: .utf8)
        chmod(passwordFile, 0o600)
        let added = try home.run([
            "sink", "add", "--home", home.path, "ha", "mqtt://\(PrivateBroker.user)@127.0.0.1:\(broker.port)",
            "--password-file", passwordFile,
        ])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(
            added.stdout
                == "added sink ha: mqtt://hub@127.0.0.1:\(broker.port)/vitalbridge?discovery=homeassistant (\(count) readings queued; vitalbridge sink push ha)\n"
        )
        let opened = try broker.subscribe(session + ["-E"])
        #expect(opened.status == 0, "\(opened.stderr)")
    }

    /// The `count` messages the reader's session has been sent since it last read.
    static func received(_ count: Int, from broker: PrivateBroker) throws -> [String] {
        let output = try broker.subscribe(session + ["-C", "\(count)", "-W", "20"])
        #expect(output.status == 0, "\(output.stderr)")
        return output.stdout.split(separator: "\n").map(String.init)
    }

    /// The home's feed as `vitalbridge changes` prints it, a line each.
    static func feed(_ home: TestHome) throws -> [String] {
        let output = try home.run(["changes", "--home", home.path])
        #expect(output.status == 0, "\(output.stderr)")
        return output.stdout.split(separator: "\n").map(String.init)
    }

    static func position(_ home: TestHome) throws -> Int64 { try home.store().sinks.named("ha").position }

    @Test("the whole history, then a deletion and new readings: each change once, as vitalbridge changes prints it")
    func history() throws {
        let broker = try PrivateBroker()
        defer { broker.stop() }
        let home = try Self.homeWithSink(300, broker)
        let first = try home.run(["sink", "push", "--home", home.path])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == "ha: pushed 300 changes; it has the feed up to 300\n")
        #expect(try Self.received(300, from: broker) == Self.feed(home))
        let again = try home.run(["sink", "push", "--home", home.path, "ha"])
        #expect(again.stdout == "ha: pushed 0 changes; it has the feed up to 300\n")
        // a deletion and ten readings more
        #expect(try home.run(["records", "delete", "--home", home.path, "--id", "7", "--reason", "wrong"]).status == 0)
        try SinkCommandTests.add(10, from: 300, to: home)
        let last = try home.run(["sink", "push", "--home", home.path, "--batch-size", "4"])
        #expect(last.stdout == "ha: pushed 11 changes; it has the feed up to 311\n", "\(last.stderr)")
        #expect(try Self.received(11, from: broker) == Array(Self.feed(home).suffix(11)))
        #expect(try Self.position(home) == 311)
        let status = try home.run(["sink", "status", "--home", home.path])
        #expect(status.stdout.contains("ha    0       311"), "\(status.stdout)")
    }

    @Test(
        "killed at its first write, after the broker acknowledged: nothing lost, the batch sent again", .needs(.strace))
    func killedAfterAcknowledgement() throws {
        let broker = try PrivateBroker()
        defer { broker.stop() }
        let home = try Self.homeWithSink(200, broker)
        // the first write to the home is the position, recorded once the broker acknowledged the whole batch
        let killed = try runProgram(
            "/usr/bin/env",
            [
                "strace", "-f", "-qq", "-o", "/dev/null", "-P", home.path + "/vitalbridge.sqlite-wal", "-e",
                "trace=pwrite64", "-e", "inject=pwrite64:signal=SIGKILL:when=1", vitalbridgePath.path, "sink", "push",
                "--home", home.path,
            ])
        #expect(killed.status != 0, "the push was not killed: \(killed.stdout)")
        let feed = try Self.feed(home)
        #expect(try Self.received(200, from: broker) == feed)
        #expect(try Self.position(home) == 0)
        // the next push sends it all again: twice, only across the crash
        let next = try home.run(["sink", "push", "--home", home.path])
        #expect(next.stdout == "ha: pushed 200 changes; it has the feed up to 200\n", "\(next.stderr)")
        #expect(try Self.received(200, from: broker) == feed)
        #expect(try Self.position(home) == 200)
    }

    /// Everything the reader's session has been sent since it last read: read until 5 seconds pass.
    static func receivedAll(from broker: PrivateBroker) throws -> [String] {
        try broker.subscribe(session + ["-C", "10000000", "-W", "5"]).stdout.split(separator: "\n").map(String.init)
    }

    @Test("30 SIGKILLs of sink push at random points and a broker restarted mid-push: every change at least once")
    func killedAndRestarted() throws {
        let broker = try PrivateBroker()
        defer { broker.stop() }
        let home = try Self.homeWithSink(2_000, broker)
        var next = 2_000
        let (killed, rounds) = try SinkCommandTests.killPushes(
            home, kills: 30, seed: 5_555, batchSize: 50, within: 150_000
        ) { _, _ in
            try SinkCommandTests.add(20, from: next, to: home)
            next += 20
        }
        #expect(killed == 30, "only \(killed) pushes of \(rounds) were killed before they ended")
        // the broker restarted while a push publishes: the push fails naming it (mid-batch, at the close, or while
        // connecting on a busy machine), or finished first
        let push = try SpawnedProgram(
            vitalbridgePath.path, ["sink", "push", "--home", home.path, "--batch-size", "50"])
        usleep(100_000)
        try broker.restart()
        let interrupted = push.wait()
        #expect(
            interrupted.status == 0
                || (interrupted.stderr.contains("cannot push to sink ha: ")
                    && interrupted.stderr.contains("127.0.0.1:\(broker.port)")),
            "\(interrupted.stderr)")
        let last = try home.run(["sink", "push", "--home", home.path])
        #expect(last.status == 0, "\(last.stderr)")
        let feed = try Self.feed(home)
        let received = try Self.receivedAll(from: broker)
        // each change at least once; more than once only for what a failure left unrecorded: at most a batch a kill
        #expect(Set(received) == Set(feed))
        #expect(received.count - feed.count <= 31 * 50, "\(received.count - feed.count) sent again")
        #expect(try Self.position(home) == Int64(feed.count))
    }

    @Test("a wrong password and a broker that is gone: one line each, exit 1, the position unchanged")
    func refusedPushes() throws {
        let broker = try PrivateBroker()
        let home = try Self.homeWithSink(50, broker)
        let file = try #require(try home.store().sinks.named("ha").passwordFile)
        try "not the password".write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o600)
        let refused = try home.run(["sink", "push", "--home", home.path])
        #expect(refused.status == 1)
        #expect(
            refused.stderr.split(separator: "\n").last
                == "cannot push to sink ha: cannot connect to 127.0.0.1:\(broker.port): the broker refused the connection: Connection Refused, not authorized (the broker's access rules do not let this user in)"
        )
        broker.stop()
        try PrivateBroker.password.write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o600)
        let gone = try home.run(["sink", "push", "--home", home.path])
        #expect(gone.status == 1)
        #expect(
            gone.stderr.split(separator: "\n").last
                == "cannot push to sink ha: cannot connect to 127.0.0.1:\(broker.port): connection refused (no server listens there)"
        )
        #expect(try Self.position(home) == 0)
        let status = try home.run(["sink", "status", "--home", home.path, "ha"])
        #expect(status.stdout.contains("connection refused (no server listens there)"), "\(status.stdout)")
    }

    @Test(
        "addresses the MQTT sink refuses: one line each, exit 1, nothing added",
        arguments: [
            (
                "mqtt://hub@broker.lan",
                "mqtt:// to broker.lan would send the password and the readings in clear: use mqtts://, or add ?cleartext=allow if the network is yours"
            ),
            (
                "mqtt://hub:secret@localhost",
                "the address contains a password: give it with --password-file, never in the address"
            ),
            ("mqtt://localhost/home/+", "the prefix may not hold + or #: MQTT's wildcards are not topic names"),
            ("mqtt://localhost?cafile=/ca.pem", "cafile applies only to mqtts:// (TLS)"),
            ("mqtts://localhost?cafile=ca.pem", "cafile= must be an absolute path (from /)"),
            ("mqtt://localhost:0", "the address's port is not a number from 1 to 65535"),
        ])
    func refusedAddresses(url: String, message: String) throws {
        let home = try SinkCommandTests.home(0)
        let output = try home.run(["sink", "add", "--home", home.path, "ha", url])
        #expect(output.status == 1)
        #expect(output.stderr == "cannot add sink ha: \(message)\n")
        #expect(try home.store().sinks.all().isEmpty)
    }

    @Test(
        "a password without a user, a CA file that cannot be read, a second sink on one broker and prefix or discovery prefix: refused"
    )
    func refusedSinks() throws {
        let home = try SinkCommandTests.home(0)
        let passwordFile = home.path + "/mqtt.pw"
        try PrivateBroker.password.write(toFile: passwordFile, atomically: true, encoding: .utf8)
        chmod(passwordFile, 0o600)
        let cases: [([String], String)] = [
            (
                ["mqtt://localhost", "--password-file", passwordFile],
                "the address names no user, so the password would not be sent: mqtt://USER@HOST"
            ),
            (["mqtts://hub@localhost?cafile=/nonexistent/ca.pem"], "the CA file /nonexistent/ca.pem cannot be read"),
        ]
        for (arguments, message) in cases {
            let output = try home.run(["sink", "add", "--home", home.path, "ha"] + arguments)
            #expect(output.status == 1)
            #expect(output.stderr == "cannot add sink ha: \(message)\n")
        }
        #expect(try home.run(["sink", "add", "--home", home.path, "ha", "mqtt://localhost"]).status == 0)
        let twice = try home.run(["sink", "add", "--home", home.path, "ha2", "mqtt://hub@LOCALHOST:1883/vitalbridge"])
        #expect(
            twice.stderr
                == "cannot add sink ha2: sink ha publishes to LOCALHOST:1883 under vitalbridge already: a second sink there would publish every change twice\n"
        )
        // another prefix on the same broker (127.0.0.1 is localhost) is another stream, but Home Assistant's
        // sensors are the hub's: a second sink needs its own discovery prefix too
        let sameSensors = try home.run(["sink", "add", "--home", home.path, "ha2", "mqtt://127.0.0.1/other"])
        #expect(
            sameSensors.stderr
                == "cannot add sink ha2: sink ha publishes Home Assistant's sensors to 127.0.0.1:1883 under homeassistant already: a second sink there would overwrite them (?discovery=PREFIX gives it another)\n"
        )
        #expect(
            try home.run(["sink", "add", "--home", home.path, "ha2", "mqtt://127.0.0.1/other?discovery=ha2"]).status
                == 0)
        #expect(try home.store().sinks.all().map(\.name) == ["ha", "ha2"])
    }

    /// The retained availability of the home's hub, `online` or `offline`; empty when none is retained.
    static func availability(_ broker: PrivateBroker, _ home: TestHome) throws -> String {
        let hub = try home.store().hubID()
        return try broker.subscribe(["-t", "vitalbridge/\(hub)/availability", "-C", "1", "-W", "2"]).stdout
    }

    @Test(
        "sink follow says online while it runs and offline when stopped; killed, its will says offline; push says nothing"
    )
    func availability() throws {
        let broker = try PrivateBroker()
        defer { broker.stop() }
        let home = try Self.homeWithSink(10, broker)
        #expect(try home.run(["sink", "push", "--home", home.path]).status == 0)
        #expect(try Self.availability(broker, home) == "")
        for signal in [SIGTERM, SIGKILL] {
            let follow = try SpawnedProgram(
                vitalbridgePath.path, ["sink", "follow", "--home", home.path, "--poll", "0.1"])
            var online = false
            for _ in 0..<100 where !online {
                online = try Self.availability(broker, home) == "online\n"
                if !online { usleep(50_000) }
            }
            #expect(online, "signal \(signal)")
            kill(follow.pid, signal)
            _ = follow.wait()
            // a SIGKILL closes the socket without a DISCONNECT: the broker publishes the will
            #expect(try Self.availability(broker, home) == "offline\n", "signal \(signal)")
        }
    }

    @Test("while sink follow publishes to the sink, a sink push to it is refused; the follower's changes arrive once")
    func onePublisher() throws {
        let broker = try PrivateBroker()
        defer { broker.stop() }
        let home = try Self.homeWithSink(20, broker)
        let follow = try SpawnedProgram(vitalbridgePath.path, ["sink", "follow", "--home", home.path, "--poll", "0.1"])
        #expect(try Self.received(20, from: broker) == Self.feed(home))
        let push = try home.run(["sink", "push", "--home", home.path, "ha"])
        #expect(push.status == 1)
        #expect(
            push.stderr.split(separator: "\n").last
                == "cannot push to sink ha: another vitalbridge (serve, sink follow or sink push) publishes to sink ha now: one at a time"
        )
        try SinkCommandTests.add(5, from: 20, to: home)
        #expect(try Self.received(5, from: broker) == Array(Self.feed(home).suffix(5)))
        kill(follow.pid, SIGTERM)
        let output = follow.wait()
        #expect(output.status == 0, "\(output.stderr)")
    }
}

/// paho-mqtt, a client nobody here wrote, reads what the sink published.
@Suite("vitalbridge sink to MQTT, read by paho-mqtt", .needs(Requirement.mosquitto + [.oracles]))
struct MQTTSinkPahoTests {
    struct Collected: Decodable {
        struct Message: Decodable {
            let topic: String
            let payload: String
            let retain: Bool
        }
        let messages: [Message]
    }

    /// Runs the oracle `mqtt_collect.py` on `broker` as the session `paho`: subscribing only (`count` 0), or
    /// collecting `count` messages.
    static func collect(_ broker: PrivateBroker, count: Int) throws -> Collected? {
        let output = try SpawnedProgram.run(
            try Oracles.python(),
            [
                Oracles.script("mqtt_collect.py"), "127.0.0.1", "\(broker.port)", PrivateBroker.user, "paho",
                "vitalbridge/+/changes", "\(count)", "20",
            ], environment: ["MQTT_PASSWORD": PrivateBroker.password])
        #expect(output.status == 0, "\(output.stderr)")
        return count == 0 ? nil : try JSONDecoder().decode(Collected.self, from: Data(output.stdout.utf8))
    }

    @Test("every change of a push arrives once, in feed order, on vitalbridge/HUB/changes, not retained")
    func pahoReads() throws {
        let broker = try PrivateBroker()
        defer { broker.stop() }
        let home = try MQTTSinkCommandTests.homeWithSink(150, broker)
        _ = try Self.collect(broker, count: 0)
        let push = try home.run(["sink", "push", "--home", home.path, "--batch-size", "40"])
        #expect(push.status == 0, "\(push.stderr)")
        let collected = try #require(try Self.collect(broker, count: 150))
        let hub = try home.store().hubID()
        let feed = try MQTTSinkCommandTests.feed(home)
        let inOrder = collected.messages.map(\.payload) == feed
        #expect(inOrder, "\(collected.messages.count) messages, not the feed's \(feed.count) in order")
        #expect(collected.messages.allSatisfy { $0.topic == "vitalbridge/\(hub)/changes" && !$0.retain })
    }
}

/// `mqtts://`: the broker's certificate checked against the CA file and the host's name.
@Suite("vitalbridge sink to MQTT over TLS", .needs(Requirement.mosquitto))
struct MQTTSinkTLSTests {
    @Test("mqtts:// with the broker's CA pushes; another CA, or a host the certificate does not name, is refused")
    func verified() throws {
        let broker = try PrivateBroker(tls: true)
        defer { broker.stop() }
        let port = try #require(broker.tlsPort)
        let home = try SinkCommandTests.home(30)
        let passwordFile = home.path + "/mqtt.pw"
        try PrivateBroker.password.write(toFile: passwordFile, atomically: true, encoding: .utf8)
        chmod(passwordFile, 0o600)
        let cases: [(name: String, url: String, error: String?)] = [
            (
                "other", "mqtts://hub@localhost:\(port)/other?cafile=\(broker.otherCAFile)&discovery=other",
                "TLS: the server's certificate is not signed by a trusted CA (check the CA file)"
            ),
            (
                "byip", "mqtts://hub@127.0.0.1:\(port)/byip?cafile=\(broker.caFile)&discovery=byip",
                "TLS: the server's certificate does not name the host"
            ),
            ("good", "mqtts://hub@localhost:\(port)/good?cafile=\(broker.caFile)", nil),
        ]
        for (name, url, error) in cases {
            let added = try home.run(["sink", "add", "--home", home.path, name, url, "--password-file", passwordFile])
            #expect(added.status == 0, "\(added.stderr)")
            let push = try home.run(["sink", "push", "--home", home.path, name])
            if let error {
                let host = name == "byip" ? "127.0.0.1" : "localhost"
                #expect(push.status == 1)
                #expect(
                    push.stderr.split(separator: "\n").last
                        == "cannot push to sink \(name): cannot connect to \(host):\(port): \(error)")
                #expect(try home.store().sinks.named(name).position == 0)
            } else {
                #expect(push.stdout == "good: pushed 30 changes; it has the feed up to 30\n", "\(push.stderr)")
            }
        }
    }
}
