import LayeredProtocol
import Logging
import VitalCore
import VitalDevices
import VitalStore

/// Why a ``DeviceDesk`` operation was refused or failed: one line naming what was wrong, never a health value.
public struct DeviceDeskError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: RawRepresentable, Hashable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The MAC is not a device of the hub.
        public static let unknownDevice = Code(rawValue: "unknownDevice")
        /// The device keeps no records to sync (a heart-rate sensor): said before anything is connected.
        public static let keepsNoRecords = Code(rawValue: "keepsNoRecords")
        /// The device does not offer the operation (a glucose meter's live stream, a scale's factory reset).
        public static let unsupported = Code(rawValue: "unsupported")
        /// The home's transport cannot reach the device (BlueZ and a vendor protocol).
        public static let unreachable = Code(rawValue: "unreachable")
        /// The device failed, refused or could not be connected.
        public static let device = Code(rawValue: "device")
        /// The hub's store failed.
        public static let store = Code(rawValue: "store")
        /// A smartband setting breaks a rule the band states (its schedules a day): nothing was sent. The message
        /// names the field and the rule: `schedule.date the band holds at most 4 entries a day (…)`.
        public static let setting = Code(rawValue: "setting")
        /// The person did not confirm what the operation would do: nothing was changed.
        public static let declined = Code(rawValue: "declined")
        /// The home refuses what was asked of a person (unknown, not enrolled, enrolled under another index) or a
        /// device refused to let the hub act as them (a wrong consent code, no such user, no free slot): nothing was
        /// assigned.
        public static let refused = Code(rawValue: "refused")
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// What a device of the hub says about itself (``DeviceDesk/info(_:)``).
public struct DeviceReport: Hashable, Sendable {
    public var mac: MACAddress
    public var model: DeviceModel
    public var info: DeviceInfo

    public init(mac: MACAddress, model: DeviceModel, info: DeviceInfo) {
        self.mac = mac
        self.model = model
        self.info = info
    }
}

/// How a live stream (``DeviceDesk/live(_:seconds:onSample:)``) ended.
public enum LiveEnding: Hashable, Sendable {
    /// The device's measurement ended: its reading is stored, pending for the callers, as any measurement's.
    case measured(DeviceRecord)
    /// The stream was stopped (its seconds passed, or the task was cancelled: Ctrl-C) before a reading came;
    /// nothing was stored.
    case stopped
}

/// The engine's direct operations on one device of the hub, outside any caller's request: what it says about
/// itself, its factory reset, and its live samples. Each runs under the device's lease, through the home's
/// transport, with the device's driver; whatever the device hands over is stored before it may forget it.
///
/// Only devices the hub knows (added by a layered request) are used, so a device's model is the one stored, and a
/// transport that cannot reach the model (BlueZ and a vendor protocol) is refused before anything is connected:
/// nothing simulated reaches a real home, and no real device is spoken to in a protocol it does not have.
public struct DeviceDesk: Sendable {
    let store: VitalStore
    let central: any BluetoothCentral
    let leases: any DeviceLeases
    let clock: any Clock<Duration>
    let now: @Sendable () -> Timestamp
    let logger: Logger

    /// How long past its `seconds` a live stream may run before the desk stops it.
    public static let liveGrace = Duration.seconds(2)

    /// The hub's own name as the PO3's user (its authentication) for operations no caller asked for.
    public static let hubUser = "org.vitalbridge.hub"

    /// A desk over `store`, reaching devices through `central` under `leases`; `clock` measures a live stream's
    /// seconds, `now` is the time devices' clocks and stored readings are dated by, `logger` hears failures.
    public init(
        store: VitalStore, central: any BluetoothCentral, leases: any DeviceLeases, clock: any Clock<Duration>,
        now: @escaping @Sendable () -> Timestamp, logger: Logger
    ) {
        self.store = store
        self.central = central
        self.leases = leases
        self.clock = clock
        self.now = now
        self.logger = logger
    }

    /// The device's model, serial number, firmware revision and battery level (Device Information and Battery
    /// services). Changes nothing in the store.
    public func info(_ mac: MACAddress) async throws(DeviceDeskError) -> DeviceReport {
        let known = try knownDevice(mac)
        return try await withDriver(known, doing: "device information") { driver in
            DeviceReport(mac: mac, model: known.model, info: try await driver.deviceInfo())
        }
    }

