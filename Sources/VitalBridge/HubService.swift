import Locking
import Logging
import VitalCore
import VitalDevices
import VitalStore

/// How ``HubService`` paces its work.
public struct ServiceSettings: Hashable, Sendable {
    /// The shortest time between two syncs of a device that stays in range (the issue's default: 15 minutes).
    public var period: Duration
    /// The most devices connected at once (the adapter's limit); a device that appears while they are all in use
    /// waits its turn. A followed smartband holds one while it is followed: until it goes out of range.
    public var connections: Int
    /// The pause between two scans.
    public var scanPause: Duration
    /// Whether the syncs in flight end before each pause: for a simulated world whose time runs at once (a fleet
    /// with no pace), where a pause takes no time and rounds would otherwise move the world's time past a device
    /// whose sync waits for a busy core. Never on a real home, where a long sync must not hold up the scans. A
    /// followed smartband is not waited for, and its link still moves the world's one clock to its next item as it
    /// waits: a fleet with a band and no pace keeps that artifact.
    public var settles: Bool

    /// The wait before a failed device is tried again, doubled each failure up to ``longestBackoff``.
    public static let firstBackoff = Duration.seconds(5)
    /// The longest wait between two tries of a failing device.
    public static let longestBackoff = Duration.seconds(15 * 60)
    /// The default ``period``.
    public static let defaultPeriod = Duration.seconds(15 * 60)
    /// The default ``connections``: what common Bluetooth LE controllers hold at once without trouble.
    public static let defaultConnections = 4

    public init(
        period: Duration = ServiceSettings.defaultPeriod, connections: Int = ServiceSettings.defaultConnections,
        scanPause: Duration = .milliseconds(500), settles: Bool = false
    ) {
        self.period = period
        self.connections = connections
        self.scanPause = scanPause
        self.settles = settles
    }
}

/// What ``HubService`` does, as it happens. Never a health value.
public enum ServiceEvent: Hashable, Sendable {
    /// Device `mac` was synced: what the sync did (new records, its clock set).
    case synced(MACAddress, DeviceModel, DeviceSync)
    /// A sync or follow of device `mac` failed for `message`; it is tried again when it is in range after
    /// `retryIn`.
    case failed(MACAddress, message: String, retryIn: Duration)
    /// Device `mac` is not served for `message` (it keeps no records, or the transport does not speak its
    /// protocol): said once.
    case skipped(MACAddress, message: String)
    /// Something happened while the smartband `mac` is followed.
    case band(MACAddress, BandFollowEvent)
    /// A push to a sink, or its failure.
    case sink(OutboxEvent)
}

/// The home's sinks, for a ``HubService`` to push to as `sink follow` does.
public struct SinkFollowing: Sendable {
    public var outbox: Outbox
    public var sinks: [SinkRecord]
    public var connect: @Sendable (SinkRecord) async throws -> any ChangeSink
    /// How often the feed's end is read.
    public var poll: Duration

    public init(
        outbox: Outbox, sinks: [SinkRecord], connect: @escaping @Sendable (SinkRecord) async throws -> any ChangeSink,
        poll: Duration = .seconds(1)
    ) {
        self.outbox = outbox
        self.sinks = sinks
        self.connect = connect
        self.poll = poll
    }
}

