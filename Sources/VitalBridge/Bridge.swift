import Foundation
import LayeredProtocol
import Logging
import Synchronization
import VitalDevices
import VitalStore

/// The user's side of a request: prompts, the camera and the cancel button.
public protocol HubUser: Sendable {
    /// Whether the user cancels `stage` (closes the scan, stops the sync) before it completes.
    func cancels(_ stage: Stage) async -> Bool
    /// Whether the user accepts the connect prompt (`popflag=1`) for `device`.
    func acceptsConnect(to device: MACAddress) async -> Bool
    /// The text the camera reads from a device's QR code; `nil` if the user closes the camera.
    func scanQRCode() async -> String?
}

/// Exclusive use of a device for the length of an operation, across processes.
public protocol DeviceLeases: Sendable {
    /// Runs `body` while holding device `mac`; throws a `DeviceError` with code `busy` when another holds it too
    /// long.
    func withLease<T: Sendable>(_ mac: MACAddress, _ body: @Sendable () async throws -> T) async throws -> T
}

/// How a callback reaches its caller: the CLI writes it to standard output; a desktop opener opens it.
public protocol CallbackHandOff: Sendable {
    /// Hands `url` over completely (written and flushed, or accepted by the opener), or throws. The readings it
    /// carries count as delivered only once this returns.
    func handOver(_ url: String) async throws
}

extension DeviceError.Code {
    /// Another request is using the device.
    public static let busy = DeviceError.Code(rawValue: "busy")
}

/// What the hub did with one request URL.
public enum HubOutcome: Hashable, Sendable {
    /// The callback URL was handed over.
    case callback(String, HubReport)
    /// The callback could not be handed over (the text says why); the readings it carried stay pending.
    case handOffFailed(String, HubReport, String)
    /// No callback may be sent: the URL is not the hub's, or its caller is not whitelisted; the text says why.
    case noCallback(String)
}

/// What a callback reports, for logs and the CLI's tables.
public struct HubReport: Hashable, Sendable {
    public var status: ActionStatus
    public var reason: LayeredReason?
    public var device: MACAddress?
    /// The readings the callback carries (the live one first).
    public var delivered: [LayeredReading]
    /// The readings left pending for the next sync.
    public var remaining: Int
}

