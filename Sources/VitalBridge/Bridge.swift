import Foundation
import LayeredProtocol
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

extension DeviceError.Code {
    /// Another request is using the device.
    public static let busy = DeviceError.Code(rawValue: "busy")
}

/// What the hub did with one request URL.
public enum HubOutcome: Hashable, Sendable {
    /// Open this callback URL.
    case callback(String, HubReport)
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

/// The hub's engine: authorizes the caller, runs the action's stages (add → sync → measure) against a device,
/// keeps every reading in the store before the device may forget it, and answers with a callback within the URL
/// budget.
public actor Bridge {
    let store: VitalStore
    let central: any BluetoothCentral
    let user: any HubUser
    let leases: any DeviceLeases
    let whitelist: Whitelist
    let now: @Sendable () -> LayeredTimestamp
    /// The longest callback per platform; the platform default when absent.
    let callbackBudget: Int?
    /// The layered app's own scheme.
    let scheme: String
    /// Called as a sync stores records (for a progress bar).
    let progress: @Sendable (SyncProgress) -> Void

    public init(
        store: VitalStore, central: any BluetoothCentral, user: any HubUser, leases: any DeviceLeases,
        whitelist: Whitelist, now: @escaping @Sendable () -> LayeredTimestamp, callbackBudget: Int? = nil,
        scheme: String = layeredAppScheme, progress: @escaping @Sendable (SyncProgress) -> Void = { _ in }
    ) {
        self.progress = progress
        self.store = store
        self.central = central
        self.user = user
        self.leases = leases
        self.whitelist = whitelist
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
        let query: LayeredQuery
        do {
            query = try LayeredQuery(parsing: url, maximumLength: budget)
        } catch {
            // Without a query only a caller named by the platform, with a fixed callback URL, can be answered.
            guard let caller, let destination = whitelist.entries[caller], destination != Whitelist.dynamic else {
                return .noCallback("the request is not a well-formed URL (\(error)) and its caller is unknown")
            }
            return finish(
                caller: caller, destination: destination, echo: [], action: nil, status: .fail, reason: error.reason,
                device: nil, budget: budget)
        }
        guard query.hasScheme(scheme) else {
            return .noCallback("the URL is not addressed to \(scheme)://")
        }

        // Who is asking, and where may the answer go?
        let decoded = { (key: String) in query.first(key)?.decodedValue }
        let schemeCaller = decoded("scheme").flatMap { whitelist.caller(forScheme: $0) }
        guard let callerID = caller ?? decoded("appid") ?? schemeCaller else {
            return .noCallback("the caller is unknown: no platform caller, no appid, and no whitelisted scheme")
        }
        guard let entry = whitelist.entries[callerID] else {
            return .noCallback("the caller \(callerID) is not whitelisted")
        }
        let echo = query.echo(for: platform)
        let requestedScheme = decoded("scheme")
        let callerURL = decoded("callerurl") ?? decoded("callurl")
        let destination: String
        if entry == Whitelist.dynamic {
            guard let target = callerURL ?? requestedScheme.map(LayeredCallback.destination(scheme:)),
                Whitelist.isValid(target)
            else { return .noCallback("the caller \(callerID) is dynamic but names no valid callerurl or scheme") }
            destination = target
        } else {
            if let requestedScheme, requestedScheme.lowercased() != Whitelist.scheme(of: entry) {
                return .noCallback("the scheme does not match the whitelist entry of \(callerID)")
            }
            destination = entry
        }

        let request: LayeredRequest
        do {
            request = try LayeredRequest(query: query, platform: platform)
        } catch {
            let action = decoded("cmd").flatMap { Int($0) }.flatMap(LayeredAction.init(rawValue:))
            return finish(
                caller: callerID, destination: destination, echo: echo, action: action,
                status: action.flatMap { ActionStatus(action: $0, ran: [.fail]) } ?? .fail, reason: error.reason,
                device: nil, budget: budget)
        }
        if entry != Whitelist.dynamic, callerURL != nil {
            return finish(
                caller: callerID, destination: destination, echo: echo, action: request.action,
                status: ActionStatus(action: request.action, ran: [.fail])!,
                reason: LayeredReason(rawValue: "ERROR_DYNAMIC_CALLBACK_NOT_ALLOWED"), device: nil, budget: budget)
        }

        let run = await self.run(request, caller: callerID, scannedQR: scannedQR)
        return deliver(request, run: run, caller: callerID, destination: destination, echo: echo, budget: budget)
    }

    // MARK: Stages

    /// How the stages went.
    struct Run {
        var outcomes: [StageOutcome] = []
        var reason: LayeredReason?
        var device: MACAddress?
        var live: StoredReading?
    }

    func run(_ request: LayeredRequest, caller: String, scannedQR: String?) async -> Run {
        var run = Run()
        let entry = DeviceCatalog.entry(for: request.deviceModel)
        do {
            let mac = try await request.action.addsDevice ? findDevice(request, scannedQR: scannedQR) : request.mac!
            run.device = mac
            let known = try store.device(mac)
            if let known, known.model != request.deviceModel {
                throw StagesStopped.first(.fail, LayeredReason(rawValue: "ERROR_DEVICE_MODEL_MISMATCH"))
            }
            let stages = try await leases.withLease(mac) { [self] in
                try await self.runStages(request, entry: entry, mac: mac, known: known, caller: caller)
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
            run.outcomes.append(.fail)
            run.reason = LayeredReason(rawValue: "ERROR_STORE")
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
        _ request: LayeredRequest, entry: CatalogEntry, mac: MACAddress, known: StoredDevice?, caller: String
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
                }
                outcomes.append(.success)
            }
        } catch let stopped as StagesStopped {
            failure = stopped
        } catch let error as DeviceError {
            failure = stop(error.code == .cancelled ? .cancel : .fail, reason(for: error, model: request.deviceModel))
        } catch {
            failure = stop(.fail, LayeredReason(rawValue: "ERROR_STORE"))
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

    func deliver(
        _ request: LayeredRequest, run: Run, caller: String, destination: String, echo: [QueryParameter], budget: Int
    ) -> HubOutcome {
        let action = request.action
        guard let status = ActionStatus(action: action, ran: run.outcomes) else {
            return finish(
                caller: caller, destination: destination, echo: echo, action: action, status: .fail,
                reason: run.reason ?? LayeredReason(rawValue: "ERROR_INTERNAL"), device: run.device, budget: budget)
        }
        guard run.outcomes.count == action.stages.count, run.outcomes.allSatisfy({ $0 == .success }),
            let mac = run.device
        else {
            return finish(
                caller: caller, destination: destination, echo: echo, action: action, status: status,
                reason: run.reason,
                device: run.device, budget: budget)
        }
        do {
            let base = try LayeredCallback(destination: destination, echo: echo, status: status, mac: mac)
            var includedIDs: [Int64] = []
            var delivered: [LayeredReading] = []
            var url: String
            var callback = base
            var remaining = 0
            if action.includes(.sync) {
                let pending =
                    try request.since.map { try store.readings(device: mac, since: $0) }
                    ?? store.undeliveredReadings(device: mac, caller: caller)
                let stored = pending.filter { $0.id != run.live?.id }
                let packed = try LayeredCallback.packing(
                    base, readings: stored.map(\.reading), measured: run.live.map { [$0.reading] }, unit: request.unit,
                    maximumLength: budget)
                includedIDs = packed.included.map { stored[$0].id }
                delivered = packed.included.map { stored[$0].reading }
                remaining = packed.leftOut.count
                callback = packed.callback
                url = packed.url
            } else if let live = run.live {
                callback.result = .list([live.reading.resultObject(unit: request.unit)])
                url = callback.url
            } else {
                url = callback.url
            }
            if let live = run.live {
                includedIDs.insert(live.id, at: 0)
                delivered.insert(live.reading, at: 0)
            }
            guard url.utf8.count <= budget else {
                return .noCallback("the callback would be longer than \(budget) characters")
            }
            try store.recordDelivery(
                caller: caller, device: mac, action: action.rawValue, status: status.rawValue, at: now(),
                readingIDs: includedIDs, remaining: remaining)
            return .callback(
                url, HubReport(status: status, reason: nil, device: mac, delivered: delivered, remaining: remaining))
        } catch let error as LayeredError {
            return finish(
                caller: caller, destination: destination, echo: echo, action: action,
                status: ActionStatus(action: action, ran: run.outcomes.dropLast() + [.fail])!, reason: error.reason,
                device: mac, budget: budget)
        } catch {
            return finish(
                caller: caller, destination: destination, echo: echo, action: action,
                status: ActionStatus(action: action, ran: run.outcomes.dropLast() + [.fail])!,
                reason: LayeredReason(rawValue: "ERROR_STORE"), device: mac, budget: budget)
        }
    }

    /// A callback without readings (fail, cancel, add), journaled.
    func finish(
        caller: String, destination: String, echo: [QueryParameter], action: LayeredAction?, status: ActionStatus,
        reason: LayeredReason?, device: MACAddress?, budget: Int
    ) -> HubOutcome {
        guard
            let callback = try? LayeredCallback(
                destination: destination, echo: echo, status: status, mac: device, reason: reason)
        else { return .noCallback("the callback cannot be written") }
        let url = callback.url
        guard url.utf8.count <= budget else {
            return .noCallback("the callback would be longer than \(budget) characters")
        }
        _ = try? store.recordDelivery(
            caller: caller, device: device, action: action?.rawValue ?? -1, status: status.rawValue, at: now(),
            readingIDs: [],
            remaining: 0)
        return .callback(url, HubReport(status: status, reason: reason, device: device, delivered: [], remaining: 0))
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
