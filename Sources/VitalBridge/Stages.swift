import Foundation
import LayeredProtocol
import Locking
import Logging
import VitalCore
import VitalDevices
import VitalStore

/// Runs a request's stages (add → sync → measure) against its device under a lease: finds the device to add,
/// connects, readies the driver for the caller (``VitalDevices/DeviceDriver/prepare(for:)``), and keeps every
/// reading in the store before the device may forget it. It knows no device family: the driver does.
struct StageRunner: Sendable {
    let store: VitalStore
    let central: any BluetoothCentral
    let user: any HubUser
    let leases: any DeviceLeases
    let logger: Logger
    let now: @Sendable () -> Timestamp
    /// Called as a sync stores records (for a progress bar).
    let progress: @Sendable (SyncProgress) -> Void

    /// How the stages went.
    struct Run {
        var outcomes: [StageOutcome] = []
        var reason: LayeredReason?
        var device: MACAddress?
        var live: StoredReading?
    }

    func run(_ request: LayeredRequest, caller: String, owner: ReservationOwner, scannedQR: String?) async -> Run {
        var run = Run()
        guard central.reaches(request.deviceModel) else {
            // the callback names the device the request named, as every other answer to an action on one does
            run.device = request.action.addsDevice ? nil : request.mac
            run.outcomes = [.fail]
            run.reason = .unsupportedTransport
            return run
        }
        let entry = DeviceCatalog.entry(for: request.deviceModel)
        do {
            let mac = try await request.action.addsDevice ? findDevice(request, scannedQR: scannedQR) : request.mac!
            run.device = mac
            let known = try store.device(mac)
            if let known, known.model != request.deviceModel {
                throw StagesStopped.first(.fail, .deviceModelMismatch)
            }
            let stages = try await leases.withLease(mac) { [self] in
                try await self.runStages(request, entry: entry, mac: mac, known: known, caller: caller, owner: owner)
            }
            run.outcomes = stages.outcomes
            run.live = stages.live
        } catch let stopped as StagesStopped {
            run.outcomes = stopped.outcomes
            run.reason = stopped.reason
        } catch let error as DeviceError {
            run.outcomes.append(error.code == .cancelled ? .cancel : .fail)
            run.reason = error.reason(for: request.deviceModel)
        } catch is CancellationError {
            // the user cancelled while the request waited (for a device another request holds)
            run.outcomes.append(.cancel)
            run.reason = .cancel
        } catch {
            run.outcomes.append(.fail)
            run.reason = .answering(error, logger)
        }
        return run
    }

    /// A stage that did not succeed, with the outcomes of the stages up to it.
    struct StagesStopped: Error {
        var outcomes: [StageOutcome]
        var reason: LayeredReason

        /// The first stage stopped.
        static func first(_ outcome: StageOutcome, _ reason: LayeredReason) -> StagesStopped {
            StagesStopped(outcomes: [outcome], reason: reason)
        }
    }

    struct StagesDone: Sendable {
        var outcomes: [StageOutcome]
        var live: StoredReading?
    }

