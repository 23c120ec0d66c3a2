import Locking
import Logging
import MQTT
import NIOSSL
import SinkSettings
import VitalCore
import VitalExports

/// A hub's change feed published to an MQTT broker, at least once: each change as the line `vitalbridge changes`
/// prints, on `PREFIX/HUB/changes`, at QoS 1.
///
/// A long-running publisher (`serve`, `sink follow`) also announces itself: `online`, retained, on
/// `PREFIX/HUB/availability` once connected, `offline` when it closes, and `offline` as its will, which the broker
/// publishes when the connection ends otherwise (a crash, a lost network). A one-shot `sink push` leaves the topic as
/// it is.
///
/// ```swift
/// let sink = try await MQTTSink.connect(
///     address, password: password, hubID: hubID, sinkName: "ha", position: record.position, logger: logger)
/// try await sink.push(batch)     // returns once the broker acknowledged every message of the batch
/// await sink.close()
/// ```
///
/// A broker keeps no position: the sink's is the home's (``position(hub:)`` answers the one it was connected with,
/// then each batch's `through` once the broker acknowledged all of the batch). A crash between the broker's
/// acknowledgements and the home's record sends the batch again: a consumer de-duplicates by the change's `id` and
/// `version`. One pusher per sink at a time keeps this true: the command line holds the sink's lease for as long as
/// the connection lives.
public final class MQTTSink: Sendable {
    public let address: MQTTAddress
    private let connection: MQTTConnection
    private let hubID: String
    private let position: Locked<Int64>
    private let announces: Bool
    private let discovery: HomeAssistantDiscovery
    /// What this connection has retained for Home Assistant: the configuration topics it published, each state
    /// topic's last payload (empty: cleared), and whether it has published every owner's (after which a batch
    /// brings only what its changes touched).
    private let retained = Locked(Retained())

    private struct Retained {
        var configs: Set<String> = []
        var states: [String: [UInt8]] = [:]
        var everyOwner = false
    }

    private init(address: MQTTAddress, connection: MQTTConnection, hubID: String, position: Int64, announces: Bool) {
        self.address = address
        self.connection = connection
        self.hubID = hubID
        self.position = Locked(position)
        self.announces = announces
        self.discovery = HomeAssistantDiscovery(address: address, hubID: hubID)
    }

    /// Each owner's latest reading of each kind, for Home Assistant: every owner's at the connection's first push
    /// (the broker may have lost what it retained: a restart before its autosave, another publisher's clearing),
    /// then what each batch's changes touched.
    public var latestScope: LatestScope { retained.withLock { $0.everyOwner } ? .touched : .every }

    /// Whether the connection is known to have ended (the broker closed it): a follower connects again, which
    /// publishes every owner's again and, for a long-running publisher, `online`.
    public var isClosed: Bool { connection.isClosed }

    /// Where a long-running publisher says whether the hub is there: `PREFIX/HUB/availability`.
    public static func availabilityTopic(_ address: MQTTAddress, hubID: String) -> String {
        "\(address.prefix)/\(hubID)/availability"
    }

    /// `online` or `offline`, retained on ``availabilityTopic(_:hubID:)``.
    static func availability(_ online: Bool, _ address: MQTTAddress, hubID: String) -> MQTTConnection.Message {
        MQTTConnection.Message(
            topic: availabilityTopic(address, hubID: hubID), payload: Array((online ? "online" : "offline").utf8),
            retain: true)
    }

    /// Connects to the broker of `address` for hub `hubID`'s sink `sinkName`, which has the feed up to `position`;
    /// when `announces` (a long-running publisher), with the will `offline` and then publishing `online`.
    ///
    /// - Throws: `SinkError` naming the broker and why: its refusal in the specification's words, TLS (the CA file,
    ///   a certificate that does not name the host), unreachable. Never the password.
    public static func connect(
        _ address: MQTTAddress, password: String?, hubID: String, sinkName: String, position: Int64,
        announces: Bool = false, logger: Logger
    ) async throws(SinkError) -> MQTTSink {
        var tls: TLSConfiguration?
        if address.tls {
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.certificateVerification = .fullVerification
            if let file = address.caFile { configuration.trustRoots = .file(file) }
            tls = configuration
        }
        // a broker drops the older of two connections with one client identifier: the hub's and the sink's
        let offline = availability(false, address, hubID: hubID)
        let options = MQTTConnection.Options(
            clientID: "vitalbridge-\(hubID.prefix(8))-\(sinkName)", userName: address.user, password: password,
            will: announces
                ? Will(topic: offline.topic, payload: offline.payload, qos: .atLeastOnce, retain: true) : nil)
        let connection = try await MQTTConnection.connect(
            host: address.host, port: address.port, tls: tls, options: options, logger: logger)
        if announces {
            do {
                try await connection.publish([availability(true, address, hubID: hubID)])
            } catch {
                await connection.close()
                throw error
            }
        }
        return MQTTSink(
            address: address, connection: connection, hubID: hubID, position: position, announces: announces)
    }

