import LayeredProtocol
import Locking
import Logging
import VitalCore
import VitalDevices

/// What happens while a ``BandFollower`` follows a smartband, in the order it happens.
public enum BandFollowEvent: Hashable, Sendable {
    /// A batch was committed and acknowledged: `count` items were stored on the current link so far; `bandTime` is
    /// the band clock's time then.
    case stored(count: Int, bandTime: Timestamp)
    /// The wearer pressed a button of the band (find-phone, or the camera button in camera mode).
    case wearer(BandEvent)
    /// The link dropped; the follower reconnects after its backoff.
    case linkDropped(message: String)
    /// A reconnection failed; the next is tried after `retryIn`.
    case reconnectFailed(message: String, retryIn: Duration)
    /// A new link holds, with batches of `batchSize` items.
    case reconnected(batchSize: Int)
    /// A reconnection failed, and the follower, told not to keep reconnecting
    /// (``BandFollower/keepsReconnecting``), stopped.
    case gaveUp(message: String)

    /// What `band follow` prints of the event, one line: `stored 12 item(s) on this link, band time …`, the wearer's
    /// button, or a dropped link; `nil` for a reconnection (failed or holding), which the log tells.
    public var line: String? {
        switch self {
        case .stored(let count, let bandTime): "stored \(count) item(s) on this link, band time \(bandTime)"
        case .wearer(let event): event == .findPhone ? "the wearer pressed find-phone" : "the wearer took a picture"
        case .linkDropped(let message): "the link dropped (\(message)); reconnecting"
        case .gaveUp(let message): "reconnecting failed (\(message)); followed again when heard"
        case .reconnectFailed, .reconnected: nil
        }
    }
}

/// Follows a smartband's pushes for as long as it is asked to, reconnecting whenever the link drops.
///
/// On each link the band's items are stored through the sink before the band is told it may forget them
/// (`SmartbandDriver.follow(into:events:stored:)`), so nothing acknowledged is ever uncommitted, and what the band
/// still holds it sends again on the next link. When a link drops (`DeviceError.Code.disconnected`), the follower
/// waits ``firstBackoff`` on its clock and connects again, doubling the wait up to ``longestBackoff`` while
/// connecting fails and starting again from ``firstBackoff`` once a link holds. Each new link gets batches half as
/// large as the last (never fewer than ``minimumBatchSize`` items), so that a link that never holds for a full batch
/// still gets some acknowledged.
///
/// It stops when its task is cancelled, or at the first commit at or after the end time of the band's clock given
/// to ``run(until:events:)``, and returns the items it stored. A link it made is closed by it; the first link,
/// when the caller gave one, is left to the caller. Any other error of the band or the sink ends it with that error.
public struct BandFollower: Sendable {
    /// The fewest items a batch is halved to.
    public static let minimumBatchSize = 16
    /// The wait before the first reconnection after a drop.
    public static let firstBackoff = Duration.milliseconds(500)
    /// The longest wait between two reconnections.
    public static let longestBackoff = Duration.seconds(30)

    let central: any BluetoothCentral
    let entry: CatalogEntry
    let mac: MACAddress
    let firstLink: (any BluetoothConnection)?
    let sink: any RecordSink
    let bandClock: @Sendable () -> Timestamp
    let clock: any Clock<Duration>
    let batchSize: Int
    let logger: Logger
    /// When the hub added the band (a clock showing an earlier time had restarted).
    var addedAt: Timestamp?
    /// Whether a failed reconnection is tried again after a backoff (`band follow`, which waits for the band however
    /// long it is away), or ends the following, as if cancelled (`serve`, which frees the band's connection for
    /// other devices and follows the band again when it hears it).
    public var keepsReconnecting = true

    /// A follower of the band `mac`, a smartband described by `entry`, reached through `central`.
    ///
    /// - Parameters:
    ///   - central: the transport the follower connects (and reconnects) through.
    ///   - entry: the band's catalog entry.
    ///   - mac: the band's address.
    ///   - firstLink: a link to the band the caller already holds (e.g. under the device's lease), followed first and
    ///     never closed by the follower; when `nil`, the follower connects first (and closes that link itself).
    ///   - sink: where the band's items are stored before the band may forget them.
    ///   - bandClock: the band's clock: today's totals are dated with its day, and the end of
    ///     ``run(until:events:)`` is a time of it.
    ///   - clock: the clock the backoff between reconnections is waited on.
    ///   - batchSize: the items per commit on the first link (halved on each new one).
    ///   - logger: hears the drops and failed reconnections (never a health value).
    public init(
        central: any BluetoothCentral, entry: CatalogEntry, mac: MACAddress,
        firstLink: (any BluetoothConnection)? = nil, sink: any RecordSink,
        bandClock: @escaping @Sendable () -> Timestamp, clock: any Clock<Duration>,
        batchSize: Int = SmartbandGATT.window, logger: Logger
    ) {
        self.central = central
        self.entry = entry
        self.mac = mac
        self.firstLink = firstLink
        self.sink = sink
        self.bandClock = bandClock
        self.clock = clock
        self.batchSize = batchSize
        self.logger = logger
    }

