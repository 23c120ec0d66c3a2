import BlueZ
import DBus
import VitalCore
import VitalDevices
import VitalSimulation

#if canImport(Glibc)
    import Glibc
#endif

extension SimulatedBlueZ {
    /// Answers one method call.
    func handle(_ call: DBusMethodCall) async {
        let message = call.message
        do throws(DBusError) {
            switch (message.interface, message.member) {
            case (BlueZNames.objectManager, "GetManagedObjects") where message.path == "/":
                call.reply([managedObjects()])
            case (BlueZNames.properties, _): try properties(call)
            case (BlueZNames.introspectable, "Introspect"): call.reply([.string(introspection(of: message.path))])
            case (BlueZNames.adapter, _) where message.path == Self.adapterPath: try await adapter(call)
            case (BlueZNames.agentManager, _) where message.path == BlueZNames.managerPath: try agentManager(call)
            case (BlueZNames.device, _): try await device(call)
            case (BlueZNames.characteristic, _): try await characteristic(call)
            case (BlueZNames.descriptor, "ReadValue"):
                guard let (device, path) = owner(ofDescriptor: message.path),
                    let characteristic = devices[device]?.characteristics[path]
                else { throw unknownObject(message.path) }
                call.reply([
                    .bytes([characteristic.notifying ? (characteristic.properties.contains(.notify) ? 1 : 2) : 0, 0])
                ])
            default:
                guard objects[message.path] != nil || message.path == "/" else { throw unknownObject(message.path) }
                throw DBusError(
                    name: DBusError.unknownMethod,
                    message: "Unknown method \(message.member) or interface \(message.interface).")
            }
        } catch {
            call.fail(error)
        }
    }

    func unknownObject(_ path: String) -> DBusError {
        DBusError(name: DBusError.unknownObject, message: "Unknown object '\(path)'")
    }

    func managedObjects() -> DBusValue {
        .dictionary(
            keySignature: "o", valueSignature: "a{sa{sv}}",
            objects.sorted { $0.key < $1.key }.map {
                DBusDictionaryEntry(key: .objectPath($0.key), value: Self.interfacesValue($0.value))
            })
    }

    func introspection(of path: String) -> String {
        let prefix = path == "/" ? "/" : path + "/"
        var children = Set<String>()
        for objectPath in objects.keys where objectPath.hasPrefix(prefix) {
            if let child = objectPath.dropFirst(prefix.count).split(separator: "/").first {
                children.insert(String(child))
            }
        }
        if path == "/" { children.insert("org") }
        let interfaces = (objects[path]?.keys.sorted() ?? []).map { "<interface name=\"\($0)\"/>" }
        let nodes = children.sorted().map { "<node name=\"\($0)\"/>" }
        return "<node>" + (interfaces + nodes).joined() + "</node>"
    }

    // MARK: org.freedesktop.DBus.Properties

    func properties(_ call: DBusMethodCall) throws(DBusError) {
        let message = call.message
        let arguments = message.arguments
        guard let interface = arguments.first?.string else {
            throw DBusError(name: DBusError.invalidArgs, message: "the interface name is missing")
        }
        guard let properties = objects[message.path]?[interface] else {
            throw DBusError(name: DBusError.invalidArgs, message: "No such interface '\(interface)'")
        }
        switch message.member {
        case "GetAll":
            call.reply([Self.propertiesValue(properties)])
        case "Get":
            guard arguments.count == 2, let name = arguments[1].string, let value = properties[name] else {
                throw DBusError(name: DBusError.invalidArgs, message: "No such property")
            }
            call.reply([.variant(value)])
        case "Set":
            guard arguments.count == 3, let name = arguments[1].string, case .variant(let value) = arguments[2] else {
                throw DBusError(name: DBusError.invalidArgs, message: "Set takes an interface, a name and a variant")
            }
            let writable: Set<String> =
                switch interface {
                case BlueZNames.adapter: ["Alias", "Powered", "Discoverable", "Pairable", "DiscoverableTimeout"]
                case BlueZNames.device: ["Alias", "Trusted", "Blocked"]
                default: []
                }
            guard writable.contains(name), let current = properties[name] else {
                throw DBusError(name: "org.freedesktop.DBus.Error.PropertyReadOnly", message: "\(name) is read-only")
            }
            guard current.signature == value.signature else {
                throw bluezError("InvalidArguments", "Invalid arguments in method call")
            }
            set(message.path, interface, [(name, value)])
            call.reply()
        default:
            throw DBusError(name: DBusError.unknownMethod, message: "Unknown method \(message.member)")
        }
    }

