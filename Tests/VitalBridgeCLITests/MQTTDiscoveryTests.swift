import Foundation
import TestRequirements
import Testing
import VitalCore
import VitalSimulation
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

    /// What the oracle read on `broker`. A retained sentinel, published first, proves it read the broker: an
    /// oracle that read nothing cannot pass for a broker that retains nothing.
    static func seen(_ broker: PrivateBroker, sourceLocation: SourceLocation = #_sourceLocation) throws -> Seen {
        let sentinel = "test/sentinel-\(UUID().uuidString)"
        let published = try SpawnedProgram.run(
            "/usr/bin/mosquitto_pub",
            [
                "-h", "127.0.0.1", "-p", "\(broker.port)", "-u", PrivateBroker.user, "-P", PrivateBroker.password,
                "-q", "1", "-r", "-t", sentinel, "-m", "here",
            ])
        #expect(published.status == 0, "\(published.stderr)", sourceLocation: sourceLocation)
        defer {
            _ = try? SpawnedProgram.run(
                "/usr/bin/mosquitto_pub",
                [
                    "-h", "127.0.0.1", "-p", "\(broker.port)", "-u", PrivateBroker.user, "-P", PrivateBroker.password,
                    "-q", "1", "-r", "-t", sentinel, "-n",
                ])
        }
        let output = try SpawnedProgram.run(
            try Oracles.python(),
            [Oracles.script("ha_discovery.py"), "127.0.0.1", "\(broker.port)", PrivateBroker.user],
            environment: ["MQTT_PASSWORD": PrivateBroker.password])
        #expect(output.status == 0, "\(output.stdout)\(output.stderr)", sourceLocation: sourceLocation)
        var lines = output.stdout.split(separator: "\n").map(String.init)
        struct Topics: Decodable { let retained: [String] }
        let topics = try JSONDecoder().decode(Topics.self, from: Data(lines.removeFirst().utf8))
        try #require(topics.retained.contains(sentinel), "the oracle read nothing", sourceLocation: sourceLocation)
        var seen = Seen(retained: topics.retained.filter { $0 != sentinel }, sensors: [:])
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
        guard case .person(let ann) = try store.sinks.ownersEver().last else {
            Issue.record("the home has no person")
            return
        }
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

    @Test("sink remove cannot clear a broker it cannot reach: the sink is kept, and --keep-retained removes it")
    func removeUnreachable() throws {
        let broker = try PrivateBroker()
        let home = try MQTTSinkCommandTests.homeWithSink(5, broker)
        try Self.push(home)
        broker.stop()
        let refused = try home.run(["sink", "remove", "--home", home.path, "ha"])
        #expect(refused.status == 1)
        #expect(
            refused.stderr.split(separator: "\n").last?.hasPrefix(
                "cannot remove sink ha: cannot clear what it retained on 127.0.0.1:\(broker.port) for Home Assistant: ")
                == true, "\(refused.stderr)")
        #expect(
            refused.stderr.hasSuffix("the sink is kept (to remove it and leave the broker as it is: --keep-retained)\n")
        )
        #expect(try home.store().sinks.all().map(\.name) == ["ha"])
        let kept = try home.run(["sink", "remove", "--home", home.path, "ha", "--keep-retained"])
        #expect(kept.stdout == "removed sink ha\n", "\(kept.stderr)")
        #expect(try home.store().sinks.all().isEmpty)
    }

    @Test(
        "serve publishes what it syncs: each change, the latest blood pressure for Home Assistant, and offline when it stops"
    )
    func serve() throws {
        let broker = try PrivateBroker()
        defer { broker.stop() }
        var fleet = fleet(.bp5) { $0.presence = [PresenceScript(at: "07:00", seconds: 60)] }
        fleet.start = "2026-11-20 07:00:10"
        fleet.pace = 1
        let home = try TestHome(fleet: fleet)
        try home.add(.bp5)
        try MQTTSinkCommandTests.addSink(to: home, broker, queued: 0)
        let served = try home.run(["serve", "--home", home.path, "--seconds", "8"])
        #expect(served.status == 0, "\(served.stderr)")
        #expect(served.stdout.contains("ha: pushed 5 changes; it has the feed up to 5"), "\(served.stdout)")
        let feed = try MQTTSinkCommandTests.feed(home)
        let received = try MQTTSinkCommandTests.received(5, from: broker)
        #expect(feed.count == 5 && received == feed)
        let hub = try home.store().hubID()
        let latest = try #require(try home.store().readings.all().max { $0.reading.measuredAt < $1.reading.measuredAt })
        guard case .bloodPressure(let pressure) = latest.reading else { throw Unexpected(latest) }
        let seen = try Self.seen(broker)
        let systolic =
            pressure.systolic.rounded() == pressure.systolic ? "\(Int(pressure.systolic))" : "\(pressure.systolic)"
        #expect(seen.sensors["vitalbridge_\(hub)_home_blood_pressure_systolic"]?.value == systolic)
        let availability = try broker.subscribe(["-t", "vitalbridge/\(hub)/availability", "-C", "1", "-W", "5"])
        #expect(availability.stdout == "offline\n", "\(availability.stderr)")
    }

    struct Unexpected: Error {
        let reading: StoredReading
        init(_ reading: StoredReading) { self.reading = reading }
    }

    @Test(
        "on a BlueZ home the sink publishes what the home measured through BlueZ and nothing of the simulator's",
        .needs(Requirement.bus))
    func bluezHome() throws {
        let broker = try PrivateBroker()
        defer { broker.stop() }
        let bench = try SimulatedBus()
        defer { bench.stop() }
        #expect(try bench.open("ihealth-layer://?cmd=1&addtype=0&devicemodel=905&scheme=vitalbridge-demo").status == 0)
        let measured = try bench.open("ihealth-layer://?cmd=0&devicemodel=905&mac=004D3208D313&scheme=vitalbridge-demo")
        #expect(measured.status == 0, "\(measured.stderr)")
        let passwordFile = bench.home.path + "/mqtt.pw"
        try PrivateBroker.password.write(toFile: passwordFile, atomically: true, encoding: .utf8)
        chmod(passwordFile, 0o600)
        let added = try vitalbridge(
            [
                "sink", "add", "ha", "mqtt://\(PrivateBroker.user)@127.0.0.1:\(broker.port)", "--password-file",
                passwordFile,
            ], environment: bench.environment)
        #expect(added.stdout.contains("(1 reading queued;"), "\(added.stdout)\(added.stderr)")
        _ = try broker.subscribe(MQTTSinkCommandTests.session + ["-E"])
        let pushed = try vitalbridge(["sink", "push"], environment: bench.environment)
        #expect(pushed.stdout == "ha: pushed 1 change; it has the feed up to 1\n", "\(pushed.stderr)")
        let feed = try vitalbridge(["changes"], environment: bench.environment).stdout.split(separator: "\n")
        #expect(try MQTTSinkCommandTests.received(1, from: broker) == feed.map(String.init))
        let store = try VitalStore(path: bench.home.path + "/vitalbridge.sqlite")
        let readings = try store.readings.all()
        guard readings.count == 1, case .heartRate(let rate) = readings[0].reading else {
            Issue.record("the home holds \(readings.count) readings")
            return
        }
        let seen = try Self.seen(broker)
        #expect(seen.sensors.count == 1)
        #expect(
            seen.sensors["vitalbridge_\(try store.hubID())_home_heart_rate_heart_rate"]?.value
                == "\(Int(rate.heartRate))")
    }

    @Test(
        "a broker that crashed and lost what it retained: sink follow connects again by itself and publishes every owner's latest and online"
    )
    func brokerCrashed() throws {
        let broker = try PrivateBroker()
        defer { broker.stop() }
        let home = try MQTTSinkCommandTests.homeWithSink(20, broker)
        let hub = try home.store().hubID()
        let follow = try SpawnedProgram(vitalbridgePath.path, ["sink", "follow", "--home", home.path, "--poll", "0.2"])
        defer {
            kill(follow.pid, SIGKILL)
            _ = follow.wait()
        }
        let glucose = "vitalbridge_\(hub)_home_glucose_glucose"
        /// Whether Home Assistant would see the latest glucose (89 mg/dL) and the hub online, within 20 seconds.
        func shown() throws -> Bool {
            for _ in 0..<20 {
                let seen = try Self.seen(broker)
                if seen.sensors[glucose]?.value == "89" && seen.retained.contains("vitalbridge/\(hub)/availability") {
                    return true
                }
                Thread.sleep(forTimeInterval: 0.5)
            }
            return false
        }
        #expect(try shown())
        try broker.crash()
        #expect(try Self.seen(broker).retained.isEmpty, "the crash kept what the broker retained")
        #expect(try shown(), "sink follow did not publish again after the broker's crash")
        let online = try broker.subscribe(["-t", "vitalbridge/\(hub)/availability", "-C", "1", "-W", "5"])
        #expect(online.stdout == "online\n")
    }

    @Test(
        "a home with both sinks: PostgreSQL has every reading exactly once, the broker every change and the latest",
        .needs(.postgres))
    func bothSinks() throws {
        let broker = try PrivateBroker()
        defer { broker.stop() }
        let (home, cluster, database) = try SinkCommandTests.homeWithSink(40)
        try MQTTSinkCommandTests.addSink(to: home, broker, queued: 40)
        #expect(
            try home.run(["records", "delete", "--home", home.path, "--id", "40", "--reason", "wrong"]).status == 0)
        let pushed = try home.run(["sink", "push", "--home", home.path])
        #expect(
            pushed.stdout
                == "ha: pushed 40 changes; it has the feed up to 41\nlab: pushed 40 changes; it has the feed up to 41\n",
            "\(pushed.stderr)")
        try SinkCommandTests.expectExact(home, cluster, database)
        let received = try MQTTSinkCommandTests.received(40, from: broker)
        let feed = try MQTTSinkCommandTests.feed(home)
        #expect(received == feed)
        // reading 40 is deleted: 39 (70 + 38 mg/dL) is the latest
        let hub = try home.store().hubID()
        #expect(try Self.seen(broker).sensors["vitalbridge_\(hub)_home_glucose_glucose"]?.value == "108")
    }
}