    /// Follows the band until the task is cancelled or, when `end` is given, until the first commit at or after
    /// `end` on the band's clock; returns how many items were stored and acknowledged.
    ///
    /// - Parameters:
    ///   - end: a time of the band's clock to stop at, if any.
    ///   - events: hears what happens, as it happens.
    /// - Returns: the items stored and acknowledged, on every link.
    /// - Throws: the `DeviceError` that ended a link, unless it was a drop (reconnected) or the cancellation; the
    ///   connection's error when the follower was given no first link and cannot connect.
    public func run(
        until end: Timestamp? = nil, events: @escaping @Sendable (BandFollowEvent) -> Void = { _ in }
    ) async throws(DeviceError) -> Int {
        // whether the current link was made here, and so is closed here
        var ownsLink = firstLink == nil
        var driver: SmartbandDriver
        if let firstLink {
            driver = makeDriver(firstLink, batchSize: batchSize)
        } else {
            driver = makeDriver(try await central.connect(to: mac), batchSize: batchSize)
        }
        func closeOwnLink() async {
            if ownsLink { await driver.connection.disconnect() }
        }
        var total = 0
        var backoff = Self.firstBackoff
        while true {
            let (stored, ending) = await follow(driver, until: end, events: events)
            total += stored
            switch ending.code {
            case .cancelled:
                await closeOwnLink()
                return total
            case .disconnected where Task.isCancelled:
                await closeOwnLink()
                return total
            case .disconnected:
                logger.info(
                    "the band's link dropped; reconnecting",
                    metadata: ["mac": "\(mac)", "why": "\(ending.message)", "stored": "\(total)"])
                events(.linkDropped(message: ending.message))
                // what a dropped link of ours still holds is released now; the first link is its opener's
                await closeOwnLink()
                ownsLink = false
            default:
                logger.info(
                    "following the band failed", metadata: ["mac": "\(mac)", "why": "\(ending.message)"])
                await closeOwnLink()
                throw ending
            }
            // reconnect, backing off while it fails, until cancelled
            while true {
                do {
                    try await clock.sleep(for: backoff, tolerance: nil)
                } catch {
                    return total
                }
                if Task.isCancelled { return total }
                let connection: any BluetoothConnection
                do {
                    connection = try await central.connect(to: mac)
                } catch {
                    if Task.isCancelled { return total }
                    guard keepsReconnecting else {
                        logger.info(
                            "reconnecting to the band failed: left until it is heard again",
                            metadata: ["mac": "\(mac)", "why": "\(error.message)"])
                        events(.gaveUp(message: error.message))
                        return total
                    }
                    backoff = min(backoff * 2, Self.longestBackoff)
                    logger.info(
                        "reconnecting to the band failed",
                        metadata: ["mac": "\(mac)", "why": "\(error.message)", "retryIn": "\(backoff)"])
                    events(.reconnectFailed(message: error.message, retryIn: backoff))
                    continue
                }
                // a link that drops before a batch is full gets smaller batches, so that it progresses
                driver = makeDriver(connection, batchSize: max(Self.minimumBatchSize, driver.batchSize / 2))
                ownsLink = true
                backoff = Self.firstBackoff
                break
            }
            if Task.isCancelled {
                await closeOwnLink()
                return total
            }
            logger.debug("reconnected to the band", metadata: ["mac": "\(mac)", "batchSize": "\(driver.batchSize)"])
            events(.reconnected(batchSize: driver.batchSize))
        }
    }

    private func makeDriver(_ connection: any BluetoothConnection, batchSize: Int) -> SmartbandDriver {
        var driver = SmartbandDriver(entry: entry, connection: connection, clock: bandClock)
        driver.batchSize = batchSize
        driver.addedAt = addedAt
        return driver
    }

    /// Follows the band on `driver`'s link until the link ends; returns the items stored on it and the error that
    /// ended it (`.cancelled` when the task was cancelled or `end` was reached).
    private func follow(
        _ driver: SmartbandDriver, until end: Timestamp?, events: @escaping @Sendable (BandFollowEvent) -> Void
    ) async -> (stored: Int, ending: DeviceError) {
        let stored = Locked(0)
        let sink = self.sink
        let bandClock = self.bandClock
        // a child task of its own, so that reaching `end` cancels this link's following, not the caller's task
        let ending = await withTaskGroup(of: DeviceError.self) { group in
            group.addTask {
                do throws(DeviceError) {
                    try await driver.follow(into: sink) { event in
                        events(.wearer(event))
                    } stored: { count in
                        stored.withLock { $0 = count }
                        let now = bandClock()
                        events(.stored(count: count, bandTime: now))
                        if let end, now >= end { withUnsafeCurrentTask { $0?.cancel() } }
                    }
                } catch {
                    return error
                }
            }
            return await group.next() ?? DeviceError(.cancelled, message: "the operation was cancelled")
        }
        return (stored.withLock { $0 }, ending)
    }
}