/// The hub working on its own (`vitalbridge serve`): it scans for the home's devices, syncs each through the
/// engine the moment it is heard, follows the smartbands, and pushes to the sinks.
///
/// - A device of the home (as the store has it, read again each scan, so that one added or removed meanwhile is
///   served or left) that is heard advertising (not merely known to BlueZ), or that connects to the host by itself
///   (`BluetoothCentral.connectedPeripherals()`, or `Advertisement.isConnected` during a scan: a bonded monitor
///   after a measurement), is synced at once through ``DeviceDesk/sync(_:progress:)``: under its lease, its clock
///   read first, every record stored and queued for every caller that asked for the device exactly as a layered
///   sync does. A device that stays in range is synced again no sooner than ``ServiceSettings/period``; one that
///   connects by itself again, at once.
/// - A smartband that is heard is followed (``DeviceDesk/follow(_:hours:keepsReconnecting:events:)``) until the
///   service stops, or until a reconnection after a drop fails (out of range): its connection is then free for
///   other devices, and it is followed again as soon as it is heard, with no period.
/// - At most ``ServiceSettings/connections`` devices are served at once; the others wait for a later scan.
/// - A device that fails is tried again after ``ServiceSettings/firstBackoff``, doubled each failure up to
///   ``ServiceSettings/longestBackoff``, and only when it is heard again or connects again: never in a tight loop.
///   A device that keeps no records (`CatalogEntry.storesRecords`: a heart-rate sensor, a BP3L) or that the
///   transport cannot speak to is left out, said once.
/// - The sinks are pushed as ``Outbox/follow(_:connect:poll:events:)`` pushes them.
///
/// It stops when its task is cancelled (SIGTERM), or at `end` of the home's clock: a device's record being
/// committed is committed, and what a device still holds it sends again next time.
public struct HubService: Sendable {
    let desk: DeviceDesk
    let settings: ServiceSettings
    let sinks: SinkFollowing?

    /// A service reaching devices through `desk`, paced by `settings`, pushing to `sinks` when given. Its waits run
    /// on the desk's clock, and `end` of ``run(until:events:)`` is a time of the desk's `now`.
    public init(desk: DeviceDesk, settings: ServiceSettings = ServiceSettings(), sinks: SinkFollowing? = nil) {
        self.desk = desk
        self.settings = settings
        self.sinks = sinks
    }

    /// Serves the home until the task is cancelled or, when given, the home's clock reaches `end`; `events` hears
    /// each sync, failure, band event and push.
    ///
    /// - Throws: `StoreError` with code `schema` when a newer release upgraded the store (the sinks stop first, then
    ///   everything).
    public func run(until end: Timestamp? = nil, events: @escaping @Sendable (ServiceEvent) -> Void) async throws {
        try await serve(on: desk.clock, until: end, events: events)
    }

    private func serve<C: Clock<Duration>>(
        on clock: C, until end: Timestamp?, events: @escaping @Sendable (ServiceEvent) -> Void
    ) async throws {
        let schedule = ServiceSchedule<C.Instant>(settings: settings)
        let (desk, sinks) = (desk, sinks)
        try await withThrowingDiscardingTaskGroup { group in
            // the sinks' follower ending with an error (a newer release's schema) cancels the group, not this task
            func running() -> Bool { !group.isCancelled && (end.map { desk.now() < $0 } ?? true) }
            if let sinks {
                group.addTask {
                    try await sinks.outbox.follow(sinks.sinks, connect: sinks.connect, poll: sinks.poll) {
                        events(.sink($0))
                    }
                }
            }
            // the store's devices as last read, and the store's version then
            var read: (version: StoreVersion, devices: [StoredDevice])?
            // the devices connected to the host by themselves when last seen; those that connected since and are
            // not served yet (arrivals: served as soon as a connection is free, their period aside, not a backoff)
            var connected: Set<MACAddress> = []
            var arrived: Set<MACAddress> = []
            func start(_ device: StoredDevice) {
                // counted as it is claimed, not as its task starts: a pause that comes first waits for it (settles)
                if !device.model.isSmartband { schedule.syncStarted() }
                group.addTask { await serve(device, schedule: schedule, clock: clock, events: events) }
            }
            while running() {
                let known = served(read: &read, schedule: schedule, events: events)
                let byMAC = Dictionary(known.map { ($0.mac, $0) }, uniquingKeysWith: { first, _ in first })
                let connectedNow = Set(await desk.central.connectedPeripherals()).filter { byMAC[$0] != nil }
                arrived.formUnion(connectedNow.subtracting(connected))
                connected = connectedNow
                for mac in arrived.sorted(by: { $0.description < $1.description }) {
                    guard let device = byMAC[mac], schedule.claim(mac, at: clock.now, arriving: true) else { continue }
                    arrived.remove(mac)
                    start(device)
                }
                let services = Set(known.map { DeviceCatalog.entry(for: $0.model).profile.serviceUUID })
                if !services.isEmpty {
                    for await heard in desk.central.scan(for: services.sorted()) {
                        guard running() else { break }
                        guard let device = byMAC[heard.mac], heard.isDevice(of: device.model) else { continue }
                        // connected by itself during the scan: an arrival, as the next round would see it
                        let arriving = heard.isConnected && connected.insert(heard.mac).inserted
                        // a band has no period: followed again as soon as it is heard back
                        let ignoresPeriod = arriving || device.model.isSmartband
                        guard heard.isHeard || arriving,
                            schedule.claim(heard.mac, at: clock.now, arriving: ignoresPeriod)
                        else {
                            if arriving { arrived.insert(heard.mac) }
                            continue
                        }
                        start(device)
                    }
                }
                guard running() else { break }
                if settings.settles { await schedule.settled() }
                try? await clock.sleep(for: settings.scanPause)
                await Task.yield()
            }
            group.cancelAll()
        }
    }