    /// Stores what the device still holds, then restores its factory settings; returns how many records were
    /// stored first. The PO3 and the smartbands have a factory reset.
    public func reset(_ mac: MACAddress) async throws(DeviceDeskError) -> Int {
        let known = try knownDevice(mac)
        let sink = StoreSink(store: store, device: mac)
        return try await withDriver(known, doing: "factory reset") { driver in
            try await driver.prepare(for: DeviceSession(caller: Self.hubUser, time: now()))
            return try await driver.resetToFactory(storingInto: sink)
        }
    }

    /// Reads what device `mac` holds and stores it, pending for every caller that asked for the device, exactly as a
    /// layered sync does (a Record Access Control Point device's records, then deleted from it; everything a push
    /// device sends; a measurement it sends on connecting; what the store has already is recognised and not stored
    /// again); its clock is read first, so what it dated is corrected. `progress` hears the records stored as they
    /// are committed, out of the count the device announced when it says one.
    ///
    /// Once everything is stored, a clock off by more than `DeviceClock.tolerance` is set to the hub's time where
    /// the device allows it (a writable Current Time, else an iHealth model's vendor set-time command; a device that
    /// refuses the command keeps its clock, as one with only a read-only Current Time does), so that its next
    /// readings are dated right at the source: a Record Access Control Point device's after any whole sync (it sent
    /// everything it held), a push device's only at a sync that found its memory empty (a push transfer ends when
    /// the device falls quiet, so it may still hold readings its old clock dated, which the new offset would
    /// misdate). Then its battery is read.
    ///
    /// - Throws: ``DeviceDeskError`` with ``DeviceDeskError/Code/keepsNoRecords`` for a device that keeps no records
    ///   (`CatalogEntry.storesRecords`: a heart-rate sensor, a BP3L), before anything is connected, and the device's
    ///   or the store's failure; what was stored before a failure stays.
    public func sync(
        _ mac: MACAddress, progress: @escaping @Sendable (SyncProgress) -> Void = { _ in }
    ) async throws(DeviceDeskError) -> DeviceSync {
        let known = try knownDevice(mac)
        let entry = DeviceCatalog.entry(for: known.model)
        let traits = entry.family.traits
        guard entry.storesRecords else {
            throw DeviceDeskError(.keepsNoRecords, "\(mac) is a \(known.model.name), which keeps no records to sync")
        }
        let (sink, now, logger, store) = (StoreSink(store: store, device: mac), now, logger, store)
        return try await withDriver(known, doing: "sync") { driver in
            // the clock before anything that reads a record, or sets the clock (the PO3's prepare)
            try await driver.readClock(hubClock: now)
            try await driver.prepare(for: DeviceSession(caller: Self.hubUser, profile: known.profile, time: now()))
            var done = DeviceSync(stored: try await driver.sync(into: sink, progress: progress), clockSetFrom: nil)
            let enrolled = try await EnrolledSync(store: store, now: now, logger: logger).run(
                driver, mac, into: sink, progress: progress)
            done.stored += enrolled.stored
            done.refusals = enrolled.refusals
            // what was read is stored: a clock or a battery that cannot be read now is for another time
            do {
                if !traits.pushesStoredRecords || done.stored == 0 {
                    done.clockSetFrom = try await driver.setClock(hubTime: now())
                }
            } catch {
                logger.notice("the device's clock could not be set", metadata: ["device": "\(mac)", "why": "\(error)"])
            }
            do {
                done.battery = try await driver.batteryLevel()
            } catch {
                logger.notice(
                    "the device's battery could not be read", metadata: ["device": "\(mac)", "why": "\(error)"])
            }
            if done.batteryIsLow {
                logger.warning(
                    "the device's battery is low", metadata: ["device": "\(mac)", "battery": "\(done.battery!) %"])
            }
            return done
        }
    }