    // MARK: org.bluez.Adapter1

    func adapter(_ call: DBusMethodCall) async throws(DBusError) {
        let message = call.message
        switch message.member {
        case "SetDiscoveryFilter":
            guard message.arguments.count == 1, let filter = message.arguments[0].dictionary else {
                throw bluezError("InvalidArguments", "Invalid arguments in method call")
            }
            if let uuids = filter["UUIDs"] {
                guard let list = uuids.strings else { throw bluezError("InvalidArguments", "UUIDs is not a list") }
                filters[message.sender] = list.map { $0.lowercased() }
            } else {
                filters[message.sender] = nil
            }
            call.reply()
        case "GetDiscoveryFilters":
            call.reply([
                .strings(["UUIDs", "RSSI", "Pathloss", "Transport", "DuplicateData", "Discoverable", "Pattern"])
            ])
        case "StartDiscovery":
            discoverers.insert(message.sender)
            if objects[Self.adapterPath]?[BlueZNames.adapter]?["Discovering"] != .boolean(true) {
                set(Self.adapterPath, BlueZNames.adapter, [("Discovering", .boolean(true))])
            }
            call.reply()
            await discover(for: message.sender, round: 0)
            if !advertising {
                advertising = true
                Task { await self.keepAdvertising() }
            }
        case "StopDiscovery":
            guard discoverers.remove(message.sender) != nil else { throw bluezError("Failed", "No discovery started") }
            if discoverers.isEmpty {
                set(Self.adapterPath, BlueZNames.adapter, [("Discovering", .boolean(false))])
                // as bluetoothd, once no one discovers: a device's signal strength says it was heard just now
                for path in devices.keys.sorted() where objects[path]?[BlueZNames.device]?["RSSI"] != nil {
                    objects[path]?[BlueZNames.device]?["RSSI"] = nil
                    bus.emit(
                        path, BlueZNames.properties, "PropertiesChanged",
                        [.string(BlueZNames.device), .properties([]), .strings(["RSSI"])])
                }
            }
            call.reply()
        case "RemoveDevice":
            guard let path = message.arguments.first?.string, let device = devices[path] else {
                throw bluezError("DoesNotExist", "Does Not Exist")
            }
            if let connection = device.connection {
                await connection.disconnect()
                disconnected(path)
            }
            devices[path] = nil
            remove(path)
            call.reply()
        default:
            throw DBusError(name: DBusError.unknownMethod, message: "Unknown method \(message.member)")
        }
    }

    /// Every device in range whose service the discovery filter of `client` admits is heard; its signal strength
    /// wavers by a decibel from round to round, as a real one does.
    func discover(for client: String, round: Int) async {
        let wanted = filters[client] ?? []
        for await advertisement in world.scan(for: []) {
            guard wanted.isEmpty || advertisement.services.contains(where: { wanted.contains(BlueZNames.uuid($0)) })
            else {
                continue
            }
            addDevice(advertisement, heard: true, wavering: round % 3 - 1)
        }
    }

    /// Devices advertise again and again: while anyone discovers, every device in range is heard every 100 ms of
    /// real time (a client that starts listening just after `StartDiscovery` still hears everything).
    func keepAdvertising() async {
        defer { advertising = false }
        var round = 1
        while !discoverers.isEmpty {
            try? await Task.sleep(for: .milliseconds(100))
            for client in discoverers { await discover(for: client, round: round) }
            round += 1
        }
    }

    // MARK: org.bluez.Device1

    func device(_ call: DBusMethodCall) async throws(DBusError) {
        let message = call.message
        guard var device = devices[message.path] else { throw unknownObject(message.path) }
        switch message.member {
        case "Connect":
            guard device.connection == nil else { throw bluezError("AlreadyConnected", "Already Connected") }
            try abortFirstAttempt(device.mac)
            if configuration(of: device.mac)?.pairing?.required == true,
                objects[device.path]?[BlueZNames.device]?["Paired"] != .boolean(true)
            {
                throw bluezError("NotAuthorized", "Not Authorized: the device requires pairing")
            }
            let connection: SimulatedConnection
            do {
                connection = try await world.open(device.mac)
            } catch {
                if error.code == .timedOut {
                    // a device that does not answer: the kernel gives up after its LE connection timeout
                    let timeout = bluezError("Failed", "Page Timeout")
                    Task {
                        try? await Task.sleep(for: Self.pageTimeout)
                        call.fail(timeout)
                    }
                    return
                }
                throw bluezError(
                    "Failed", error.code == .notFound ? "Page Timeout" : "Software caused connection abort")
            }
            device.connection = connection
            device.client = message.sender
            devices[device.path] = device
            set(device.path, BlueZNames.device, [("Connected", .boolean(true))])
            await export(device.path, connection)
            set(device.path, BlueZNames.device, [("ServicesResolved", .boolean(true))])
            call.reply()
        case "Disconnect":
            guard let connection = device.connection else { throw bluezError("NotConnected", "Not Connected") }
            await connection.disconnect()
            // bluetoothd answers the pending Disconnect before it signals the changes (its property changes wait
            // for an idle moment); bleak closes its connection's bus when it sees Connected turn false, so a reply
            // sent after that signal could find the bus gone
            call.reply()
            disconnected(device.path)
        case "Pair":
            try pair(call, device)
        case "CancelPairing":
            try cancelPairing(device)
            call.reply()
        default:
            throw DBusError(name: DBusError.unknownMethod, message: "Unknown method \(message.member)")
        }
    }

