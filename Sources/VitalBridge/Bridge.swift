import Foundation
import LayeredProtocol
import Logging
import VitalCore
import VitalDevices
import VitalStore

/// Exclusive use of a device for the length of an operation, across processes.
public protocol DeviceLeases: Sendable {
    /// Runs `body` while holding device `mac`; throws a `DeviceError` with code `busy` when another holds it too
    /// long.
    func withLease<T: Sendable>(_ mac: MACAddress, _ body: @Sendable () async throws -> T) async throws -> T

    /// Runs `body` while holding device `mac`, as ``withLease(_:_:)`` does, and when it returns forgets, still
    /// holding the device, what the leases keep of it between leases (a simulated device's saved state): the hub
    /// removes the device. Leases that keep nothing need not implement it: ``withLease(_:_:)`` is run.
    func forgetting<T: Sendable>(_ mac: MACAddress, _ body: @Sendable () async throws -> T) async throws -> T
}

extension DeviceLeases {
    /// Runs `body` under ``withLease(_:_:)``: leases that keep nothing of a device have nothing to forget.
    public func forgetting<T: Sendable>(_ mac: MACAddress, _ body: @Sendable () async throws -> T) async throws -> T {
        try await withLease(mac, body)
    }
}

/// How a callback reaches its caller: the CLI writes it to standard output; a desktop opener opens it.
public protocol CallbackHandOff: Sendable {
    /// Hands `url` over completely (written and flushed, or accepted by the opener), or throws. The readings it
    /// carries count as delivered only once this returns.
    func handOver(_ url: String) async throws
}

/// What the hub did with one request URL.
public enum HubOutcome: Hashable, Sendable {
    /// The callback URL was handed over.
    case callback(String, HubReport)
    /// The callback could not be handed over (the text says why); the readings it carried stay pending.
    case handOffFailed(String, HubReport, String)
    /// No callback may be sent: the URL is not the hub's, or its caller is not whitelisted; the text says why.
    case noCallback(String)
    /// The request or the home was refused before anything was measured (a provider request that is not one, a
    /// parameter out of range, no request on the board); nothing was answered, and the text says why.
    case refused(String)
}

/// What a callback reports, for logs and the CLI's tables.
public struct HubReport: Hashable, Sendable {
    public var status: ActionStatus
    public var reason: LayeredReason?
    public var device: MACAddress?
    /// The readings the callback carries (the live one first).
    public var delivered: [Reading]
    /// The readings left pending for the next sync.
    public var remaining: Int
    /// Why a provider's answer is a failure (for standard error; never a health value).
    public var note: String? = nil
}