    func runStages(
        _ request: LayeredRequest, entry: CatalogEntry, mac: MACAddress, known: StoredDevice?, caller: String,
        owner: ReservationOwner
    ) async throws
        -> StagesDone
    {
        var known = known
        var outcomes: [StageOutcome] = []
        func stop(_ outcome: StageOutcome, _ reason: LayeredReason) -> StagesStopped {
            StagesStopped(outcomes: outcomes + [outcome], reason: reason)
        }
        let connection: any BluetoothConnection
        do {
            connection = try await central.connect(to: mac)
        } catch {
            logger.notice("cannot connect", metadata: ["device": "\(mac)", "error": "\(error)"])
            throw stop(.fail, error.reason(for: request.deviceModel))
        }
        let driver = makeDriver(for: entry, connection: connection, clock: now, addedAt: known?.addedAt)
        let sink = StoreSink(store: store, device: mac)
        var live: StoredReading?
        var failure: StagesStopped?
        do {
            // the clock before anything that reads a record, or sets the clock (the PO3's prepare)
            try await driver.readClock(hubClock: now)
            try await driver.prepare(for: DeviceSession(caller: caller, profile: request.profile, time: now()))
            for stage in request.action.stages {
                // the add stage asked the user before the device was known (findDevice)
                if stage != .add, await user.cancels(stage) { throw stop(.cancel, .cancel) }
                switch stage {
                case .add:
                    let info = try await driver.deviceInfo()
                    let added = StoredDevice(
                        mac: mac, model: request.deviceModel, serialNumber: info.serialNumber,
                        firmwareRevision: info.firmwareRevision, profile: request.profile, addedAt: now())
                    try store.saveDevice(added)
                    known = added
                case .sync:
                    try rememberDevice(mac, known: known, request)
                    var count = try await driver.sync(into: sink, progress: progress)
                    // the refused are logged, each naming what to do: the caller's answer carries what the device
                    // let the hub take
                    let enrolled = try await EnrolledSync(store: store, now: now, logger: logger).run(
                        driver, mac, into: sink, progress: progress)
                    count += enrolled.stored
                    for refusal in enrolled.refusals { logger.warning("\(refusal)") }
                    progress(SyncProgress(stored: count, expected: count))  // the end, total known at last
                case .measure:
                    try rememberDevice(mac, known: known, request)
                    live = try await measureReserved(
                        driver, MeasureOptions(stripCode: request.stripCode), into: sink, caller: caller, owner: owner)
                }
                outcomes.append(.success)
            }
        } catch let stopped as StagesStopped {
            failure = stopped
        } catch let error as DeviceError {
            failure = stop(error.code == .cancelled ? .cancel : .fail, error.reason(for: request.deviceModel))
        } catch {
            failure = stop(.fail, .answering(error, logger))
        }
        await connection.disconnect()
        if let failure { throw failure }
        return StagesDone(outcomes: outcomes, live: live)
    }

    /// Measures with `driver`, which stores the reading through `sink` before the device can forget it, and
    /// reserves it for `caller` as `owner`'s while the device is still held, so that no other request can deliver
    /// it to the caller before this one's answer carries it. A reading the caller may not receive (of a user index
    /// in quarantine, or another person's) stays stored and is not the answer's: `nil`.
    func measureReserved(
        _ driver: any DeviceDriver, _ options: MeasureOptions, into sink: StoreSink, caller: String,
        owner: ReservationOwner
    ) async throws -> StoredReading? {
        let record = try await driver.measure(options, into: sink) { _ in }
        guard
            let id = try sink.latestID(of: record.reading) ?? store.readings.id(of: record.reading, device: sink.device)
        else { throw StoreError("the live reading is not in the store") }
        if record.reading.annotations.userIndex != nil, try !store.people.isDeliverable(id, to: caller) {
            logger.notice(
                "the measured reading is not the caller's: it stays in the store",
                metadata: ["user": "\(record.reading.annotations.userIndex!)", "caller": "\(caller)"])
            return nil
        }
        try store.journal.reserve([id], caller: caller, for: owner)
        return StoredReading(id: id, device: sink.device, reading: record.reading)
    }

    /// Stores device `mac` if the store did not know it (`known`, read before the stages) or its AM profile
    /// changed; a known device costs no commit.
    func rememberDevice(_ mac: MACAddress, known: StoredDevice?, _ request: LayeredRequest) throws(StoreError) {
        guard known == nil || (request.profile != nil && known?.profile != request.profile) else { return }
        try store.saveDevice(
            StoredDevice(mac: mac, model: request.deviceModel, profile: request.profile, addedAt: now()))
    }

