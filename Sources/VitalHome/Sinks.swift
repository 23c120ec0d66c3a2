import Foundation
import Logging
import SinkSettings
import VitalBridge
import VitalCore
import VitalSinks
import VitalStore

extension PostgresSink: ChangeSink {
    /// A database shows no current values: it has every reading.
    nonisolated public var latestScope: LatestScope { .none }
    /// A lost database connection is found by the next push.
    nonisolated public var isClosed: Bool { false }
}

extension MQTTSink: ChangeSink {}

/// A sink that publishes at least once (MQTT), with the claim that keeps it the sink's only publisher; closing it
/// ends the claim.
struct ClaimedSink: ChangeSink {
    let sink: any ChangeSink
    let claim: JobClaim

    func position(hub hubID: String) async throws -> Int64 { try await sink.position(hub: hubID) }
    func push(_ batch: ChangeBatch) async throws { try await sink.push(batch) }
    var latestScope: LatestScope { sink.latestScope }
    var isClosed: Bool { sink.isClosed }
    func close() async {
        await sink.close()
        withExtendedLifetime(claim) {}
    }
}

/// A sink's address, of whichever kind its scheme says.
enum AnySinkAddress: CustomStringConvertible {
    case postgres(SinkAddress)
    case mqtt(MQTTAddress)

    /// Reads `text`: `mqtt://` and `mqtts://` are an MQTT broker's, anything else is read as PostgreSQL's.
    init(_ text: String) throws(SinkError) {
        let scheme = text.prefix { $0 != ":" }.lowercased()
        self = scheme == "mqtt" || scheme == "mqtts" ? .mqtt(try MQTTAddress(text)) : .postgres(try SinkAddress(text))
    }

    var description: String {
        switch self {
        case .postgres(let address): address.description
        case .mqtt(let address): address.description
        }
    }
}

/// Why a sink cannot be added, followed or pushed to: one line naming what was wrong, never a password.
public struct SinkRequestError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

extension Hub {
    /// Adds the sink `name` at `url`, without a password: a PostgreSQL database (a `SinkAddress`) or an MQTT broker
    /// (an `MQTTAddress`). Its password comes from `passwordFile` (checked now, and kept in the home as an absolute
    /// path as given, never resolved through a link), or for PostgreSQL libpq's password file. Returns its address
    /// in its canonical form and how many readings it has queued: the whole history.
    public func addSink(
        named name: String, url: String, passwordFile: String?
    ) throws -> (address: String, queued: Int) {
        let address: AnySinkAddress
        var file: String?
        do {
            address = try AnySinkAddress(url)
            if let passwordFile {
                let path =
                    passwordFile.hasPrefix("/")
                    ? passwordFile : FileManager.default.currentDirectoryPath + "/" + passwordFile
                _ = try SinkPassword.read(file: path)
                file = path
            }
        } catch {
            throw SinkRequestError(description: error.message)
        }
        if case .mqtt(let broker) = address { try checkBroker(broker, passwordFile: file) }
        try store.sinks.add(
            SinkRecord(name: name, address: address.description, passwordFile: file, addedAt: Timestamp(Date())))
        return (address.description, try store.sinks.queuedChanges(after: 0))
    }