    /// Streams the device's live samples to `onSample` while it measures: a pulse oximeter or a blood pressure
    /// monitor until its measurement ends, a heart-rate sensor for `seconds` of its own recording (until stopped
    /// when `nil`); `seconds` also bounds every stream on the desk's clock, plus ``liveGrace`` (so that a
    /// recording of `seconds` by the host's clock ends with its reading rather than the bound). Cancelling the task
    /// stops the stream.
    ///
    /// - Returns: ``LiveEnding/measured(_:)`` with the stored reading, or ``LiveEnding/stopped``.
    public func live(
        _ mac: MACAddress, seconds: Int?, onSample: @escaping @Sendable (LiveSample) -> Void
    ) async throws(DeviceDeskError) -> LiveEnding {
        let known = try knownDevice(mac)
        guard DeviceCatalog.entry(for: known.model).family.traits.streamsLiveSamples else {
            throw DeviceDeskError(.unsupported, "\(mac) is a \(known.model.name), which sends no live samples")
        }
        let sink = StoreSink(store: store, device: mac)
        let clock = clock
        let now = now
        return try await withDriver(known, doing: "live stream") { driver in
            try await driver.readClock(hubClock: now)
            try await driver.prepare(for: DeviceSession(caller: Self.hubUser, time: now()))
            // a heart-rate sensor records until stopped: as long as an Int says
            let options = MeasureOptions(recordingSeconds: seconds ?? Int.max)
            return try await withThrowingTaskGroup(of: LiveEnding.self) { group in
                group.addTask {
                    do {
                        return .measured(try await driver.measure(options, into: sink, observer: onSample))
                    } catch let error as DeviceError where error.code == .cancelled && Task.isCancelled {
                        return .stopped
                    }
                }
                if let seconds {
                    group.addTask {
                        try await clock.sleep(for: .seconds(seconds) + Self.liveGrace)
                        return .stopped
                    }
                }
                defer { group.cancelAll() }
                do {
                    return try await group.next() ?? .stopped
                } catch is CancellationError {
                    return .stopped
                }
            }
        }
    }

    /// The device `mac` as the store knows it, if the transport reaches its model.
    func knownDevice(_ mac: MACAddress) throws(DeviceDeskError) -> StoredDevice {
        let known: StoredDevice?
        do {
            known = try store.device(mac)
        } catch {
            logger.error("the hub's storage failed", metadata: ["error": "\(error)"])
            throw DeviceDeskError(.store, "\(mac): cannot read the store: \(error)")
        }
        guard let known else {
            throw DeviceDeskError(
                .unknownDevice,
                "\(mac) is not a device of this hub: add it first: vitalbridge add --qr MODEL:\(mac) (or a layered request, cmd=1)"
            )
        }
        guard central.reaches(known.model) else {
            throw DeviceDeskError(
                .unreachable, "\(mac) is a \(known.model.name): this home's transport does not speak its protocol")
        }
        return known
    }

    /// Runs `body` with the driver of `known` on a connection made under its lease, closed after whatever
    /// happened; maps what fails to a ``DeviceDeskError`` naming `operation`.
    func withDriver<T: Sendable>(
        _ known: StoredDevice, doing operation: String,
        _ body: @escaping @Sendable (any DeviceDriver) async throws -> T
    ) async throws(DeviceDeskError) -> T {
        let entry = DeviceCatalog.entry(for: known.model)
        let now = now
        return try await withConnection(known, doing: operation) { connection in
            try await body(makeDriver(for: entry, connection: connection, clock: now, addedAt: known.addedAt))
        }
    }