    /// The devices to serve: the store's, less those left out.
    ///
    /// `read` keeps the store's devices as last read, with the store's version read before them: they are read
    /// again only once something was committed since, so a round of a service that only waits reads no row. When
    /// the store cannot be read, the devices last read are served.
    private func served(
        read: inout (version: StoreVersion, devices: [StoredDevice])?,
        schedule: ServiceSchedule<some InstantProtocol<Duration>>, events: (ServiceEvent) -> Void
    ) -> [StoredDevice] {
        let devices: [StoredDevice]
        do {
            let version = try desk.store.version()
            if let read, read.version == version {
                devices = read.devices
            } else {
                devices = try desk.store.devices()
                read = (version, devices)
            }
        } catch {
            desk.logger.error("the store's devices cannot be read", metadata: ["why": "\(error)"])
            devices = read?.devices ?? []
        }
        return devices.filter { device in
            guard !schedule.isLeftOut(device.mac) else { return false }
            guard desk.central.reaches(device.model) else {
                schedule.leaveOut(device.mac)
                events(
                    .skipped(
                        device.mac, message: "a \(device.model.name): this home's transport does not speak its protocol"
                    ))
                return false
            }
            return true
        }
    }

    /// Syncs `device` (follows it, for a smartband) and records how it went.
    private func serve<C: Clock<Duration>>(
        _ device: StoredDevice, schedule: ServiceSchedule<C.Instant>, clock: C,
        events: @escaping @Sendable (ServiceEvent) -> Void
    ) async {
        let mac = device.mac
        do {
            if device.model.isSmartband {
                // a band out of range frees its connection: it is followed again when heard
                let gaveUp = Locked(false)
                let stored = try await desk.follow(mac, hours: nil, keepsReconnecting: false) { event in
                    if case .gaveUp = event { gaveUp.withLock { $0 = true } }
                    events(.band(mac, event))
                }
                // one that could not be reached again before it stored anything waits a backoff (its event said why)
                if stored == 0, gaveUp.withLock({ $0 }) {
                    _ = schedule.failed(mac, at: clock.now)
                    return
                }
            } else {
                // counted by the loop as it claimed the device
                defer { schedule.syncEnded() }
                events(.synced(mac, device.model, try await desk.sync(mac)))
            }
            schedule.succeeded(mac, at: clock.now)
        } catch {
            if Task.isCancelled {
                schedule.release(mac)
            } else if error.code == .keepsNoRecords || error.code == .unreachable {
                schedule.leaveOut(mac)
                events(.skipped(mac, message: error.message))
            } else {
                let retryIn = schedule.failed(mac, at: clock.now)
                desk.logger.notice(
                    "a device could not be served", metadata: ["device": "\(mac)", "why": "\(error.message)"])
                events(.failed(mac, message: error.message, retryIn: retryIn))
            }
        }
    }
}

/// When each device may be served next, and which are being served: shared by the scan loop and the devices'
/// tasks.
final class ServiceSchedule<Instant: InstantProtocol<Duration>>: Sendable {
    struct Device {
        var lastSynced: Instant?
        var retryAt: Instant?
        var failures = 0
        var busy = false
        var leftOut = false
    }