/// The hub's engine: authorizes the caller (`Addressing`), runs the action's stages (add → sync → measure)
/// against a device, keeps every reading in the store before the device may forget it, and answers with a callback
/// within the URL budget.
///
/// Delivery is at least once and, without crashes, exactly once per caller: the readings a callback carries are
/// reserved for this request in one serialized step (`VitalStore.reservePending`), the
/// callback is handed over with no lock held, and only then is it journaled. A crash before the journal leaves the
/// reservation to expire, and the readings are delivered again.
public actor Bridge {
    let whitelist: Whitelist
    let reservation: ReservationOwner
    let logger: Logger
    /// The longest callback per platform; the platform default when absent.
    let callbackBudget: Int?
    /// The layered app's own scheme.
    let scheme: String
    /// Runs a request's stages against its device.
    let stages: StageRunner
    /// Chooses, hands over and journals callbacks.
    let delivery: CallbackDelivery
    /// The board and sources of the provider protocols.
    let providers: ProviderSettings
    /// Requests handled so far, to tell this engine's reservations apart.
    var requests = 0

    /// An engine on `store`, reaching devices through `central` under `leases`, answering the callers of
    /// `whitelist` through `handOff`, and the provider protocols' requests as `providers` says. Its readings are
    /// reserved as `reservation`'s owner (each request as `<owner>#<request number>`); `user` answers its
    /// questions; `logger` hears why a request failed (never a health value); `now` dates what is stored;
    /// `callbackBudget` overrides the platform's URL budget; `progress` hears a sync's progress.
    public init(
        store: VitalStore, central: any BluetoothCentral, user: any HubUser, leases: any DeviceLeases,
        whitelist: Whitelist, handOff: any CallbackHandOff, reservation: ReservationOwner,
        providers: ProviderSettings = ProviderSettings(), logger: Logger,
        now: @escaping @Sendable () -> Timestamp, callbackBudget: Int? = nil, scheme: String = layeredAppScheme,
        progress: @escaping @Sendable (SyncProgress) -> Void = { _ in }
    ) {
        self.whitelist = whitelist
        self.providers = providers
        self.reservation = reservation
        self.logger = logger
        self.callbackBudget = callbackBudget
        self.scheme = scheme
        stages = StageRunner(
            store: store, central: central, user: user, leases: leases, logger: logger, now: now, progress: progress)
        delivery = CallbackDelivery(store: store, handOff: handOff, logger: logger, now: now)
    }

    /// Handles the request `url` from `platform`: a layered request, a ShareVitalSigns request (`svs-…://`) or a
    /// Welltory DDS request (`vitalbridge://dds/measurement?…`), each through its protocol's adapter over the same
    /// authorization, device choice, leases, store and journal.
    ///
    /// - Parameters:
    ///   - url: the URL the hub was opened with.
    ///   - platform: iOS or Android, for the echo, `appid` and the URL budget.
    ///   - caller: the platform's own word for who opened the URL (its bundle or package id), if it gives one.
    ///   - scannedQR: the QR code text, when the platform already read it.
    public func handle(url: String, platform: Platform, caller: String? = nil, scannedQR: String? = nil) async
        -> HubOutcome
    {
        switch ProviderProtocol(of: url) {
        case .shareVitalSigns: return await answerShareVitalSigns(url, caller: caller)
        case .welltoryDDS: return await answerDDS(url)
        case nil: return await answerLayered(url, platform: platform, caller: caller, scannedQR: scannedQR)
        }
    }

    /// The reservation owner of the next request.
    func nextOwner() -> ReservationOwner {
        requests += 1
        return reservation.request(requests)
    }

    func answerLayered(_ url: String, platform: Platform, caller: String?, scannedQR: String?) async -> HubOutcome {
        let budget = callbackBudget ?? platform.defaultCallbackBudget
        switch Addressing.address(
            url: url, platform: platform, caller: caller, whitelist: whitelist, scheme: scheme, budget: budget)
        {
        case .refused(let reason, let why):
            logger.info("no callback", metadata: ["reason": "\(reason)", "why": "\(why)"])
            return .noCallback(why)
        case .fail(let addressee, let action, let reason):
            return await delivery.finish(
                addressee, action: action, status: .failedFirst(action), reason: reason, device: nil, budget: budget)
        case .request(let addressee, let request):
            let owner = nextOwner()
            let run = await stages.run(request, caller: addressee.caller, owner: owner, scannedQR: scannedQR)
            return await delivery.deliver(request, run: run, to: addressee, owner: owner, budget: budget)
        }
    }

    /// Answers `url` with a fail callback `ERROR_STORE` (`ERROR_STORE_BUSY` for a store held too long) when the
    /// hub's home cannot be used (`error` says why), if the whitelist names where the answer may go; nothing is
    /// journaled, as the store may be what failed.
    public static func answerUnusableHome(
        url: String, platform: Platform, caller: String?, whitelist: Whitelist, error: any Error,
        handOff: any CallbackHandOff, logger: Logger, budget: Int? = nil
    ) async -> HubOutcome {
        let budget = budget ?? platform.defaultCallbackBudget
        let reason = LayeredReason.answering(error, logger)
        let addressee: Addressee
        let action: LayeredAction?
        switch Addressing.address(url: url, platform: platform, caller: caller, whitelist: whitelist, budget: budget) {
        case .refused(_, let why): return .noCallback(why)
        case .fail(let failed, let failedAction, _): (addressee, action) = (failed, failedAction)
        case .request(let requested, let request): (addressee, action) = (requested, request.action)
        }
        return await CallbackDelivery.handOver(
            addressee, status: .failedFirst(action), reason: reason, device: nil, budget: budget, through: handOff)
    }
}