    /// Refuses what would make an MQTT sink fail at every push, publish every change twice, or fight another over
    /// Home Assistant's sensors: a password without a user (MQTT 3.1.1 sends none), a CA file that cannot be read,
    /// and a broker another sink of the home publishes to already under the same prefix or the same discovery
    /// prefix (whose configurations are the hub's, whatever the prefix). A broker is its host, case aside, and port;
    /// this machine's loopback names are one host.
    private func checkBroker(_ broker: MQTTAddress, passwordFile: String?) throws {
        if passwordFile != nil && broker.user == nil {
            throw SinkRequestError(
                description: "the address names no user, so the password would not be sent: mqtt://USER@HOST")
        }
        if let caFile = broker.caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw SinkRequestError(description: "the CA file \(caFile) cannot be read")
        }
        func host(_ address: MQTTAddress) -> String {
            SinkAddress.isLoopback(address.host) ? "loopback" : address.host.lowercased()
        }
        for sink in try store.sinks.all() {
            guard case .mqtt(let other) = try? AnySinkAddress(sink.address), host(other) == host(broker),
                other.port == broker.port
            else { continue }
            if other.prefix == broker.prefix {
                throw SinkRequestError(
                    description:
                        "sink \(sink.name) publishes to \(broker.serverDescription) under \(broker.prefix) already: a "
                        + "second sink there would publish every change twice")
            }
            if other.discoveryPrefix == broker.discoveryPrefix {
                throw SinkRequestError(
                    description:
                        "sink \(sink.name) publishes Home Assistant's sensors to \(broker.serverDescription) under "
                        + "\(broker.discoveryPrefix) already: a second sink there would overwrite them "
                        + "(?discovery=PREFIX gives it another)")
            }
        }
    }

    /// The sink named `name`, or every sink when `name` is `nil`.
    public func sinks(named name: String?) throws(StoreError) -> [SinkRecord] {
        if let name { return [try store.sinks.named(name)] }
        return try store.sinks.all()
    }

    /// What `sink list` shows of each sink, a row each: its name, its address, where its password comes from (its
    /// file; else libpq's password file for PostgreSQL, none for MQTT) and when it was added.
    public func sinkListTable() throws(StoreError) -> TextTable {
        let rows = try store.sinks.all().map { sink in
            let otherwise =
                switch try? AnySinkAddress(sink.address) {
                case .mqtt: "none"
                default: "PGPASSFILE or ~/.pgpass"
                }
            return [sink.name, sink.address, sink.passwordFile ?? otherwise, "\(sink.addedAt)"]
        }
        return TextTable(["sink", "address", "password", "added (UTC)"], rows)
    }

    /// Removes the sink `name`. An MQTT sink first clears what it retained on its broker for Home Assistant (every
    /// owner's sensor configurations and states, and the availability), so that Home Assistant removes its sensors,
    /// unless `keepRetained`; it holds the sink's claim until the home has forgotten the sink, so that no publisher
    /// starting meanwhile publishes them again. If the broker cannot be reached the sink stays, and the error says
    /// so. What a database received stays there.
    ///
    /// - Throws: ``SinkRequestError`` naming the broker and why; `HomeError` when another process publishes to the
    ///   sink; the store's error.
    public func removeSink(named name: String, keepRetained: Bool) async throws {
        let sink = try store.sinks.named(name)
        guard !keepRetained, case .mqtt(let broker) = try AnySinkAddress(sink.address) else {
            try store.sinks.remove(named: name)
            return
        }
        let claim = try home.claimSink(name)
        let connection: MQTTSink
        do {
            connection = try await mqttSink(sink, broker, announces: false)
            do {
                try await connection.clearRetained(owners: try store.sinks.ownersEver())
            } catch {
                await connection.close()
                throw error
            }
        } catch {
            throw SinkRequestError(
                description:
                    "cannot clear what it retained on \(broker.serverDescription) for Home Assistant: \(error); "
                    + "the sink is kept (to remove it and leave the broker as it is: --keep-retained)")
        }
        defer { withExtendedLifetime(claim) {} }
        do {
            try store.sinks.remove(named: name)
        } catch {
            await connection.close()
            throw error
        }
        await connection.close()
    }

    /// What `sink status` shows of the sink named `name` (every sink when `nil`), a row each: its name, how many
    /// readings have a change it had not committed at its last push, its position, its last success (`never`) and
    /// its last error after the time it happened (empty when it never failed).
    public func sinkStatusTable(named name: String?) throws(StoreError) -> TextTable {
        let rows = try sinks(named: name).map { sink throws(StoreError) in
            [
                sink.name, "\(try store.sinks.queuedChanges(after: sink.position))", "\(sink.position)",
                sink.lastSuccess.map { "\($0)" } ?? "never",
                sink.lastError.map { error in "\(sink.lastErrorAt.map { "\($0)" } ?? ""): \(error)" } ?? "",
            ]
        }
        return TextTable(["sink", "queued", "position", "last success (UTC)", "last error (UTC)"], rows)
    }

    /// The sinks `names` name, every sink when it is empty.
    ///
    /// - Throws: ``SinkRequestError`` naming a sink the home does not have, or saying it has none.
    public func sinks(among names: [String]) throws -> [SinkRecord] {
        let all = try store.sinks.all()
        for name in names where !all.contains(where: { $0.name == name }) {
            throw SinkRequestError(description: "the home has no sink named \(name) (vitalbridge sink list)")
        }
        let sinks = names.isEmpty ? all : all.filter { names.contains($0.name) }
        guard !sinks.isEmpty else { throw SinkRequestError(description: "the home has no sink (vitalbridge sink add)") }
        return sinks
    }

    /// The outbox of the store, sending `batchSize` changes in one transaction of the server, on the real clock.
    public func outbox(batchSize: Int) -> Outbox {
        Outbox(store: store, now: { Timestamp(Date()) }, clock: ContinuousClock(), batchSize: batchSize, logger: logger)
    }

    /// A connection to `sink`: to its database, its schema migrated (the password from the sink's file, else
    /// libpq's password file), or to its broker, the sink claimed for this process until the connection is closed
    /// (the password from the sink's file, if it has one). A `longRunning` publisher (`serve`, `sink follow`)
    /// announces the hub's availability on the broker, with a will.
    public func connect(_ sink: SinkRecord, longRunning: Bool = false) async throws -> any ChangeSink {
        let address: SinkAddress
        switch try AnySinkAddress(sink.address) {
        case .postgres(let postgres): address = postgres
        case .mqtt(let broker):
            let claim = try home.claimSink(sink.name)
            return ClaimedSink(sink: try await mqttSink(sink, broker, announces: longRunning), claim: claim)
        }
        let connection = try await PostgresSink.connect(
            address, password: try password(of: sink) ?? SinkPassword.lookup(for: address, logger: logger),
            logger: logger)
        do {
            try await connection.migrate()
        } catch {
            await connection.close()
            throw error
        }
        return connection
    }

    /// The password in `sink`'s file, if it has one.
    private func password(of sink: SinkRecord) throws(SinkError) -> String? {
        try sink.passwordFile.map { path throws(SinkError) in try SinkPassword.read(file: path) }
    }

    /// A connection to the broker of `sink`, which the caller has claimed, from the sink's position in the home (read
    /// after the claim: the last publisher's is recorded).
    private func mqttSink(_ sink: SinkRecord, _ broker: MQTTAddress, announces: Bool) async throws -> MQTTSink {
        try await MQTTSink.connect(
            broker, password: try password(of: sink), hubID: try store.feed.end().hubID, sinkName: sink.name,
            position: try store.sinks.named(sink.name).position, announces: announces, logger: logger)
    }
}