    /// Runs `body` on a connection to `known` made under its lease, closed after whatever happened; maps what
    /// fails to a ``DeviceDeskError`` naming `operation`. Every message starts with the device but a broken
    /// setting's rule (``DeviceDeskError/Code/setting``), which names the field.
    func withConnection<T: Sendable>(
        _ known: StoredDevice, doing operation: String,
        _ body: @escaping @Sendable (any BluetoothConnection) async throws -> T
    ) async throws(DeviceDeskError) -> T {
        let (mac, central) = (known.mac, central)
        do {
            return try await leases.withLease(mac) {
                let connection = try await central.connect(to: mac)
                do {
                    let result = try await body(connection)
                    await connection.disconnect()
                    return result
                } catch {
                    await connection.disconnect()
                    throw error
                }
            }
        } catch let error as DeviceError where error.code == .unsupported {
            throw DeviceDeskError(.unsupported, "\(mac) is a \(known.model.name): \(error.message)")
        } catch let error as DeviceError {
            // the caller reports it (one line): the log keeps it for a trace, below the default level
            logger.info(
                "a device operation failed",
                metadata: ["device": "\(mac)", "operation": "\(operation)", "error": "\(error)"])
            throw DeviceDeskError(.device, "\(known.model.name) \(mac): \(operation) failed: \(error.message)")
        } catch let error as BandSettingError {
            throw DeviceDeskError(.setting, "\(error)")
        } catch let error as DeviceDeskError {
            // the operation's own refusal, already one line
            throw error
        } catch {
            logger.error("the hub's storage failed", metadata: ["device": "\(mac)", "error": "\(error)"])
            throw DeviceDeskError(.store, "\(known.model.name) \(mac): \(operation) failed: \(error)")
        }
    }
}

/// What a sync (``DeviceDesk/sync(_:progress:)``) did.
public struct DeviceSync: Hashable, Sendable, CustomStringConvertible {
    /// The records that are new in the store.
    public var stored: Int
    /// How far ahead of the hub's the device's clock was when the hub set it, by its Current Time or the vendor
    /// set-time command (negative: behind); `nil` when it was not set (right, unread, read-only without the command,
    /// the command refused, or the hub dates the device's readings).
    public var clockSetFrom: Int64?
    /// The battery level after the sync, in percent, when the device has a Battery Service.
    public var battery: Int?
    /// The enrolled people whose records the device did not let the hub take, each naming what to do.
    public var refusals: [UserRefusal] = []

    /// A battery at or below this level, in percent, is low: said, and logged as a warning.
    public static let lowBattery = 20

    public init(stored: Int, clockSetFrom: Int64?, battery: Int? = nil) {
        self.stored = stored
        self.clockSetFrom = clockSetFrom
        self.battery = battery
    }

    /// Whether the battery is at or below ``lowBattery``.
    public var batteryIsLow: Bool { battery.map { $0 <= Self.lowBattery } ?? false }

    /// `synced, 3 new records; its clock was 2 h 0 min 5 s ahead of the hub's: set; battery low (8 %)`.
    public var description: String {
        "synced, \(stored) new record\(stored == 1 ? "" : "s")"
            + (clockSetFrom.map { "; its clock was \(DeviceClock.describe(offset: $0)): set" } ?? "")
            + (batteryIsLow ? "; battery low (\(battery!) %)" : "")
    }
}

/// How ``DeviceDesk/syncAll(progress:)`` went for one device.
public struct DeviceSyncOutcome: Sendable {
    public var mac: MACAddress
    public var model: DeviceModel
    /// What the sync did, or why it failed.
    public var result: Result<DeviceSync, DeviceDeskError>

    /// Whether the device was left out rather than failed: it keeps no records, or the transport does not speak its
    /// protocol.
    public var isSkipped: Bool {
        guard case .failure(let error) = result else { return false }
        return error.code == .keepsNoRecords || error.code == .unreachable
    }
}

extension DeviceDesk {
    /// Syncs every device of the hub, one after the other (``sync(_:progress:)``), in the order the store lists
    /// them; a device that fails does not stop the others. `progress` hears each device's records as they are stored.
    ///
    /// - Throws: ``DeviceDeskError/Code/store`` when the store's devices cannot be read.
    public func syncAll(
        progress: @escaping @Sendable (MACAddress, SyncProgress) -> Void = { _, _ in }
    ) async throws(DeviceDeskError) -> [DeviceSyncOutcome] {
        let devices: [StoredDevice]
        do {
            devices = try store.devices()
        } catch {
            throw DeviceDeskError(.store, "cannot read the store's devices: \(error)")
        }
        var outcomes: [DeviceSyncOutcome] = []
        for device in devices {
            let result: Result<DeviceSync, DeviceDeskError>
            do {
                result = .success(try await sync(device.mac) { progress(device.mac, $0) })
            } catch {
                result = .failure(error)
            }
            outcomes.append(DeviceSyncOutcome(mac: device.mac, model: device.model, result: result))
        }
        return outcomes
    }
}
