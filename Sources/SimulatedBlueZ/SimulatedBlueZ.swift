import BlueZ
import DBus
import VitalCore
import VitalDevices
import VitalSimulation

#if canImport(Glibc)
    import Glibc
#endif

/// A simulated world served as BlueZ serves real devices: an `org.bluez` service on a D-Bus bus with an adapter
/// (`/org/bluez/hci0`), a `Device1` object per device heard, and `GattService1`, `GattCharacteristic1` and
/// `GattDescriptor1` objects while a device is connected, with BlueZ's paths, properties, methods, signals and
/// errors (BlueZ's `doc/org.bluez.*.rst`).
///
/// It behaves as BlueZ does where that matters to a client:
/// - Devices the fleet marks paired exist from the start; the others appear (`InterfacesAdded`) when a discovery
///   whose filter admits their service hears them, and stay until `RemoveDevice`.
/// - `Connect` answers once the GATT objects are exported and `ServicesResolved` is true.
/// - Indications are confirmed by the service itself the moment they arrive, before any client sees the value, as
///   bluetoothd confirms them: a device that deletes a record on confirmation has deleted it by then.
/// - A characteristic that notifies has `NotifyAcquired`: `AcquireNotify` hands the client a `SOCK_SEQPACKET`
///   socket carrying one value per packet, with the link's MTU.
/// - What a device sends by itself (heartbeats, a band's items) comes in real time: the world's time runs `pace`
///   real seconds per second (0.01 is a hundred times faster).
/// - Pairing goes through the client's agent (`AgentManager1.RegisterAgent`): `Device1.Pair` calls the agent's
///   `Agent1` methods on the client's unique bus name, as the device's fleet `pairing` method requires.
public actor SimulatedBlueZ {
    /// The adapter's object path.
    public static let adapterPath = "/org/bluez/hci0"
    /// How long `Connect` waits for a device that does not answer (the fleet's `connectUnanswered`): the Linux
    /// kernel's LE connection timeout.
    static let pageTimeout = Duration.seconds(20)

    let bus: DBusConnection
    let world: SimulatedWorld
    let pace: Double
    /// path → interface → property → value, for every object served.
    var objects: [String: [String: [String: DBusValue]]] = [:]
    var devices: [String: ServedDevice] = [:]
    /// Discovery filters by client: the service UUIDs each one asked for (empty: every device).
    var filters: [String: [String]] = [:]
    var discoverers: Set<String> = []
    /// Whether a task is repeating the advertisements of devices in range.
    var advertising = false
    /// The pairing agents, by the unique bus name of the client that registered each.
    var agents: [String: RegisteredAgent] = [:]
    /// The unique name of the client whose agent is the default one.
    var defaultAgent: String?
    /// The devices whose first connection or pairing attempt was aborted already (`abortFirstConnection`).
    var aborted: Set<MACAddress> = []
    /// When the window opened in which each device last connected by itself (`"connects": true`): once a window.
    var connectedByItself: [MACAddress: Timestamp] = [:]
    /// The method calls to the objects served, in the order they arrive.
    private let calls: AsyncStream<DBusMethodCall>
    /// The unique names of clients that left the bus.
    private let departures: AsyncStream<String>
    /// The object tree's registration and the watch on clients leaving; cancelled by ``close()``.
    private var registrations: [DBusSubscription] = []

    /// Takes the name `org.bluez` on `bus` and serves `world` there (start it with ``run()``).
    ///
    /// - Throws: `DBusError` when the bus cannot be reached or another service owns the name.
    public init(world: SimulatedWorld, bus address: String, pace: Double = 1) async throws(DBusError) {
        self.world = world
        self.pace = pace
        let (calls, arrived) = AsyncStream.makeStream(of: DBusMethodCall.self, bufferingPolicy: .unbounded)
        let (departures, departed) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .unbounded)
        self.calls = calls
        self.departures = departures
        bus = try await DBusConnection.open(.address(address))
        objects[Self.adapterPath] = [
            BlueZNames.adapter: [
                "Address": .string("0A:00:27:00:00:01"), "AddressType": .string("public"),
                "Name": .string("vitalbridge-simulator"), "Alias": .string("vitalbridge-simulator"),
                "Class": .uint32(0), "Powered": .boolean(true), "PowerState": .string("on"),
                "Discoverable": .boolean(false), "DiscoverableTimeout": .uint32(180), "Pairable": .boolean(true),
                "PairableTimeout": .uint32(0), "Discovering": .boolean(false), "UUIDs": .strings([]),
                "Modalias": .string("usb:v1D6Bp0246d0548"), "Roles": .strings(["central", "peripheral"]),
            ]
        ]
        objects[BlueZNames.managerPath] = [BlueZNames.agentManager: [:]]
        for configuration in world.configurations where configuration.paired && configuration.entry.reach == .bluetooth
        {
            addDevice(configuration.advertisement, heard: false)
        }
        do throws(DBusError) {
            // the objects are served before the name is taken: a client that sees org.bluez finds them
            let served = try await bus.serve("/") { arrived.yield($0) }
            let watch = try await bus.subscribe(
                "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged'"
            ) { signal in
                // a unique name whose owner is now none: a client left the bus
                if signal.arguments.count == 3, signal.arguments[2].string == "",
                    let name = signal.arguments[0].string, name.hasPrefix(":")
                {
                    departed.yield(name)
                }
            }
            registrations = [served, watch]
            try await bus.requestName(BlueZNames.service)
        } catch {
            bus.close()
            throw error
        }
    }

    /// Serves method calls, one at a time in the order they arrive, until the bus connection ends.
    public func run() async throws(DBusError) {
        let watching = Task { for await name in departures { await self.left(name) } }
        defer { watching.cancel() }
        let connecting = Task { await self.keepConnectingByThemselves() }
        defer { connecting.cancel() }
        let timekeeping = Task { await self.keepTime() }
        defer { timekeeping.cancel() }
        for await call in calls { await handle(call) }
    }

    /// Lets the world's time follow the real one at the pace, so that presence windows open and close while
    /// nothing is connected: every 100 ms of real time, the world's clock is moved to where the pace puts it,
    /// never back (a link's radio traffic moves it too, and waits as long). At pace 0 the world's time moves only
    /// with the radio.
    func keepTime() async {
        guard pace > 0 else { return }
        let (real, began) = (ContinuousClock(), world.clock.now)
        let start = real.now
        while !Task.isCancelled {
            try? await world.clock.sleep(until: began.advanced(by: (real.now - start) / pace))
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Client `name` left the bus: as bluetoothd does, its discovery stops, its notify sessions end (the device's
    /// indications are disabled, so it sends and forgets nothing more) and the links it connected go down.
    func left(_ name: String) async {
        discoverers.remove(name)
        filters[name] = nil
        agentLeft(name)
        for (path, device) in devices where device.client == name {
            guard let connection = device.connection else { continue }
            await connection.disconnect()
            disconnected(path)
        }
    }

    /// Devices that connect to the host by themselves (a fleet `presence` window with `"connects": true`), checked
    /// every 100 ms of real time: as such a window opens at the world's time, the paired device is connected as a
    /// client's `Connect` connects it, with no client (`Connected` and `ServicesResolved` turn true, its GATT objects
    /// are exported), once a window; it is disconnected when the window closes if no client did it first.
    func keepConnectingByThemselves() async {
        let devices = world.configurations.filter { device in device.presence.contains(where: \.connects) }
        guard !devices.isEmpty else { return }
        while !Task.isCancelled {
            let now = world.clock.wallTime
            for configuration in devices {
                let path = BlueZNames.devicePath(configuration.mac, adapter: Self.adapterPath)
                guard let device = self.devices[path] else { continue }
                guard let opened = configuration.connectsByItself(at: now) else {
                    if device.connection != nil, device.client == nil {
                        await device.connection?.disconnect()
                        disconnected(path)
                    }
                    continue
                }
                guard connectedByItself[configuration.mac] != opened, device.connection == nil,
                    let connection = try? await world.open(configuration.mac)
                else { continue }
                connectedByItself[configuration.mac] = opened
                // a client's Connect may have come in while the link opened: the device is read again
                guard var current = self.devices[path], current.connection == nil else {
                    await connection.disconnect()
                    continue
                }
                current.connection = connection
                current.client = nil
                self.devices[path] = current
                set(path, BlueZNames.device, [("Connected", .boolean(true))])
                await export(path, connection)
                set(path, BlueZNames.device, [("ServicesResolved", .boolean(true))])
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Stops serving and leaves the bus.
    public func close() {
        for registration in registrations { registration.cancel() }
        bus.close()
    }

    // MARK: Objects

    func emitAdded(_ path: String) {
        guard let interfaces = objects[path] else { return }
        bus.emit(
            "/", BlueZNames.objectManager, "InterfacesAdded", [.objectPath(path), Self.interfacesValue(interfaces)])
    }

    func remove(_ path: String) {
        guard let interfaces = objects.removeValue(forKey: path) else { return }
        bus.emit(
            "/", BlueZNames.objectManager, "InterfacesRemoved", [.objectPath(path), .strings(interfaces.keys.sorted())])
    }

    /// Sets properties of `interface` on `path` and signals the change.
    func set(_ path: String, _ interface: String, _ changes: [(String, DBusValue)]) {
        guard objects[path]?[interface] != nil else { return }
        for (name, value) in changes { objects[path]?[interface]?[name] = value }
        bus.emit(
            path, BlueZNames.properties, "PropertiesChanged", [.string(interface), .properties(changes), .strings([])])
    }

    static func propertiesValue(_ properties: [String: DBusValue]) -> DBusValue {
        .properties(properties.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    static func interfacesValue(_ interfaces: [String: [String: DBusValue]]) -> DBusValue {
        .dictionary(
            keySignature: "s", valueSignature: "a{sv}",
            interfaces.sorted { $0.key < $1.key }.map {
                DBusDictionaryEntry(key: .string($0.key), value: propertiesValue($0.value))
            })
    }

    /// Adds the `Device1` object of an advertising device, or refreshes its signal strength (plus `wavering` dB)
    /// when `heard`.
    func addDevice(_ advertisement: Advertisement, heard: Bool, wavering: Int = 0) {
        let path = BlueZNames.devicePath(advertisement.mac, adapter: Self.adapterPath)
        if objects[path] != nil {
            if heard { set(path, BlueZNames.device, [("RSSI", .int16(Int16(advertisement.rssi + wavering)))]) }
            return
        }
        var properties: [String: DBusValue] = [
            "Address": .string(BlueZNames.address(advertisement.mac)), "AddressType": .string("public"),
            "Name": .string(advertisement.localName), "Alias": .string(advertisement.localName),
            "Paired": .boolean(advertisement.isPaired), "Bonded": .boolean(advertisement.isPaired),
            "Trusted": .boolean(false), "Blocked": .boolean(false), "LegacyPairing": .boolean(false),
            "Connected": .boolean(false), "ServicesResolved": .boolean(false),
            "UUIDs": .strings(advertisement.services.map(BlueZNames.uuid)), "Adapter": .objectPath(Self.adapterPath),
        ]
        if heard { properties["RSSI"] = .int16(Int16(advertisement.rssi)) }
        objects[path] = [BlueZNames.device: properties]
        devices[path] = ServedDevice(mac: advertisement.mac, path: path)
        emitAdded(path)
    }
}

/// An `org.bluez.Error.<name>`.
func bluezError(_ name: String, _ message: String) -> DBusError {
    DBusError(name: "org.bluez.Error." + name, message: message)
}

/// A device the service has an object for, and its link while connected.
struct ServedDevice {
    let mac: MACAddress
    let path: String
    var connection: SimulatedConnection?
    /// The characteristics while connected, by their object path.
    var characteristics: [String: ServedCharacteristic] = [:]
    /// Descriptor paths → their characteristic's path (Client Characteristic Configuration descriptors).
    var descriptors: [String: String] = [:]
    /// Whether a task is letting the world's time pass to what the device sends by itself.
    var ticking = false
    /// The bus name of the client that connected the device: bluetoothd ends what a client set up when it leaves
    /// the bus.
    var client: String?
    /// Whether a drain is sending the device's queue (it waits out air time, so another would overtake it).
    var draining = false
    /// The pairing under way, if any.
    var pairing: PairingDialogue?
}

/// A connected device's characteristic.
struct ServedCharacteristic {
    let id: CharacteristicID
    let properties: GATTProperties
    var notifying = false
    /// The socket of an `AcquireNotify`, if one is open.
    var acquired: Int32?
}
