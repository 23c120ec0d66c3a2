import Foundation
import Logging
import SinkSettings
import VitalBridge
import VitalCore
import VitalSinks
import VitalStore

extension PostgresSink: ChangeSink {}
extension MQTTSink: ChangeSink {}

/// A sink that publishes at least once (MQTT), with the claim that keeps it the sink's only publisher; closing it
/// ends the claim.
struct ClaimedSink: ChangeSink {
    let sink: any ChangeSink
    let claim: JobClaim

    func position(hub hubID: String) async throws -> Int64 { try await sink.position(hub: hubID) }
    func push(_ batch: ChangeBatch) async throws { try await sink.push(batch) }
    var wantsLatestReadings: Bool { sink.wantsLatestReadings }
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

    /// Refuses what would make an MQTT sink fail at every push, or publish every change twice: a password without a
    /// user (MQTT 3.1.1 sends none), a CA file that cannot be read, and a broker and prefix another sink of the home
    /// publishes to already.
    private func checkBroker(_ broker: MQTTAddress, passwordFile: String?) throws {
        if passwordFile != nil && broker.user == nil {
            throw SinkRequestError(
                description: "the address names no user, so the password would not be sent: mqtt://USER@HOST")
        }
        if let caFile = broker.caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw SinkRequestError(description: "the CA file \(caFile) cannot be read")
        }
        for sink in try store.sinks.all() {
            guard case .mqtt(let other) = try? AnySinkAddress(sink.address),
                other.host.lowercased() == broker.host.lowercased(), other.port == broker.port,
                other.prefix == broker.prefix
            else { continue }
            throw SinkRequestError(
                description:
                    "sink \(sink.name) publishes to \(broker.serverDescription) under \(broker.prefix) already: a second "
                    + "sink there would publish every change twice")
        }
    }

    /// The sink named `name`, or every sink when `name` is `nil`.
    public func sinks(named name: String?) throws(StoreError) -> [SinkRecord] {
        if let name { return [try store.sinks.named(name)] }
        return try store.sinks.all()
    }

    /// What `sink list` shows of each sink, a row each: its name, its address, where its password comes from (its
    /// file; else libpq's password file for PostgreSQL, none for MQTT) and when it was added.
    public func sinkListRows() throws(StoreError) -> [[String]] {
        try store.sinks.all().map { sink in
            let otherwise =
                switch try? AnySinkAddress(sink.address) {
                case .mqtt: "none"
                default: "PGPASSFILE or ~/.pgpass"
                }
            return [sink.name, sink.address, sink.passwordFile ?? otherwise, "\(sink.addedAt)"]
        }
    }

    /// Removes the sink `name`. An MQTT sink first clears what it retained on its broker for Home Assistant (every
    /// owner's sensor configurations and states, and the availability), so that Home Assistant removes its sensors,
    /// unless `keepRetained`; if the broker cannot be reached the sink stays, and the error says so. What a
    /// database received stays there.
    ///
    /// - Throws: ``SinkRequestError`` naming the broker and why, or the store's error.
    public func removeSink(named name: String, keepRetained: Bool) async throws {
        let sink = try store.sinks.named(name)
        if !keepRetained, case .mqtt(let broker) = try AnySinkAddress(sink.address) {
            do {
                let claimed = try await connect(sink)
                do {
                    try await ((claimed as? ClaimedSink)?.sink as? MQTTSink)?.clearRetained(
                        owners: try store.sinks.ownersEver())
                } catch {
                    await claimed.close()
                    throw error
                }
                await claimed.close()
            } catch {
                throw SinkRequestError(
                    description:
                        "cannot clear what it retained on \(broker.serverDescription) for Home Assistant: \(error); "
                        + "the sink is kept (to remove it and leave the broker as it is: --keep-retained)")
            }
        }
        try store.sinks.remove(named: name)
    }

    /// What `sink status` shows of the sink named `name` (every sink when `nil`), a row each: its name, how many
    /// readings have a change it had not committed at its last push, its position, its last success (`never`) and
    /// its last error after the time it happened (empty when it never failed).
    public func sinkStatusRows(named name: String?) throws(StoreError) -> [[String]] {
        try sinks(named: name).map { sink throws(StoreError) in
            [
                sink.name, "\(try store.sinks.queuedChanges(after: sink.position))", "\(sink.position)",
                sink.lastSuccess.map { "\($0)" } ?? "never",
                sink.lastError.map { error in "\(sink.lastErrorAt.map { "\($0)" } ?? ""): \(error)" } ?? "",
            ]
        }
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
        let password = try sink.passwordFile.map { path throws(SinkError) in try SinkPassword.read(file: path) }
        let address: SinkAddress
        switch try AnySinkAddress(sink.address) {
        case .postgres(let postgres): address = postgres
        case .mqtt(let broker):
            let claim = try home.claimSink(sink.name)
            // the position read after the claim: the last publisher's is recorded
            let position = try store.sinks.named(sink.name).position
            let connection = try await MQTTSink.connect(
                broker, password: password, hubID: try store.feed.end().hubID, sinkName: sink.name,
                position: position, announces: longRunning, logger: logger)
            return ClaimedSink(sink: connection, claim: claim)
        }
        let connection = try await PostgresSink.connect(
            address, password: password ?? SinkPassword.lookup(for: address, logger: logger), logger: logger)
        do {
            try await connection.migrate()
        } catch {
            await connection.close()
            throw error
        }
        return connection
    }
}
