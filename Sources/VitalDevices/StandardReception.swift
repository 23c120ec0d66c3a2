import HealthGATT
import VitalCore

/// One wait of ``StandardPushDriver`` for what a generic SIG device indicates: every reading is stored, then
/// confirmed, until the device disconnects, sends nothing for a while, or sends a reading the wait stops at.
///
/// A scale with the Body Composition Service sends a weight's composition on its own characteristic, just before or
/// after the weight: the two are stored as one reading, and a weight the wait stops at waits up to
/// ``StandardWaits/quiet`` for its composition.
///
/// The events come from ``run(waiting:)``, or one by one through ``take(_:)`` while the hub waits for something else
/// on the link (a User Control Point's answer): a device indicates a measurement whenever its user measures, and
/// sends nothing more until the hub confirms it, which the hub does only once it is stored.
final class StandardReception {
    /// What the wait brought: how many new readings, the one it stopped at, and whether the device hung up.
    struct Received {
        var count = 0
        var stoppedAt: DeviceRecord?
        var hungUp = false
    }

    private let driver: StandardPushDriver
    private let sink: any RecordSink
    private let observer: @Sendable (LiveSample) -> Void
    private let progress: @Sendable (SyncProgress) -> Void
    private let stop: (DeviceRecord) -> Bool
    /// Whether the device's weights and compositions come on two characteristics, to be paired.
    private let pairs: Bool
    private var pairing = CompositionPairing()
    /// The reading `stop` accepted, while its body composition may still come.
    private var accepted: DeviceRecord?
    private var received = Received()
    /// How many new readings the wait stored so far, through ``run(waiting:)`` and ``take(_:)``.
    var count: Int { received.count }

    /// A wait on `driver`'s link, subscribed to the device's measurement (and cuff pressure and body composition,
    /// where the device has them: both are optional in their profiles).
    init(
        _ driver: StandardPushDriver, into sink: any RecordSink, observer: @escaping @Sendable (LiveSample) -> Void,
        progress: @escaping @Sendable (SyncProgress) -> Void, until stop: @escaping (DeviceRecord) -> Bool
    ) async throws(DeviceError) {
        (self.driver, self.sink, self.observer, self.progress, self.stop) = (driver, sink, observer, progress, stop)
        let (entry, connection) = (driver.entry, driver.connection)
        let cuff = GATTCharacteristics.intermediateCuffPressure
        let composition = GATTCharacteristics.bodyComposition
        if entry.family.traits.progressCharacteristic == cuff, await connection.offers(cuff) {
            try await connection.subscribe(cuff)
        }
        let measurement = entry.measurementCharacteristic
        pairs = entry.family == .scale && measurement != composition ? await connection.offers(composition) : false
        if pairs { try await connection.subscribe(composition) }
        try await connection.subscribe(measurement)
    }

    /// Takes events until the device disconnects, sends nothing for `wait`, or sends a reading the wait stops at.
    func run(waiting wait: Duration) async throws(DeviceError) -> Received {
        do {
            // cancellation is checked before waiting, never between a value's arrival and its commit: over BlueZ
            // the device has already forgotten a value that arrived
            while true {
                try driver.checkCancellation()
                let next = accepted == nil ? wait : StandardWaits.quiet
                guard let event = try await driver.connection.nextEvent(within: next) else { break }
                if try await take(event) { break }
            }
        } catch  where error.code == .disconnected {
            // the device ends its session by disconnecting; everything that arrived is stored
            received.hungUp = true
        }
        received.stoppedAt = accepted
        return received
    }

    /// Stores and confirms a reading or composition the device indicated, shows a cuff pressure; any other event is
    /// not the wait's. Returns whether the wait is over.
    @discardableResult
    func take(_ event: GATTEvent) async throws(DeviceError) -> Bool {
        let (connection, session, clock) = (driver.connection, driver.session, driver.clockSession.clock)
        switch event {
        case .indication(driver.entry.measurementCharacteristic, let bytes, let token):
            var record = try DeviceRecord(
                decoding: bytes, of: driver.entry.measurementCharacteristic.characteristic,
                undatedAt: session.undatedAt, clock: clock)
            if pairs { record = pairing.received(weight: record) }
            try await keep(record, new: true)
            try await connection.confirm(token)
            // a reading accepted earlier had no composition after it
            if accepted != nil { return true }
            if stop(record) {
                accepted = record
                return !(pairs && pairing.awaitsComposition(of: record))
            }
            return false
        case .indication(GATTCharacteristics.bodyComposition, let bytes, let token) where pairs:
            let value = try decode(BodyCompositionMeasurement.self, bytes)
            let completed = try pairing.received(composition: value, undatedAt: session.undatedAt, clock: clock)
            if let completed { try await keep(completed.record, new: !completed.completes) }
            try await connection.confirm(token)
            if let record = completed?.record,
                accepted?.reading.measuredAt == record.reading.measuredAt || stop(record)
            {
                accepted = record
            }
            return accepted != nil
        case .notification(GATTCharacteristics.intermediateCuffPressure, let bytes):
            let value = try decode(IntermediateCuffPressure.self, bytes)
            if let pressure = value.cuffPressure.doubleValue {
                observer(.cuffPressure(value.unit == .kPa ? pressure / 0.133_322_387_415 : pressure))
            }
            return false
        default:
            return false
        }
    }

    private func keep(_ record: DeviceRecord, new: Bool) async throws(DeviceError) {
        try await driver.store([record], in: sink)
        driver.session.received(record)
        guard new else { return }
        received.count += 1
        progress(SyncProgress(stored: received.count, expected: nil))
    }
}