/// The hub's engine: authorizes the caller (``Addressing``), runs the action's stages (add → sync → measure)
/// against a device, keeps every reading in the store before the device may forget it, and answers with a callback
/// within the URL budget.
///
/// Delivery is at least once and, without crashes, exactly once per caller: the readings a callback carries are
/// reserved for this request in one serialized step (`VitalStore.reservePending`), the
/// callback is handed over with no lock held, and only then is it journaled. A crash before the journal leaves the
/// reservation to expire, and the readings are delivered again.
public actor Bridge {
    let store: VitalStore
    let central: any BluetoothCentral
    let user: any HubUser
    let leases: any DeviceLeases
    let whitelist: Whitelist
    let handOff: any CallbackHandOff
    let reservation: ReservationOwner
    let logger: Logger
    let now: @Sendable () -> LayeredTimestamp
    /// The longest callback per platform; the platform default when absent.
    let callbackBudget: Int?
    /// The layered app's own scheme.
    let scheme: String
    /// Called as a sync stores records (for a progress bar).
    let progress: @Sendable (SyncProgress) -> Void
    /// Requests handled so far, to tell this engine's reservations apart.
    var requests = 0

    /// An engine on `store`, reaching devices through `central` under `leases`, answering the callers of
    /// `whitelist` through `handOff`. Its readings are reserved as `reservation`'s owner (each request as
    /// `<owner>#<request number>`); `logger` hears why a request failed (never a health value); `now` dates what is
    /// stored; `callbackBudget` overrides the platform's URL budget; `progress` hears a sync's progress.
    public init(
        store: VitalStore, central: any BluetoothCentral, user: any HubUser, leases: any DeviceLeases,
        whitelist: Whitelist, handOff: any CallbackHandOff, reservation: ReservationOwner,
        logger: Logger = Logger(label: "org.vitalbridge.engine"), now: @escaping @Sendable () -> LayeredTimestamp,
        callbackBudget: Int? = nil, scheme: String = layeredAppScheme,
        progress: @escaping @Sendable (SyncProgress) -> Void = { _ in }
    ) {
        self.progress = progress
        self.store = store
        self.central = central
        self.user = user
        self.leases = leases
        self.whitelist = whitelist
        self.handOff = handOff
        self.reservation = reservation
        self.logger = logger
        self.now = now
        self.callbackBudget = callbackBudget
        self.scheme = scheme
    }

    /// Handles the request `url` from `platform`.
    ///
    /// - Parameters:
    ///   - url: the URL the hub was opened with.
    ///   - platform: iOS or Android, for the echo, `appid` and the URL budget.
    ///   - caller: the platform's own word for who opened the URL (its bundle or package id), if it gives one.
    ///   - scannedQR: the QR code text, when the platform already read it.
    public func handle(url: String, platform: Platform, caller: String? = nil, scannedQR: String? = nil) async
        -> HubOutcome
    {
        let budget = callbackBudget ?? platform.defaultCallbackBudget
        switch Addressing.address(
            url: url, platform: platform, caller: caller, whitelist: whitelist, scheme: scheme, budget: budget)
        {
        case .refused(let reason, let why):
            logger.info("no callback", metadata: ["reason": "\(reason)", "why": "\(why)"])
            return .noCallback(why)
        case .fail(let addressee, let action, let reason):
            return await finish(
                addressee, action: action, status: .failedFirst(action), reason: reason, device: nil, budget: budget)
        case .request(let addressee, let request):
            requests += 1
            let owner = reservation.request(requests)
            let run = await self.run(request, caller: addressee.caller, owner: owner, scannedQR: scannedQR)
            return await deliver(request, run: run, to: addressee, owner: owner, budget: budget)
        }
    }

    /// Answers `url` with a fail callback `ERROR_STORE` when the hub's home cannot be used (`error` says why), if
    /// the whitelist names where the answer may go; nothing is journaled, as the store may be what failed.
    public static func answerUnusableHome(
        url: String, platform: Platform, caller: String?, whitelist: Whitelist, error: any Error,
        handOff: any CallbackHandOff, logger: Logger, budget: Int? = nil
    ) async -> HubOutcome {
        let budget = budget ?? platform.defaultCallbackBudget
        logger.error("the home cannot be used: answering ERROR_STORE", metadata: ["error": "\(error)"])
        let addressee: Addressee
        let action: LayeredAction?
        switch Addressing.address(url: url, platform: platform, caller: caller, whitelist: whitelist, budget: budget) {
        case .refused(_, let why): return .noCallback(why)
        case .fail(let failed, let failedAction, _): (addressee, action) = (failed, failedAction)
        case .request(let requested, let request): (addressee, action) = (requested, request.action)
        }
        return await handOver(
            addressee, status: .failedFirst(action), reason: .store, device: nil, budget: budget, through: handOff)
    }

    // MARK: Stages

    /// How the stages went.
    struct Run {
        var outcomes: [StageOutcome] = []
        var reason: LayeredReason?
        var device: MACAddress?
        var live: StoredReading?
    }

    func run(_ request: LayeredRequest, caller: String, owner: ReservationOwner, scannedQR: String?) async -> Run {
        var run = Run()
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
            run.reason = reason(for: error, model: request.deviceModel)
        } catch {
            logger.error("answering ERROR_STORE", metadata: ["error": "\(error)"])
            run.outcomes.append(.fail)
            run.reason = .store
        }
        return run
    }

    func reason(for error: DeviceError, model: DeviceModel) -> LayeredReason {
        error.code == .busy ? .deviceBusy : error.reason(for: model)
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
            throw stop(.fail, reason(for: error, model: request.deviceModel))
        }
        let driver = makeDriver(for: entry, connection: connection)
        let sink = StoreSink(store: store, device: mac)
        var live: StoredReading?
        var failure: StagesStopped?
        do {
            if let oximeter = driver as? PulseOximeterDriver {
                try await oximeter.authenticate(userID: caller)
                try await oximeter.setTime(now())
            }
            if let monitor = driver as? ActivityMonitorDriver, let profile = request.profile {
                try await monitor.bind(profile)
            }
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
                    let count = try await driver.sync(into: sink, progress: progress)
                    progress(SyncProgress(stored: count, expected: count))  // the end, total known at last
                case .measure:
                    try rememberDevice(mac, known: known, request)
                    let record = try await driver.measure(MeasureOptions(stripCode: request.stripCode), into: sink) {
                        _ in
                    }
                    // the driver stored it through the sink before the device could forget it
                    guard
                        let id = try sink.latestID(of: record.reading)
                            ?? store.readingID(of: record.reading, device: mac)
                    else { throw StoreError("the live reading is not in the store") }
                    live = StoredReading(id: id, device: mac, reading: record.reading)
                    // reserved while the device is still held, so that no other request can deliver it to the caller
                    // before this one's callback carries it
                    try store.reserve([id], caller: caller, for: owner)
                }
                outcomes.append(.success)
            }
        } catch let stopped as StagesStopped {
            failure = stopped
        } catch let error as DeviceError {
            failure = stop(error.code == .cancelled ? .cancel : .fail, reason(for: error, model: request.deviceModel))
        } catch {
            logger.error("answering ERROR_STORE", metadata: ["error": "\(error)"])
            failure = stop(.fail, .store)
        }
        await connection.disconnect()
        if let failure { throw failure }
        return StagesDone(outcomes: outcomes, live: live)
    }

    /// Stores device `mac` if the store did not know it (`known`, read before the stages) or its AM profile
    /// changed; a known device costs no commit.
    func rememberDevice(_ mac: MACAddress, known: StoredDevice?, _ request: LayeredRequest) throws(StoreError) {
        guard known == nil || (request.profile != nil && known?.profile != request.profile) else { return }
        try store.saveDevice(
            StoredDevice(mac: mac, model: request.deviceModel, profile: request.profile, addedAt: now()))
    }

    /// The MAC of the device to add: the first paired device of the model a scan finds, or the one the QR code
    /// names.
    func findDevice(_ request: LayeredRequest, scannedQR: String?) async throws -> MACAddress {
        if await user.cancels(.add) { throw StagesStopped.first(.cancel, .cancel) }
        let mac: MACAddress
        if request.addType == .qrCode {
            var text = scannedQR
            if text == nil { text = await user.scanQRCode() }
            guard let text else {
                throw StagesStopped.first(.cancel, .cancel)
            }
            do {
                mac = try DeviceQRCode(parsing: text, requestedModel: request.deviceModel).mac
            } catch {
                throw StagesStopped.first(.fail, error.reason)
            }
        } else {
            let entry = DeviceCatalog.entry(for: request.deviceModel)
            var found: MACAddress?
            for await advertisement in central.scan(for: [entry.profile.serviceUUID])
            where advertisement.isPaired && advertisement.localName.hasPrefix(request.deviceModel.name + " ") {
                found = advertisement.mac
                break
            }
            guard let found else { throw StagesStopped.first(.fail, .deviceNotFound) }
            mac = found
        }
        if request.prompts, await !user.acceptsConnect(to: mac) {
            throw StagesStopped.first(.cancel, .cancel)
        }
        return mac
    }

    // MARK: Delivery

    /// What a callback carries, chosen and (unless re-sent with `since`) reserved for this request.
    struct Chosen {
        var url: String
        var readingIDs: [Int64]
        var delivered: [LayeredReading]
        var remaining: Int
    }

    func deliver(
        _ request: LayeredRequest, run: Run, to addressee: Addressee, owner: ReservationOwner, budget: Int
    ) async -> HubOutcome {
        // whatever this request reserved goes back to pending unless a callback carries it
        var handedOver = false
        defer {
            if !handedOver { try? store.releaseReservations(owner: owner.owner) }
        }
        let action = request.action
        guard let status = ActionStatus(action: action, ran: run.outcomes) else {
            return await finish(
                addressee, action: action, status: .fail, reason: run.reason ?? .internal, device: run.device,
                budget: budget)
        }
        guard run.outcomes.count == action.stages.count, run.outcomes.allSatisfy({ $0 == .success }),
            let mac = run.device
        else {
            return await finish(
                addressee, action: action, status: status, reason: run.reason, device: run.device, budget: budget)
        }
        let chosen: Chosen
        do {
            let base = try LayeredCallback(
                destination: addressee.destination, echo: addressee.echo, status: status, mac: mac)
            if !action.includes(.sync) && run.live == nil {
                chosen = Chosen(url: base.url, readingIDs: [], delivered: [], remaining: 0)
            } else if let since = request.since {
                // asked again from a time: re-sent as asked, not reserved
                chosen = try store.withReadings(device: mac, since: since) { stored in
                    // the live reading is in the stream when it is recent enough; the callback carries it first
                    let liveInStream = run.live.map { $0.reading.measuredAt >= since } ?? false
                    return try choose(
                        stored.count - (liveInStream ? 1 : 0), from: &stored, live: run.live, base: base, request,
                        budget)
                }
            } else {
                chosen = try store.reservePending(device: mac, caller: addressee.caller, for: owner) { pending in
                    // the live reading is reserved by this request, so the pending stream does not hold it
                    let chosen = try choose(pending.count, from: &pending, live: run.live, base: base, request, budget)
                    return (chosen, chosen.readingIDs)
                }
            }
        } catch let error as LayeredError {
            return await finish(
                addressee, action: action,
                status: ActionStatus(action: action, ran: run.outcomes.dropLast() + [.fail])!,
                reason: error.reason, device: mac, budget: budget)
        } catch {
            logger.error(
                "answering ERROR_STORE: the readings to deliver cannot be chosen", metadata: ["error": "\(error)"])
            return await finish(
                addressee, action: action,
                status: ActionStatus(action: action, ran: run.outcomes.dropLast() + [.fail])!,
                reason: .store, device: mac, budget: budget)
        }
        let report = HubReport(
            status: status, reason: nil, device: mac, delivered: chosen.delivered, remaining: chosen.remaining)
        do {
            try await handOff.handOver(chosen.url)
        } catch {
            logger.error("the callback was not handed over; its readings stay pending", metadata: ["error": "\(error)"])
            return .handOffFailed(chosen.url, report, "\(error)")
        }
        handedOver = true
        do {
            try store.recordDelivery(
                caller: addressee.caller, device: mac, action: action.rawValue, status: status.rawValue, at: now(),
                readingIDs: chosen.readingIDs, remaining: chosen.remaining, owner: owner.owner)
        } catch {
            // handed over but not journaled: the reservation expires and the readings are delivered again
            logger.error(
                "the delivery was not journaled; its readings will be delivered again", metadata: ["error": "\(error)"])
        }
        return .callback(chosen.url, report)
    }

    /// Packs the live reading (first, always) and as many of the `count` readings of `stored` other than it as
    /// fit, oldest first, into the callback, reading from the stream only as far as the callback fits.
    func choose(
        _ count: Int, from stored: inout ReadingStream, live: StoredReading?, base: LayeredCallback,
        _ request: LayeredRequest, _ budget: Int
    ) throws -> Chosen {
        let liveReadings = live.map { [$0.reading] } ?? []
        let combined = request.action.includes(.sync) && request.action.includes(.measure)
        var taken: [StoredReading] = []
        let packed = try LayeredCallback.packingOldestFirst(
            base, count: count,
            next: {
                while let reading = try stored.next() {
                    guard reading.id != live?.id else { continue }
                    taken.append(reading)
                    return reading.reading
                }
                return nil
            }, measured: combined ? liveReadings : nil, leading: combined ? [] : liveReadings, unit: request.unit,
            maximumLength: budget)
        let included = taken.prefix(packed.includedCount)
        return Chosen(
            url: packed.url, readingIDs: (live.map { [$0.id] } ?? []) + included.map(\.id),
            delivered: liveReadings + included.map(\.reading), remaining: packed.callback.remaining ?? 0)
    }

    /// Hands over a callback without readings (fail, cancel, add), then journals it.
    func finish(
        _ addressee: Addressee, action: LayeredAction?, status: ActionStatus, reason: LayeredReason?,
        device: MACAddress?, budget: Int
    ) async -> HubOutcome {
        let outcome = await Self.handOver(
            addressee, status: status, reason: reason, device: device, budget: budget, through: handOff)
        guard case .callback = outcome else { return outcome }
        do {
            try store.recordDelivery(
                caller: addressee.caller, device: device, action: action?.rawValue ?? -1, status: status.rawValue,
                at: now(), readingIDs: [], remaining: 0)
        } catch {
            logger.error("a callback without readings was not journaled", metadata: ["error": "\(error)"])
        }
        return outcome
    }

    /// Hands over a callback without readings to `addressee`, if it fits `budget`.
    static func handOver(
        _ addressee: Addressee, status: ActionStatus, reason: LayeredReason?, device: MACAddress?, budget: Int,
        through handOff: any CallbackHandOff
    ) async -> HubOutcome {
        guard
            let callback = try? LayeredCallback(
                destination: addressee.destination, echo: addressee.echo, status: status, mac: device, reason: reason)
        else { return .noCallback("the callback cannot be written") }
        let url = callback.url
        guard url.utf8.count <= budget else {
            return .noCallback("the callback would be longer than \(budget) characters")
        }
        let report = HubReport(status: status, reason: reason, device: device, delivered: [], remaining: 0)
        do {
            try await handOff.handOver(url)
        } catch {
            return .handOffFailed(url, report, "\(error)")
        }
        return .callback(url, report)
    }
}

extension ActionStatus {
    /// The status of `action` stopped by a failure at its first stage; plain fail when the action is unknown.
    static func failedFirst(_ action: LayeredAction?) -> ActionStatus {
        action.flatMap { ActionStatus(action: $0, ran: [.fail]) } ?? .fail
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

    public func store(_ records: [DeviceRecord]) async throws {
        let readings = records.map(\.reading)
        let ids = try store.storeReadings(readings, device: device)
        latest.stored.withLock { $0 = Array(zip(readings, ids)) }
    }

    /// The store's identifier of `reading` if it was in the latest batch this sink stored (a live measurement is
    /// stored alone, just before the driver returns it), without asking the store.
    func latestID(of reading: LayeredReading) -> Int64? {
        latest.stored.withLock { batch in batch.last { $0.reading == reading }?.id }
    }

    private final class LatestBatch: Sendable {
        let stored = Mutex<[(reading: LayeredReading, id: Int64)]>([])
    }
}
