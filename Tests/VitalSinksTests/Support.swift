import Foundation
import Logging
import SinkSettings
import VitalCore
import VitalSinks
import VitalTestSupport

/// The shared private cluster, or a failure that carries the end of its log.
func cluster() throws -> PrivatePostgres { try PrivatePostgres.shared() }

let testLogger = Logger(label: "org.vitalbridge.sinks.tests")

/// The superuser's address of `database`, over the cluster's Unix socket.
func socketAddress(_ cluster: PrivatePostgres, _ database: String) -> SinkAddress {
    SinkAddress(
        user: cluster.superuser, database: database,
        endpoint: .unixSocket(directory: cluster.socketDirectory, port: cluster.port))
}

/// A sink on a fresh database of its own, migrated; the database's name.
func migratedSink() async throws -> (PostgresSink, String) {
    let cluster = try cluster()
    let database = try cluster.makeDatabase()
    let sink = try await PostgresSink.connect(socketAddress(cluster, database), password: nil, logger: testLogger)
    try await sink.migrate()
    return (sink, database)
}

let hubA = "2b1f6d3e-1c4a-4f0e-9b7d-0123456789ab"
let hubB = "9e8d7c6b-5a49-4382-a1b0-fedcba987654"
let cuff = MACAddress("004D3208D2F4")!
let scale = MACAddress("004D3208D2F5")!

let devices = [
    ChangeBatch.Device(mac: cuff, model: .bp5, serialNumber: "BP5-1", firmwareRevision: "1.0.2"),
    ChangeBatch.Device(mac: scale, model: .hs4s),
]

/// A blood pressure reading at minute `minute` of 2026-11-20 08:00 UTC.
func pressure(_ systolic: Double, _ diastolic: Double, pulse: Int? = 70, minute: Int64 = 0) -> Reading {
    .bloodPressure(
        BloodPressureReading(
            systolic: systolic, diastolic: diastolic, heartRate: pulse,
            measuredAt: Timestamp(secondsSince1970: 1_763_625_600 + minute * 60)))
}

func insert(_ id: Int64, version: Int64, _ reading: Reading, person: String? = "ana") -> ReadingChange {
    ReadingChange(sequence: version, operation: .insert, readingID: id, device: cuff, reading: reading, person: person)
}

func update(_ id: Int64, version: Int64, _ reading: Reading, person: String? = "ana") -> ReadingChange {
    ReadingChange(sequence: version, operation: .update, readingID: id, device: cuff, reading: reading, person: person)
}

func delete(_ id: Int64, version: Int64, reason: String? = "user") -> ReadingChange {
    ReadingChange(sequence: version, operation: .delete, readingID: id, device: cuff, reason: reason)
}

func batch(_ changes: [ReadingChange], hub: String = hubA, through: Int64? = nil) -> ChangeBatch {
    ChangeBatch(
        hubID: hub, devices: devices, people: ["ana", "ben"], changes: changes,
        through: through ?? changes.map(\.sequence).max() ?? 0)
}

/// What the tables hold that a push writes (readings and deletions, without the clock's columns), as psql prints it.
func snapshot(_ database: String) throws -> String {
    let cluster = try cluster()
    let readings = try cluster.psql(
        "SELECT * FROM vitalbridge.readings ORDER BY hub_id, reading_id", database: database)
    let deletions = try cluster.psql(
        "SELECT hub_id, reading_id, version, reason FROM vitalbridge.deletions ORDER BY hub_id, reading_id",
        database: database)
    return readings + "--\n" + deletions
}

/// `sql`'s one value, trimmed.
func value(_ sql: String, _ database: String) throws -> String {
    try cluster().psql(sql, database: database).trimmingCharacters(in: .whitespacesAndNewlines)
}

/// The (reading_id, version) of the live readings of `hub`, in order.
func live(_ database: String, hub: String = hubA) throws -> [String] {
    try cluster().psql(
        "SELECT reading_id || '@' || version FROM vitalbridge.readings WHERE hub_id = '\(hub)' ORDER BY reading_id",
        database: database
    ).split(separator: "\n").map(String.init)
}

/// A file in a new temporary folder holding `contents` with `mode`.
func file(_ folder: TemporaryDirectory, _ name: String, _ contents: String, mode: Int) throws -> String {
    let path = folder.file(name)
    try contents.write(toFile: path, atomically: false, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    return path
}