    /// The topic every change is published on: `PREFIX/HUB/changes`.
    public var changesTopic: String { "\(address.prefix)/\(hubID)/changes" }

    /// The feed's sequence the broker has acknowledged everything up to, as far as this connection knows.
    public func position(hub: String) async throws -> Int64 {
        guard hub == hubID else {
            throw SinkError(.queryFailed, "this MQTT sink publishes hub \(hubID)'s feed, not hub \(hub)'s")
        }
        return position.withLock { $0 }
    }

    /// Publishes each change of `batch`, in order, then for Home Assistant the latest reading of each (owner, kind)
    /// the batch brings (`ChangeBatch/latest`), and returns once the broker acknowledged all of them.
    ///
    /// An owner's kind gets its sensors' configurations (those its latest reading measures, once a connection) and
    /// its state, retained; an owner's kind with no reading left has them cleared (empty retained messages), the
    /// configurations first, so that Home Assistant removes the sensors rather than reading an empty state. What the
    /// connection has published already is not published again.
    public func push(_ batch: ChangeBatch) async throws {
        guard batch.hubID == hubID else {
            throw SinkError(.queryFailed, "this MQTT sink publishes hub \(hubID)'s feed, not hub \(batch.hubID)'s")
        }
        var messages = batch.changes.map { change in
            var line: [UInt8] = []
            ChangeFeedFormat.appendLine(change, hub: hubID, to: &line)
            line.removeLast()
            return MQTTConnection.Message(topic: changesTopic, payload: line)
        }
        var published = retained.withLock { $0 }
        for latest in batch.latest {
            messages += discoveryMessages(latest, &published)
        }
        published.everyOwner = true
        do {
            try await connection.publish(messages)
        } catch {
            // what the broker has is unknown: the next connection publishes every owner's again
            retained.withLock { $0 = Retained() }
            throw error
        }
        retained.withLock { $0 = published }
        position.withLock { $0 = batch.through }
    }

    /// The messages that make Home Assistant show `latest`, given what the connection has `published`, which they
    /// update.
    private func discoveryMessages(_ latest: LatestReading, _ published: inout Retained) -> [MQTTConnection.Message] {
        let stateTopic = discovery.stateTopic(latest.owner, latest.kind)
        guard let reading = latest.reading else {
            guard published.states[stateTopic] != [] else { return [] }
            let clearing = clearingMessages(latest.owner, latest.kind)
            published.configs.subtract(clearing.map(\.topic))
            published.states[stateTopic] = []
            return clearing
        }
        var messages: [MQTTConnection.Message] = []
        for sensor in HomeAssistantDiscovery.sensors(of: reading.reading) {
            let topic = discovery.configTopic(latest.owner, latest.kind, sensor.column)
            guard published.configs.insert(topic).inserted else { continue }
            messages.append(
                MQTTConnection.Message(
                    topic: topic,
                    payload: discovery.config(
                        sensor, of: latest.kind, owner: latest.owner, person: latest.person, available: announces),
                    retain: true))
        }
        let state = HomeAssistantDiscovery.state(reading)
        if published.states[stateTopic] != state {
            messages.append(MQTTConnection.Message(topic: stateTopic, payload: state, retain: true))
            published.states[stateTopic] = state
        }
        return messages
    }

    /// Clears everything the sink may have retained on the broker for `owners`: each kind's sensor configurations
    /// and state, and the hub's availability. For `sink remove`: Home Assistant then removes the sensors and their
    /// devices.
    public func clearRetained(owners: [ReadingOwner]) async throws {
        var messages: [MQTTConnection.Message] = []
        for owner in owners {
            for kind in ReadingKind.allCases { messages += clearingMessages(owner, kind) }
        }
        messages.append(
            MQTTConnection.Message(topic: Self.availabilityTopic(address, hubID: hubID), payload: [], retain: true))
        try await connection.publish(messages)
        retained.withLock { $0 = Retained() }
    }

    /// Empty retained messages on the configuration topic of every sensor of `kind` of `owner`, then its state
    /// topic: what makes Home Assistant remove the sensors (an empty state first would be read as a value).
    private func clearingMessages(_ owner: ReadingOwner, _ kind: ReadingKind) -> [MQTTConnection.Message] {
        (HomeAssistantDiscovery.sensors(of: kind).map { discovery.configTopic(owner, kind, $0.column) }
            + [discovery.stateTopic(owner, kind)]).map { MQTTConnection.Message(topic: $0, payload: [], retain: true) }
    }

    /// Disconnects; a long-running publisher first says `offline` (the broker discards the will at a DISCONNECT).
    public func close() async {
        await connection.close(publishing: announces ? [Self.availability(false, address, hubID: hubID)] : [])
    }
}
