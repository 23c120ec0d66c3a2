internal import GRDB
import VitalCore

/// What forgetting a device did (``VitalStore/forgetDevice(_:deletingReadings:at:)``).
public struct ForgottenDevice: Hashable, Sendable {
    /// The device as the store knew it.
    public var device: StoredDevice
    /// Its readings that were not deleted before: kept in the store, or deleted now (``readingsDeleted``).
    public var readings: Int
    /// Whether those readings were deleted with it.
    public var readingsDeleted: Bool

    public init(device: StoredDevice, readings: Int, readingsDeleted: Bool) {
        self.device = device
        self.readings = readings
        self.readingsDeleted = readingsDeleted
    }
}

extension VitalStore {
    /// How many readings of device `mac` the store has and were not deleted (quarantined ones included): what
    /// forgetting it with its readings deletes.
    public func readingCount(device mac: MACAddress) throws(StoreError) -> Int {
        try file.query("count a device's readings") { db in try Self.readingCount(device: mac.description, db) }
    }

    /// ``readingCount(device:)`` read on `db`.
    private static func readingCount(device mac: String, _ db: Database) throws -> Int {
        try Int.fetchOne(
            db, sql: "SELECT COUNT(*) FROM reading WHERE device_mac = ? AND deleted_at IS NULL", arguments: [mac]) ?? 0
    }

    /// Forgets device `mac`, in one write transaction: the hub no longer knows it, as if it had never been added
    /// (``device(_:)`` is `nil`, ``devices()`` does not list it), and no caller is owed anything of it.
    ///
    /// What the store keeps of a device, and what forgetting it does with each:
    /// - its row (`device`: model, serial, firmware, an activity monitor's profile, when it was added): removed. A
    ///   request for it afterwards is one for a device never added, which adds it again with a new row.
    /// - every caller's pending queue of it (`pending`, and `pending_caller`, which callers asked for it): removed,
    ///   so nothing of it is pending for anyone. A caller that asks for it again gets a new queue, built from the
    ///   journal: only readings never delivered to it, never one it has.
    /// - its readings (`reading`) and their changes in the feed (`feed`): kept, unless `reason` is given; then each
    ///   one not deleted yet is deleted exactly as ``ReadingsStore/delete(_:reason:at:)`` deletes one (marked
    ///   deleted at `time`, kept in the file so that the device sending it again does not bring it back, and a
    ///   `delete` change with `reason` in the feed, which the sinks receive). A reading deleted before keeps its
    ///   deletion.
    /// - the delivery journal (`delivery`, `delivery_reading`): kept. It is the history of what each caller was
    ///   handed, and what makes a device added again never deliver a reading twice.
    /// - reservations of its readings (`reservation`): kept. They belong to a callback another process is handing
    ///   over already, which journals what it carried when it is done; they expire by themselves, and with no queue
    ///   left they hold nothing back.
    /// - the items a smartband pushed (`day_item`), which its day readings are made of and how its clock dated them:
    ///   kept with the readings. Were they cleared, a band added again would revise a stored day from the few items
    ///   it pushes next, and a restarted clock would lose the dating it keeps steady. Its heart-rate minutes are
    ///   listed (`records --heart-rate-minutes`) only for devices of the hub: again once the band is added again.
    /// - the people assigned to its user indexes (`assignment`): kept. They say whose its readings are; clearing
    ///   them would put those readings back into quarantine and send their deletions to the sinks. `people
    ///   unassign` undoes one, device or no device.
    ///
    /// A deleted reading stays deleted whatever its device sends, and a device added again re-sending readings the
    /// store has stores nothing twice (``ReadingsStore/store(_:device:merging:)``).
    ///
    /// - Parameters:
    ///   - mac: the device.
    ///   - reason: why the readings are deleted (as ``ReadingsStore/delete(_:reason:at:)`` takes it), or `nil` to
    ///     keep them.
    ///   - time: when they are deleted.
    /// - Returns: the device as the store knew it, and how many readings it kept or deleted.
    /// - Throws: ``StoreError`` naming `mac` when it is not a device of the hub, or refusing `reason`; nothing is
    ///   changed then.
    @discardableResult
    public func forgetDevice(_ mac: MACAddress, deletingReadings reason: String?, at time: Timestamp)
        throws(StoreError) -> ForgottenDevice
    {
        if let reason { try Self.checkDeletion(reason) }
        return try file.write("forget a device") { db in
            let macText = mac.description
            guard
                let row = try Row.fetchOne(db, sql: "SELECT * FROM device WHERE mac = ?", arguments: [macText])
            else { throw StoreError(.failed, "\(mac) is not a device of this hub") }
            let device = try Self.device(from: row)
            let count: Int
            if let reason {
                // read whole before the first is marked: the statement does not walk rows it changes
                let readings = try Row.fetchAll(
                    db,
                    sql: "SELECT id, measured_at FROM reading WHERE device_mac = ? AND deleted_at IS NULL ORDER BY id",
                    arguments: [macText])
                for reading in readings {
                    try Self.markDeleted(
                        reading[0], device: macText, measuredAt: reading[1], reason: reason, at: time, db)
                }
                count = readings.count
            } else {
                count = try Self.readingCount(device: macText, db)
            }
            // the queues through their key, caller by caller; then the callers, then the device
            try db.execute(
                sql: """
                    DELETE FROM pending WHERE caller IN (SELECT caller FROM pending_caller WHERE device_mac = ?1)
                        AND device_mac = ?1
                    """, arguments: [macText])
            try db.execute(sql: "DELETE FROM pending_caller WHERE device_mac = ?", arguments: [macText])
            try db.execute(sql: "DELETE FROM device WHERE mac = ?", arguments: [macText])
            return ForgottenDevice(device: device, readings: count, readingsDeleted: reason != nil)
        }
    }
}
