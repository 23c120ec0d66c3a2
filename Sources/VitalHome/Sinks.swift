import Foundation
import Logging
import SinkSettings
import VitalBridge
import VitalCore
import VitalSinks
import VitalStore

extension PostgresSink: ChangeSink {}

/// Why a sink cannot be added, followed or pushed to: one line naming what was wrong, never a password.
public struct SinkRequestError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

extension Hub {
    /// Adds the PostgreSQL sink `name` at `url` (a `SinkAddress`, without a password); its password comes from
    /// `passwordFile` (checked now, and kept in the home as an absolute path as given, never resolved through a
    /// link) or libpq's password file. Returns its address and how many readings it has queued: the whole history.
    public func addSink(
        named name: String, url: String, passwordFile: String?
    ) throws -> (address: SinkAddress, queued: Int) {
        let address: SinkAddress
        var file: String?
        do {
            address = try SinkAddress(url)
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
        try store.sinks.add(
            SinkRecord(name: name, address: address.description, passwordFile: file, addedAt: Timestamp(Date())))
        return (address, try store.sinks.queuedChanges(after: 0))
    }

    /// The sink named `name`, or every sink when `name` is `nil`.
    public func sinks(named name: String?) throws(StoreError) -> [SinkRecord] {
        if let name { return [try store.sinks.named(name)] }
        return try store.sinks.all()
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

    /// A connection to `sink`'s database, its schema migrated: the password from the sink's file, else libpq's
    /// password file.
    public func connect(_ sink: SinkRecord) async throws -> any ChangeSink {
        let address = try SinkAddress(sink.address)
        let password =
            try sink.passwordFile.map { path throws(SinkError) in try SinkPassword.read(file: path) }
            ?? SinkPassword.lookup(for: address, logger: logger)
        let connection = try await PostgresSink.connect(address, password: password, logger: logger)
        do {
            try await connection.migrate()
        } catch {
            await connection.close()
            throw error
        }
        return connection
    }
}
