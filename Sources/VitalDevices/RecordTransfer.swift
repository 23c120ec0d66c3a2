import HealthGATT
import VitalCore

/// One Record Access Control Point transfer of stored records, the same for every family that keeps its records
/// behind a control point (glucose meters, pulse oximeters): count, report, receive in batches, and the one
/// cancellation rule.
///
/// ``count(_:)`` asks how many records a filter selects. ``receive(_:expected:into:progress:decoding:other:)``
/// writes "report stored records" (`01` + the filter), decodes each record the device sends on
/// ``records`` (notified or indicated; an indication is confirmed once its record decoded), hands them to the sink
/// in batches of ``batchSize`` and, at the device's success (or "no records found") response, commits the last
/// batch and returns. Deleting is the caller's: its family decides what a delete may take.
///
/// **Cancellation**: when the task is cancelled while the transfer runs (checked before each next event), the
/// helper writes the Record Access Control Point's Abort Operation (`03 00`), waits for the device's response to
/// it (at most 5 seconds between two events; a dropped link ends the wait), and throws ``DeviceError/Code/cancelled``. The batch not yet committed is dropped, nothing is deleted, and
/// every record stays on the device for the next sync. A task cancelled before the report was requested throws the
/// same error without writing anything: no operation is running to abort.
struct RecordTransfer {
    let connection: any BluetoothConnection
    /// The family's Record Access Control Point.
    let controlPoint: CharacteristicID
    /// The characteristic the records arrive on.
    let records: CharacteristicID
    /// Records stored per sink call.
    let batchSize: Int
    /// A generic device's session, told of every record received (its new reading may be among them).
    let session: StandardSession?

    /// What a transfer received and committed.
    struct Received {
        /// How many records the sink stored.
        var stored = 0
        /// The highest sequence number among them (0 for a record without one); `nil` when none came.
        var highestSequenceNumber: UInt16?
    }

    /// How many records `filter` selects on the device.
    func count(_ filter: RecordFilter) async throws(DeviceError) -> Int {
        let response = try await request(.reportNumberOfStoredRecords(filter))
        guard case .numberOfStoredRecordsResponse(let count) = response else { throw unexpected(response) }
        return Int(count)
    }

    /// Reports the records `filter` selects into `sink`, in batches, and returns once the device said it sent them
    /// all and the last batch is committed; cancellation aborts as the type's documentation says.
    ///
    /// - Parameters:
    ///   - expected: how many records the device said `filter` selects (for progress).
    ///   - decoding: the record a value of ``records`` carries.
    ///   - other: what to do with any other notification (a vendor status, a glucose context); it may throw.
    /// - Throws: ``DeviceError/Code/cancelled`` when the task is cancelled; ``DeviceError/Code/protocolViolation``
    ///   for a record that does not decode or a response other than success; what the link and the sink throw.
    func receive(
        _ filter: RecordFilter, expected: Int, into sink: any RecordSink,
        progress: @escaping @Sendable (SyncProgress) -> Void,
        decoding: ([UInt8]) throws(DeviceError) -> DeviceRecord,
        other: (CharacteristicID, [UInt8]) throws(DeviceError) -> Void
    ) async throws(DeviceError) -> Received {
        if Task.isCancelled { throw cancelled(after: 0) }
        try await connection.write(controlPoint, RecordAccessControlPoint.reportStoredRecords(filter).encoded())
        var batches = RecordBatches(into: sink, size: batchSize, expected: expected, progress: progress)
        var highest: UInt16?
        while true {
            if Task.isCancelled {
                await abort()
                throw cancelled(after: batches.stored)
            }
            let record: DeviceRecord
            switch try await connection.nextEvent() {
            case .notification(records, let bytes):
                record = try decoding(bytes)
            case .indication(records, let bytes, let token):
                record = try decoding(bytes)
                try await connection.confirm(token)
            case .indication(controlPoint, let bytes, let token):
                try await connection.confirm(token)
                let response = try decode(RecordAccessControlPoint.self, bytes)
                guard case .responseCode(.reportStoredRecords, let code) = response else { throw unexpected(response) }
                guard code == .success || code == .noRecordsFound else { throw failed(.reportStoredRecords, code) }
                try await batches.flush()
                return Received(stored: batches.stored, highestSequenceNumber: highest)
            case .notification(let characteristic, let bytes):
                try other(characteristic, bytes)
                continue
            default:
                continue
            }
            highest = max(highest ?? 0, record.sequenceNumber ?? 0)
            try await batches.add(record)
            session?.received(record)
        }
    }

    /// Writes `command` to the control point and waits for the device's indication answering it (confirmed at
    /// once: an answer deletes nothing); vendor device errors are thrown.
    func request(_ command: RecordAccessControlPoint) async throws(DeviceError) -> RecordAccessControlPoint {
        try await connection.write(controlPoint, command.encoded())
        while true {
            switch try await connection.nextEvent() {
            case .indication(controlPoint, let bytes, let token):
                try await connection.confirm(token)
                return try decode(RecordAccessControlPoint.self, bytes)
            case .notification(GATTCharacteristics.vendorStatus, let bytes):
                _ = try vendorEvent(bytes)
            default:
                continue
            }
        }
    }

    /// Deletes the records `filter` selects; anything but success is a protocol violation.
    func delete(_ filter: RecordFilter) async throws(DeviceError) {
        let response = try await request(.deleteStoredRecords(filter))
        guard case .responseCode(.deleteStoredRecords, let code) = response else { throw unexpected(response) }
        guard code == .success else { throw failed(.deleteStoredRecords, code) }
    }

    /// Aborts the transfer in progress and waits for the device's answer, at most ``abortWait`` between two events;
    /// the records not yet committed stay on the device. A record the device indicated before it saw the abort is
    /// confirmed (it would hold back the answer otherwise) and dropped. A device that does not answer, or a link that
    /// drops meanwhile, ends the wait: the sync is cancelled either way.
    func abort() async {
        do {
            try await connection.write(controlPoint, RecordAccessControlPoint.abortOperation.encoded())
            while let event = try await connection.nextEvent(within: Self.abortWait) {
                switch event {
                case .indication(controlPoint, let bytes, let token):
                    try await connection.confirm(token)
                    if case .responseCode(.abortOperation, _) = try decode(RecordAccessControlPoint.self, bytes) {
                        return
                    }
                case .indication(records, _, let token):
                    try await connection.confirm(token)
                default:
                    continue
                }
            }
        } catch {
            // the link dropped or the answer did not decode: nothing more to wait for
        }
    }

    /// How long an abort waits for the device's next event.
    static let abortWait: Duration = .seconds(5)

    func cancelled(after count: Int) -> DeviceError {
        DeviceError(.cancelled, message: "the sync was cancelled after \(count) records")
    }

    func unexpected(_ response: RecordAccessControlPoint) -> DeviceError {
        DeviceError(.protocolViolation, message: "an unexpected Record Access Control Point answer")
    }

    func failed(_ opCode: RACPOpCode, _ code: RACPResponseCode) -> DeviceError {
        DeviceError(.protocolViolation, message: "the device answered \(code) to \(opCode)")
    }
}