    struct State {
        var devices: [MACAddress: Device] = [:]
        var busy = 0
        /// Devices claimed for a sync and not done (not a followed band, whose following has no end in sight).
        var syncing = 0
        /// Waits for `syncing` to reach 0.
        var settling: [CheckedContinuation<Void, Never>] = []
    }

    let settings: ServiceSettings
    private let state = Locked(State())

    init(settings: ServiceSettings) { self.settings = settings }

    /// Marks `mac` busy and returns `true` when it may be served at `now`: not busy, not left out, a connection
    /// free, past its backoff, and past its period unless it is `arriving` (it connected by itself: it has news).
    func claim(_ mac: MACAddress, at now: Instant, arriving: Bool = false) -> Bool {
        state.withLock { state in
            let device = state.devices[mac, default: Device()]
            guard !device.busy, !device.leftOut, state.busy < settings.connections,
                device.retryAt.map({ now >= $0 }) ?? true,
                arriving || device.lastSynced.map({ now >= $0.advanced(by: settings.period) }) ?? true
            else { return false }
            state.devices[mac, default: Device()].busy = true
            state.busy += 1
            return true
        }
    }

    /// `mac` was served at `now`: its period starts.
    func succeeded(_ mac: MACAddress, at now: Instant) {
        update(mac) { device in
            device.lastSynced = now
            device.failures = 0
            device.retryAt = nil
        }
    }

    /// `mac` failed at `now`; returns the backoff before it may be tried again.
    func failed(_ mac: MACAddress, at now: Instant) -> Duration {
        var backoff = ServiceSettings.firstBackoff
        update(mac) { device in
            device.failures += 1
            for _ in 1..<min(device.failures, 16) where backoff < ServiceSettings.longestBackoff { backoff *= 2 }
            backoff = min(backoff, ServiceSettings.longestBackoff)
            device.retryAt = now.advanced(by: backoff)
        }
        return backoff
    }

    /// `mac` was stopped (the service ends): it is no longer busy.
    func release(_ mac: MACAddress) { update(mac) { _ in } }

    /// `mac` is not served again.
    func leaveOut(_ mac: MACAddress) {
        update(mac) { $0.leftOut = true }
    }

    func isLeftOut(_ mac: MACAddress) -> Bool { state.withLock { $0.devices[mac]?.leftOut ?? false } }

    /// A device's sync was claimed (its task may not have started yet).
    func syncStarted() { state.withLock { $0.syncing += 1 } }

    /// A device's sync ended: when it was the last, the waits of ``settled()`` end.
    func syncEnded() {
        let settled = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.syncing -= 1
            guard state.syncing == 0 else { return [] }
            defer { state.settling = [] }
            return state.settling
        }
        for wait in settled { wait.resume() }
    }

    /// Returns once no device is being synced (``ServiceSettings/settles``).
    func settled() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                guard state.syncing > 0 else { return true }
                state.settling.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Applies `change` to `mac` and frees its connection when it was busy.
    private func update(_ mac: MACAddress, _ change: (inout Device) -> Void) {
        state.withLock { state in
            var device = state.devices[mac, default: Device()]
            change(&device)
            if device.busy {
                device.busy = false
                state.busy -= 1
            }
            state.devices[mac] = device
        }
    }
}

extension ServiceEvent: CustomStringConvertible {
    /// One line for a person or a journal: `004D3208D2F4 (BP5): synced, 3 new records`; a band's and a sink's as
    /// `band follow` and `sink follow` say them, a band's prefixed by its address.
    public var description: String {
        switch self {
        case .synced(let mac, let model, let sync):
            "\(mac) (\(model.name)): \(sync)" + sync.refusals.map { "; refused: \($0)" }.joined()
        case .failed(let mac, let message, let retryIn):
            "\(mac): \(message); trying again when in range after \(retryIn)"
        case .skipped(let mac, let message): "\(mac): not served: \(message)"
        case .band(let mac, .reconnectFailed(let message, let retryIn)):
            "\(mac): reconnecting failed (\(message)); trying again in \(retryIn)"
        case .band(let mac, .reconnected(let batchSize)): "\(mac): reconnected, batches of \(batchSize)"
        case .band(let mac, let event): "\(mac): \(event.line ?? "")"
        case .sink(let event): event.line
        }
    }
}