    /// Exports the GATT objects of the device at `path`, handles as BlueZ numbers them.
    func export(_ path: String, _ connection: any BluetoothConnection) async {
        let mtu = await connection.mtu
        var handle: UInt16 = 0x000A
        func hex(_ value: UInt16) -> String {
            let text = String(value, radix: 16)
            return String(repeating: "0", count: 4 - text.count) + text
        }
        for service in world.services(of: connection.peripheral) {
            let servicePath = path + "/service" + hex(handle)
            objects[servicePath] = [
                BlueZNames.gattService: [
                    "UUID": .string(BlueZNames.uuid(service.uuid)), "Device": .objectPath(path),
                    "Primary": .boolean(true),
                    "Handle": .uint16(handle),
                ]
            ]
            emitAdded(servicePath)
            handle += 1
            for characteristic in service.characteristics {
                let characteristicPath = servicePath + "/char" + hex(handle)
                var properties: [String: DBusValue] = [
                    "UUID": .string(BlueZNames.uuid(characteristic.uuid)), "Service": .objectPath(servicePath),
                    "Value": .bytes([]), "Flags": .strings(BlueZNames.flags(characteristic.properties)),
                    "MTU": .uint16(UInt16(clamping: mtu)), "Handle": .uint16(handle),
                ]
                let subscribable = !characteristic.properties.isDisjoint(with: [.notify, .indicate])
                if subscribable { properties["Notifying"] = .boolean(false) }
                if characteristic.properties.contains(.notify) { properties["NotifyAcquired"] = .boolean(false) }
                objects[characteristicPath] = [BlueZNames.characteristic: properties]
                devices[path]?.characteristics[characteristicPath] = ServedCharacteristic(
                    id: CharacteristicID(service: service.uuid, characteristic: characteristic.uuid),
                    properties: characteristic.properties)
                emitAdded(characteristicPath)
                handle += 2
                if subscribable {
                    let descriptorPath = characteristicPath + "/desc" + hex(handle)
                    objects[descriptorPath] = [
                        BlueZNames.descriptor: [
                            "UUID": .string(BlueZNames.uuid(0x2902)), "Characteristic": .objectPath(characteristicPath),
                            "Value": .bytes([]), "Handle": .uint16(handle),
                        ]
                    ]
                    devices[path]?.descriptors[descriptorPath] = characteristicPath
                    emitAdded(descriptorPath)
                    handle += 1
                }
            }
        }
    }

    /// The device at `path` lost its link: its GATT objects go, acquired sockets close, and it says so.
    func disconnected(_ path: String) {
        guard var device = devices[path], device.connection != nil else { return }
        for characteristic in device.characteristics.values {
            if let socket = characteristic.acquired { Glibc.close(socket) }
        }
        let gattPaths = objects.keys.filter { $0.hasPrefix(path + "/") }.sorted(by: >)
        device.connection = nil
        device.characteristics = [:]
        device.descriptors = [:]
        devices[path] = device
        set(path, BlueZNames.device, [("ServicesResolved", .boolean(false))])
        for gattPath in gattPaths { remove(gattPath) }
        set(path, BlueZNames.device, [("Connected", .boolean(false))])
    }

    func owner(ofDescriptor path: String) -> (device: String, characteristic: String)? {
        for (devicePath, device) in devices {
            if let characteristic = device.descriptors[path] { return (devicePath, characteristic) }
        }
        return nil
    }

    func owner(ofCharacteristic path: String) -> String? {
        devices.first { $0.value.characteristics[path] != nil }?.key
    }
}
