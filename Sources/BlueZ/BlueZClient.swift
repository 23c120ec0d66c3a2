import DBus
import Locking
import Logging
import VitalCore
import VitalDevices

/// The state BlueZ reports, kept up to date from its signals, and the open connections it feeds.
actor BlueZClient {
    let address: DBusConnection.Address
    let adapterName: String?
    let logger: Logger
    let retryPolicy: BlueZRetryPolicy
    private var bus: DBusConnection?
    private var subscriptions: [DBusSubscription] = []
    /// path → interface → property → value, as BlueZ reported them.
    private(set) var objects: [String: [String: [String: DBusValue]]] = [:]
    private var connections: [String: BlueZConnection] = [:]
    /// The device paths this client is connecting (its `Connect` sent, its connection not made yet): connected to
    /// the host then, but not by themselves.
    private var connecting: Set<String> = []
    private var scans: [Int: ScanListener] = [:]
    private var nextScan = 0
    /// Why the last scan could not start, if it could not: said once until one starts.
    private var scanProblem: String?

    /// Pairing agents served so far: each gets a path of its own.
    private var agentsServed = 0

    init(address: DBusConnection.Address, adapterName: String?, logger: Logger, retryPolicy: BlueZRetryPolicy) {
        self.address = address
        self.adapterName = adapterName
        self.logger = logger
        self.retryPolicy = retryPolicy
    }

    /// The bus, connected and watching BlueZ's objects on first use.
    func started() async throws(DeviceError) -> DBusConnection {
        if let bus { return bus }
        let bus: DBusConnection
        do {
            bus = try await DBusConnection.open(address)
        } catch {
            throw DeviceError(.connectionFailed, message: "cannot reach the D-Bus bus of BlueZ: \(error)")
        }
        // each signal waits in a Locked buffer and the stream only wakes the reader: a message built on the bus's
        // thread and handed over inside AsyncStream alone, which locks with a futex ThreadSanitizer cannot see,
        // was reported as a race when the reader took it without suspending
        let pending = Locked<[DBusMessage]>([])
        let (signals, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .unbounded)
        do {
            for rule in [
                "type='signal',sender='org.bluez',interface='\(BlueZNames.objectManager)',path='/'",
                "type='signal',sender='org.bluez',interface='\(BlueZNames.properties)',member='PropertiesChanged',path_namespace='/org/bluez'",
                // bluetoothd stopping (a crash, a restart) ends every link it carried
                "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(BlueZNames.service)'",
            ] {
                subscriptions.append(
                    try await bus.subscribe(rule) { signal in
                        pending.withLock { $0.append(signal) }
                        continuation.yield()
                    })
            }
            try await readObjects(from: bus)
        } catch {
            bus.close()
            throw Self.deviceError(error, doing: "reading BlueZ's objects")
        }
        self.bus = bus
        Task {
            for await _ in signals {
                let arrived = pending.withLock { buffer in
                    defer { buffer.removeAll() }
                    return buffer
                }
                for signal in arrived { self.apply(signal) }
            }
        }
        return bus
    }

    /// Reads every object BlueZ serves (`GetManagedObjects`) into ``objects``. An object or interface already known
    /// is kept as it is: a signal applied while the reply was on its way is newer than the reply.
    private func readObjects(from bus: DBusConnection) async throws(DBusError) {
        let reply = try await bus.call(BlueZNames.service, "/", BlueZNames.objectManager, "GetManagedObjects")
        for (path, interfaces) in reply.first?.dictionary ?? [:] {
            for (interface, properties) in interfaces.dictionary ?? [:] where objects[path]?[interface] == nil {
                objects[path, default: [:]][interface] = properties.dictionary ?? [:]
            }
        }
    }

    /// Reads BlueZ's objects again after it came back on the bus; a failure is logged (the next scan says more).
    private func readObjects() async {
        guard let bus else { return }
        do {
            try await readObjects(from: bus)
        } catch {
            logger.warning("cannot read BlueZ's objects after it came back: \(error)")
        }
    }

    func close() {
        for subscription in subscriptions { subscription.cancel() }
        subscriptions.removeAll()
        for connection in connections.values {
            connection.end(DeviceError(.disconnected, message: "the central closed"))
        }
        connections.removeAll()
        // a later start reads everything again: nothing of this bus is kept
        objects.removeAll()
        bus?.close()
        bus = nil
    }

    // MARK: Signals

    private func apply(_ signal: DBusMessage) {
        switch signal.member {
        case "InterfacesAdded":
            guard signal.arguments.count == 2, let path = signal.arguments[0].string,
                let interfaces = signal.arguments[1].dictionary
            else { return }
            for (interface, properties) in interfaces {
                objects[path, default: [:]][interface] = properties.dictionary ?? [:]
            }
            if let device = interfaces[BlueZNames.device]?.dictionary { heard(path, device) }
        case "InterfacesRemoved":
            guard signal.arguments.count == 2, let path = signal.arguments[0].string,
                let interfaces = signal.arguments[1].strings
            else { return }
            for interface in interfaces { objects[path]?[interface] = nil }
            if objects[path]?.isEmpty == true { objects[path] = nil }
            if interfaces.contains(BlueZNames.device), let connection = connections.removeValue(forKey: path) {
                connection.end(DeviceError(.disconnected, message: "BlueZ no longer knows the device"))
            }
        case "PropertiesChanged":
            guard signal.arguments.count >= 2, let interface = signal.arguments[0].string,
                let changed = signal.arguments[1].dictionary, objects[signal.path]?[interface] != nil
            else { return }
            for (name, value) in changed { objects[signal.path]?[interface]?[name] = value }
            for name in signal.arguments.count > 2 ? signal.arguments[2].strings ?? [] : [] {
                objects[signal.path]?[interface]?[name] = nil
            }
            switch interface {
            case BlueZNames.characteristic:
                if let value = changed["Value"]?.byteArray { valueChanged(signal.path, value) }
            case BlueZNames.device:
                if changed["Connected"] == .boolean(false),
                    let connection = connections.removeValue(forKey: signal.path)
                {
                    connection.end(DeviceError(.disconnected, message: "the link dropped"))
                }
                // heard again, or connected by itself: a scan learns it now, not at its end
                if changed["RSSI"] != nil || changed["Connected"] == .boolean(true),
                    let device = objects[signal.path]?[BlueZNames.device]
                {
                    heard(signal.path, device)
                }
                settleWaiters(signal.path)
            default:
                break
            }
        case "NameOwnerChanged":
            guard signal.arguments.count == 3, signal.arguments[0].string == BlueZNames.service,
                let owner = signal.arguments[2].string
            else { return }
            guard owner.isEmpty else {
                // bluetoothd is back (a restart): what it serves is read again, as at the start
                logger.notice("BlueZ is back on the bus: reading its objects again")
                Task { await self.readObjects() }
                return
            }
            logger.notice("BlueZ left the bus: its links are gone")
            objects.removeAll()
            for connection in connections.values {
                connection.end(DeviceError(.disconnected, message: "BlueZ stopped"))
            }
            connections.removeAll()
            // a connection waiting for its services will not get them from this BlueZ
            for waiter in waiters.values.joined() { waiter.continuation.resume(returning: false) }
            waiters.removeAll()
        default:
            break
        }
    }

    /// A characteristic's value changed: a notification or indication for the connection of its device.
    private func valueChanged(_ path: String, _ value: [UInt8]) {
        // a characteristic's path is its device's (/org/bluez/hci0/dev_…) followed by /serviceXXXX/charYYYY
        let components = path.split(separator: "/")
        guard components.count > 4 else { return }
        connections["/" + components.prefix(4).joined(separator: "/")]?.received(value, on: path)
    }

    // MARK: Adapters

    func adapters() async throws(DeviceError) -> [BlueZAdapter] {
        _ = try await started()
        return objects.compactMap(BlueZAdapter.init(path:interfaces:)).sorted { $0.name < $1.name }
    }

    /// The path of the adapter to use: the one named, else the first powered one with the central role.
    func adapterPath() async throws(DeviceError) -> String {
        let adapters = try await adapters()
        if let adapterName {
            guard let adapter = adapters.first(where: { $0.name == adapterName }) else {
                throw DeviceError(.notFound, message: "BlueZ has no adapter \(adapterName)")
            }
            guard adapter.powered else {
                throw DeviceError(.connectionFailed, message: "the adapter \(adapterName) is off")
            }
            return "/org/bluez/" + adapter.name
        }
        guard let adapter = adapters.first(where: { $0.powered && $0.central }) else {
            throw DeviceError(
                .notFound,
                message: adapters.isEmpty ? "BlueZ has no Bluetooth adapter" : "no Bluetooth adapter is powered on")
        }
        return "/org/bluez/" + adapter.name
    }

    // MARK: Scanning

    private final class ScanListener: Sendable {
        let services: [UInt16]
        let adapter: String
        let continuation: AsyncStream<Advertisement>.Continuation
        init(services: [UInt16], adapter: String, continuation: AsyncStream<Advertisement>.Continuation) {
            self.services = services
            self.adapter = adapter
            self.continuation = continuation
        }
    }

    /// Reports the devices that advertise one of `services` for `duration`: those BlueZ already knows and heard,
    /// then each one heard during the scan, or connecting to the host by itself during it.
    func scan(for services: [UInt16], duration: Duration, into continuation: AsyncStream<Advertisement>.Continuation)
        async
    {
        let bus: DBusConnection
        let adapter: String
        do {
            bus = try await started()
            adapter = try await adapterPath()
        } catch {
            // said once until a scan starts again: a service scans twice a second
            if scanProblem != "\(error)" { logger.warning("cannot scan: \(error)") }
            scanProblem = "\(error)"
            return
        }
        scanProblem = nil
        let id = nextScan
        nextScan += 1
        let listener = ScanListener(services: services, adapter: adapter, continuation: continuation)
        scans[id] = listener
        defer { scans[id] = nil }
        for (path, interfaces) in objects.sorted(by: { $0.key < $1.key }) {
            if let device = interfaces[BlueZNames.device], device["RSSI"] != nil || device["Paired"]?.bool == true {
                report(path, device, to: listener)
            }
        }
        do {
            var filter: [(String, DBusValue)] = [("Transport", .string("le"))]
            if !services.isEmpty { filter.append(("UUIDs", .strings(services.map(BlueZNames.uuid)))) }
            _ = try await bus.call(
                BlueZNames.service, adapter, BlueZNames.adapter, "SetDiscoveryFilter", [.properties(filter)])
            _ = try await bus.call(BlueZNames.service, adapter, BlueZNames.adapter, "StartDiscovery")
        } catch {
            // a StartDiscovery given up (the scan's task cancelled) may still start in BlueZ, which allows one
            // discovery per client: stopped, or every later scan would be refused
            await bus.undo(adapter, BlueZNames.adapter, "StopDiscovery")
            if error.name != DBusError.cancelled { logger.warning("cannot start discovery: \(error)") }
            return
        }
        try? await Task.sleep(for: duration)
        await bus.undo(adapter, BlueZNames.adapter, "StopDiscovery")
    }

    private func heard(_ path: String, _ device: [String: DBusValue]) {
        for listener in scans.values { report(path, device, to: listener) }
    }

    private func report(_ path: String, _ device: [String: DBusValue], to listener: ScanListener) {
        guard path.hasPrefix(listener.adapter + "/"), let address = device["Address"]?.string,
            let mac = BlueZNames.mac(address)
        else { return }
        let services = (device["UUIDs"]?.strings ?? []).compactMap(BlueZNames.shortUUID)
        guard listener.services.isEmpty || !Set(services).isDisjoint(with: listener.services) else { return }
        listener.continuation.yield(
            Advertisement(
                mac: mac, localName: device["Name"]?.string ?? device["Alias"]?.string ?? "", services: services,
                isPaired: device["Paired"]?.bool ?? false, rssi: device["RSSI"]?.integer ?? -127,
                isHeard: device["RSSI"] != nil,
                isConnected: isConnectedByItself(path, device)))
    }

    // MARK: Connecting

    /// A wait for a device's properties to satisfy a condition; checked each time they change.
    private final class Waiter: @unchecked Sendable {
        let id: Int
        let condition: @Sendable ([String: DBusValue]?) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
        init(
            id: Int, condition: @escaping @Sendable ([String: DBusValue]?) -> Bool,
            continuation: CheckedContinuation<Bool, Never>
        ) {
            self.id = id
            self.condition = condition
            self.continuation = continuation
        }
    }
    private var waiters: [String: [Waiter]] = [:]
    private var nextWaiter = 0

    func connect(to mac: MACAddress, timeout: Duration, scanDuration: Duration) async throws(DeviceError)
        -> any BluetoothConnection
    {
        let bus = try await started()
        let adapter = try await adapterPath()
        let path = BlueZNames.devicePath(mac, adapter: adapter)
        try await heard(mac, at: path, scanDuration: scanDuration)
        guard connections[path] == nil, !connecting.contains(path) else {
            throw DeviceError(.busy, message: "\(mac) is already connected")
        }
        connecting.insert(path)
        defer { connecting.remove(path) }
        if objects[path]?[BlueZNames.device]?["Connected"]?.bool != true {
            logger.debug("connecting", metadata: ["mac": "\(mac)"])
            do {
                _ = try await retrying("connecting to \(mac)") { () async throws(DBusError) in
                    try await bus.call(BlueZNames.service, path, BlueZNames.device, "Connect", timeout: timeout)
                }
            } catch {
                // a cancelled Connect still runs in BlueZ: the link it may make is not left behind
                if error.name == DBusError.cancelled { await disconnect(path, bus) }
                throw Self.deviceError(error, doing: "connecting to \(mac)", connecting: true)
            }
        }
        guard await wait(for: path, timeout: timeout, until: { $0?["ServicesResolved"]?.bool == true }) else {
            await disconnect(path, bus)
            if Task.isCancelled { throw DeviceError(.cancelled, message: "connecting to \(mac) was cancelled") }
            throw DeviceError(.connectionFailed, message: "the services of \(mac) were not resolved in time")
        }
        var characteristics: [String: BlueZConnection.Characteristic] = [:]
        var mtu = 23
        for (characteristicPath, interfaces) in objects where characteristicPath.hasPrefix(path + "/") {
            guard let properties = interfaces[BlueZNames.characteristic], let uuid = properties["UUID"]?.string,
                let short = BlueZNames.shortUUID(uuid), let servicePath = properties["Service"]?.string,
                let serviceUUID = objects[servicePath]?[BlueZNames.gattService]?["UUID"]?.string,
                let service = BlueZNames.shortUUID(serviceUUID)
            else { continue }
            let flags = Set(properties["Flags"]?.strings ?? [])
            characteristics[characteristicPath] = BlueZConnection.Characteristic(
                id: CharacteristicID(service: service, characteristic: short), flags: flags)
            if let value = properties["MTU"]?.integer { mtu = max(mtu, value) }
        }
        let connection = BlueZConnection(
            peripheral: mac, path: path, bus: bus, characteristics: characteristics, mtu: mtu)
        connections[path] = connection
        return connection
    }

    /// The devices of the adapter whose `Connected` is true and that no connection of this client holds; none when
    /// BlueZ cannot be reached (the scan that follows says why).
    func connectedByThemselves() async -> [MACAddress] {
        guard (try? await started()) != nil, let adapter = try? await adapterPath() else { return [] }
        return objects.compactMap { path, interfaces in
            guard path.hasPrefix(adapter + "/"), let device = interfaces[BlueZNames.device],
                isConnectedByItself(path, device), let address = device["Address"]?.string
            else { return nil }
            return BlueZNames.mac(address)
        }.sorted { $0.description < $1.description }
    }

    /// Whether the device at `path`, whose `Device1` properties are `device`, is connected to the host by a link
    /// this client neither holds nor is making.
    private func isConnectedByItself(_ path: String, _ device: [String: DBusValue]) -> Bool {
        device["Connected"]?.bool == true && connections[path] == nil && !connecting.contains(path)
    }

    /// Asks BlueZ to drop the link to the device at `path`, for a connection this client gives up before it was
    /// made.
    private func disconnect(_ path: String, _ bus: DBusConnection) async {
        await bus.undo(path, BlueZNames.device, "Disconnect")
    }

    /// Makes sure BlueZ knows the device `mac` at `path`: it knows a device once it has heard it, so one it does
    /// not know yet is listened for first, for up to `scanDuration`.
    func heard(_ mac: MACAddress, at path: String, scanDuration: Duration) async throws(DeviceError) {
        guard objects[path]?[BlueZNames.device] == nil else { return }
        for await heard in scanStream(for: [], duration: scanDuration) where heard.mac == mac { break }
        guard objects[path]?[BlueZNames.device] != nil else {
            throw DeviceError(.notFound, message: "BlueZ does not hear \(mac)")
        }
    }

    /// Runs `operation`, a call to BlueZ about `what` (`connecting to 004D3208D2F4`), again after a passing error
    /// (``BlueZRetryPolicy/isTransient(_:)``), as often and as late as ``retryPolicy`` says; each retry is logged.
    func retrying<T: Sendable>(_ what: String, _ operation: () async throws(DBusError) -> T) async throws(DBusError)
        -> T
    {
        var retry = 0
        while true {
            do {
                return try await operation()
            } catch {
                guard retry < retryPolicy.retries, BlueZRetryPolicy.isTransient(error), !Task.isCancelled else {
                    throw error
                }
                retry += 1
                let delay = retryPolicy.delay(before: retry)
                logger.info(
                    "\(what) failed with a passing error (\(error)): retry \(retry) of \(retryPolicy.retries) in \(delay)"
                )
                try? await Task.sleep(for: delay)
            }
        }
    }

    /// A new object path for a pairing agent of this client.
    func nextAgentPath() -> String {
        agentsServed += 1
        return "/org/vitalbridge/agent\(agentsServed)"
    }

    /// The `Device1` properties of `path` as BlueZ has them now (asked, not waited for from signals).
    func deviceProperties(_ path: String) async throws(DBusError) -> [String: DBusValue] {
        let bus = try await startedBus()
        let reply = try await bus.call(
            BlueZNames.service, path, BlueZNames.properties, "GetAll", [.string(BlueZNames.device)])
        let properties = reply.first?.dictionary ?? [:]
        for (name, value) in properties { objects[path]?[BlueZNames.device]?[name] = value }
        return properties
    }

    /// The bus, for calls made once ``started()`` succeeded.
    private func startedBus() async throws(DBusError) -> DBusConnection {
        guard let bus else { throw DBusError(name: DBusError.disconnected, message: "the central closed") }
        return bus
    }

    /// A scan's advertisements, as a stream this actor can consume.
    private func scanStream(for services: [UInt16], duration: Duration) -> AsyncStream<Advertisement> {
        let (stream, continuation) = AsyncStream.makeStream(of: Advertisement.self)
        let task = Task {
            await self.scan(for: services, duration: duration, into: continuation)
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Waits until the `Device1` properties of `path` satisfy `condition`, or `timeout` passes or the task is
    /// cancelled (then `false`).
    private func wait(
        for path: String, timeout: Duration, until condition: @escaping @Sendable ([String: DBusValue]?) -> Bool
    ) async -> Bool {
        if condition(objects[path]?[BlueZNames.device]) { return true }
        nextWaiter += 1
        let id = nextWaiter
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiters[path, default: []].append(Waiter(id: id, condition: condition, continuation: continuation))
                Task {
                    try? await Task.sleep(for: timeout)
                    self.expire(id, path)
                }
            }
        } onCancel: {
            // runs on this actor only once the wait above is registered
            Task { await self.expire(id, path) }
        }
    }

    /// Resumes the waits on `path` whose condition now holds.
    private func settleWaiters(_ path: String) {
        guard let list = waiters[path] else { return }
        let device = objects[path]?[BlueZNames.device]
        var waiting: [Waiter] = []
        for waiter in list {
            if waiter.condition(device) { waiter.continuation.resume(returning: true) } else { waiting.append(waiter) }
        }
        waiters[path] = waiting.isEmpty ? nil : waiting
    }

    private func expire(_ id: Int, _ path: String) {
        guard let index = waiters[path]?.firstIndex(where: { $0.id == id }) else { return }
        let waiter = waiters[path]!.remove(at: index)
        if waiters[path]?.isEmpty == true { waiters[path] = nil }
        waiter.continuation.resume(returning: false)
    }

    /// The `DeviceError` for a D-Bus error BlueZ answered `doing` something.
    static func deviceError(_ error: DBusError, doing what: String, connecting: Bool = false) -> DeviceError {
        let code: DeviceError.Code
        switch error.name {
        case "org.bluez.Error.DoesNotExist", DBusError.unknownObject, "org.freedesktop.DBus.Error.ServiceUnknown":
            code = .notFound
        case "org.bluez.Error.InProgress", "org.bluez.Error.Busy": code = .busy
        case "org.bluez.Error.NotAuthorized", "org.bluez.Error.AuthenticationFailed",
            "org.bluez.Error.AuthenticationCanceled", "org.bluez.Error.AuthenticationRejected",
            "org.bluez.Error.AuthenticationTimeout":
            code = .authenticationFailed
        case "org.bluez.Error.NotSupported", "org.bluez.Error.NotPermitted": code = .unsupported
        case "org.bluez.Error.InvalidArguments", "org.bluez.Error.InvalidValueLength", "org.bluez.Error.InvalidOffset":
            code = .protocolViolation
        case "org.bluez.Error.NotConnected", DBusError.disconnected: code = .disconnected
        case DBusError.cancelled: code = .cancelled
        case "org.bluez.Error.NotReady": code = .connectionFailed
        default:
            code = connecting ? .connectionFailed : error.name == DBusError.noReply ? .disconnected : .transportFailed
        }
        return DeviceError(code, message: "\(what): \(error)")
    }
}

extension DBusConnection {
    /// Calls BlueZ's `member` that undoes something this client started (`StopDiscovery`, `Disconnect`): made even
    /// when the awaiting task is cancelled, since a stopping hub must still undo it (a cancelled ``call`` returns
    /// at once); waited for at most `timeout`, a failure ignored.
    ///
    /// - Returns: the error BlueZ answered, if any, for a caller that logs it.
    @discardableResult
    func undo(
        _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = [],
        timeout: Duration = .seconds(2)
    ) async -> DBusError? {
        await Task.detached { () -> DBusError? in
            do throws(DBusError) {
                _ = try await self.call(BlueZNames.service, path, interface, member, arguments, timeout: timeout)
                return nil
            } catch {
                return error
            }
        }.value
    }
}