    /// The MAC of the device to add: the one the QR code names, or the paired device of the model a scan finds
    /// (the user chooses when there are several); then, for `popflag=1`, the user's leave to connect. A decision
    /// nobody can make fails the add by name (``LayeredReason/noPrompt``, ``LayeredReason/severalDevices(_:)``).
    func findDevice(_ request: LayeredRequest, scannedQR: String?) async throws -> MACAddress {
        if await user.cancels(.add) { throw StagesStopped.first(.cancel, .cancel) }
        let mac: MACAddress
        if request.addType == .qrCode {
            let text: String
            if let scannedQR {
                text = scannedQR
            } else {
                text = try await Self.answer(user.scanQRCode(), else: .named(.noPrompt, parameter: "addtype"))
            }
            do {
                mac = try DeviceQRCode(parsing: text, requestedModel: request.deviceModel).mac
            } catch {
                throw StagesStopped.first(.fail, error.reason)
            }
        } else {
            let candidates = await central.pairedCandidates(of: request.deviceModel)
            guard let strongest = candidates.first else { throw StagesStopped.first(.fail, .deviceNotFound) }
            if candidates.count == 1 {
                mac = strongest.mac
            } else {
                let chosen = try await Self.answer(
                    user.chooseDevice(among: candidates), else: .severalDevices(candidates.count))
                guard candidates.contains(where: { $0.mac == chosen }) else {
                    logger.notice("the device chosen is not one of those found", metadata: ["device": "\(chosen)"])
                    throw StagesStopped.first(.fail, .deviceNotFound)
                }
                mac = chosen
            }
        }
        if request.prompts {
            try await Self.answer(user.confirmConnect(to: mac), else: .named(.noPrompt, parameter: "popflag"))
        }
        return mac
    }

    /// The answer's value; a decline cancels the add, and an answer nobody can give fails it with `reason`.
    static func answer<Value>(_ answer: PromptAnswer<Value>, else reason: LayeredReason) throws -> Value {
        switch answer {
        case .answered(let value): return value
        case .declined: throw StagesStopped.first(.cancel, .cancel)
        case .unavailable: throw StagesStopped.first(.fail, reason)
        }
    }
}

/// Stores what a driver reads, in one transaction per batch, before the driver lets the device forget it.
public struct StoreSink: RecordSink {
    public let store: VitalStore
    public let device: MACAddress
    /// The readings of the latest batch with their identifiers in the store.
    private let latest = LatestBatch()

    /// A sink that stores the readings of device `device` in `store`.
    public init(store: VitalStore, device: MACAddress) {
        self.store = store
        self.device = device
    }

    /// How readings a device sends in parts are one reading in the store: the drivers' rule (``RecordMerging``), so
    /// that neither the store nor the engine knows a device family.
    static let merging = ReadingMerge(
        mayMerge: RecordMerging.mayMerge, merged: { RecordMerging.merged($0, with: $1) })

    public func store(_ records: [DeviceRecord]) async throws {
        let readings = records.map(\.reading)
        let ids = try store.readings.store(readings, device: device, merging: Self.merging)
        latest.stored.withLock { $0 = Array(zip(readings, ids)) }
    }

    /// Keeps a device's day items as they came and, in the same transaction, the reading of each day they change,
    /// made by the driver's `DayItemBatch.summarize`.
    public func storeDayItems(_ batch: DayItemBatch) async throws {
        try store.readings.storeDayItems(batch.items, device: device, summarize: batch.summarize)
    }

    /// How the band's latest stored item was dated: the one of its most recent day, read from the store.
    public func latestBandDating() async throws -> BandItemDating? {
        guard let bytes = try store.readings.latestDayItem(device: device)?.bytes else { return nil }
        return try BandItem.stored(bytes).dating
    }

    /// The store's identifier of `reading` if it was in the latest batch this sink stored (a live measurement is
    /// stored alone, just before the driver returns it), without asking the store.
    func latestID(of reading: Reading) -> Int64? {
        latest.stored.withLock { batch in batch.last { $0.reading == reading }?.id }
    }

    private final class LatestBatch: Sendable {
        let stored = Locked<[(reading: Reading, id: Int64)]>([])
    }
}
