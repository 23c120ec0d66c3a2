import BlueZ
import DBus
import VitalCore
import VitalDevices
import VitalSimulation

#if canImport(Glibc)
    import Glibc
#endif

extension SimulatedBlueZ {
    // MARK: org.bluez.GattCharacteristic1

    func characteristic(_ call: DBusMethodCall) async throws(DBusError) {
        let message = call.message
        let path = message.path
        guard let devicePath = owner(ofCharacteristic: path), let device = devices[devicePath],
            let connection = device.connection, var characteristic = device.characteristics[path]
        else { throw unknownObject(path) }
        let properties = characteristic.properties
        switch message.member {
        case "ReadValue":
            guard properties.contains(.read) else { throw bluezError("NotPermitted", "Read not permitted") }
            let value = try await perform(devicePath) { () throws(DeviceError) in
                try await connection.read(characteristic.id)
            }
            set(path, BlueZNames.characteristic, [("Value", .bytes(value))])
            call.reply([.bytes(value)])
        case "WriteValue":
            guard let value = message.arguments.first?.byteArray else {
                throw bluezError("InvalidArguments", "Invalid arguments in method call")
            }
            let type = message.arguments.count > 1 ? message.arguments[1].dictionary?["type"]?.string : nil
            let allowed: Bool =
                switch type {
                case "command": properties.contains(.writeWithoutResponse)
                case "request", "reliable": properties.contains(.write)
                case nil: !properties.isDisjoint(with: [.write, .writeWithoutResponse])
                default: false
                }
            guard allowed else { throw bluezError("NotPermitted", "Write not permitted") }
            try await perform(devicePath) { () throws(DeviceError) in
                try await connection.write(characteristic.id, value)
            }
            call.reply()
        case "StartNotify":
            guard !properties.isDisjoint(with: [.notify, .indicate]) else {
                throw bluezError("NotSupported", "Operation is not supported")
            }
            guard characteristic.acquired == nil else { throw bluezError("NotPermitted", "Notify acquired") }
            if !characteristic.notifying {
                try await perform(devicePath) { () throws(DeviceError) in
                    try await connection.subscribe(characteristic.id)
                }
                devices[devicePath]?.characteristics[path]?.notifying = true
                set(path, BlueZNames.characteristic, [("Notifying", .boolean(true))])
            }
            call.reply()
        case "StopNotify":
            guard characteristic.notifying, characteristic.acquired == nil else {
                throw bluezError("Failed", "No notify session started")
            }
            devices[devicePath]?.characteristics[path]?.notifying = false
            set(path, BlueZNames.characteristic, [("Notifying", .boolean(false))])
            call.reply()
        case "AcquireNotify":
            guard properties.contains(.notify) else { throw bluezError("NotSupported", "Operation is not supported") }
            guard !characteristic.notifying else { throw bluezError("InProgress", "Notify already started") }
            var ends: [Int32] = [0, 0]
            guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0
            else { throw bluezError("Failed", "Failed to create sockets") }
            try await perform(devicePath) { () throws(DeviceError) in try await connection.subscribe(characteristic.id)
            }
            characteristic.notifying = true
            characteristic.acquired = ends[0]
            devices[devicePath]?.characteristics[path] = characteristic
            set(path, BlueZNames.characteristic, [("NotifyAcquired", .boolean(true)), ("Notifying", .boolean(true))])
            let mtu = await connection.mtu
            call.reply([.unixFD(ends[1]), .uint16(UInt16(clamping: mtu))], closing: [ends[1]])
        default:
            throw DBusError(name: DBusError.unknownMethod, message: "Unknown method \(message.member)")
        }
        await deliver(devicePath)
    }

    /// Runs a GATT operation of the device at `path`, mapping the device's errors to BlueZ's: the ATT error the
    /// device's server answered with (0x80 for a User Data Service's user data before a consent, 0xFD for a control
    /// point written without its indications enabled), else 0x0E (unlikely error).
    func perform<T>(_ path: String, _ operation: () async throws(DeviceError) -> T) async throws(DBusError) -> T {
        do {
            return try await operation()
        } catch {
            if error.code == .disconnected {
                disconnected(path)
                // bluetoothd's answer to a GATT operation on a device whose link is down
                throw bluezError("NotConnected", "Not Connected")
            }
            // as bluetoothd words a remote ATT error: two lower-case hexadecimal digits
            let code = String(error.simulatedATTError ?? 0x0E, radix: 16)
            throw bluezError("Failed", "Operation failed with ATT error: 0x" + (code.count < 2 ? "0" : "") + code)
        }
    }

    // MARK: What devices send

    /// Sends on everything the device at `path` has queued, confirming indications as bluetoothd does; then, if the
    /// device sends things by itself, lets the world's time pass to them at the service's pace.
    func deliver(_ path: String) async {
        await drain(path)
        startTicking(path)
    }

    /// Sends on everything the device at `path` has queued now, each value once its air time (the fleet's radio
    /// timing, at the service's pace) has passed.
    func drain(_ path: String) async {
        // one drain at a time sends a device's values, in order; it sends what is queued meanwhile too
        guard devices[path]?.draining == false else { return }
        devices[path]?.draining = true
        defer { devices[path]?.draining = false }
        while let connection = devices[path]?.connection {
            let event: GATTEvent?
            let before = world.clock.elapsedTime
            do {
                event = try await world.pendingEvent(on: connection)
            } catch {
                disconnected(path)
                return
            }
            guard let event else { return }
            let airTime = world.clock.elapsedTime - before
            if pace > 0, airTime > .zero { try? await Task.sleep(for: airTime * pace) }
            switch event {
            case .notification(let id, let value):
                send(value, on: id, of: path)
            case .indication(let id, let value, let token):
                try? await connection.confirm(token)
                send(value, on: id, of: path)
            }
        }
    }

    /// Hands a value to the client: through its acquired socket, else as a `Value` change.
    func send(_ value: [UInt8], on id: CharacteristicID, of devicePath: String) {
        guard let (path, characteristic) = devices[devicePath]?.characteristics.first(where: { $0.value.id == id })
        else { return }
        if let socket = characteristic.acquired {
            let sent = value.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 {
                // the client closed its end: its notify session is over
                Glibc.close(socket)
                devices[devicePath]?.characteristics[path]?.acquired = nil
                devices[devicePath]?.characteristics[path]?.notifying = false
                set(
                    path, BlueZNames.characteristic,
                    [("NotifyAcquired", .boolean(false)), ("Notifying", .boolean(false))])
            }
        } else if characteristic.notifying {
            set(path, BlueZNames.characteristic, [("Value", .bytes(value))])
        }
    }

    /// Starts letting the world's time pass for the device at `path`, if it is not already.
    func startTicking(_ path: String) {
        guard let device = devices[path], device.connection != nil, !device.ticking,
            device.characteristics.values.contains(where: \.notifying)
        else { return }
        devices[path]?.ticking = true
        Task { await self.tick(path) }
    }

    /// Lets the world's time pass to what the device sends next, waits as long in real time (times the pace), and
    /// delivers it; stops when the device has nothing more to send by itself or disconnects.
    func tick(_ path: String) async {
        defer { devices[path]?.ticking = false }
        while let connection = devices[path]?.connection,
            devices[path]?.characteristics.values.contains(where: \.notifying) == true
        {
            let step: Duration?
            do {
                step = try await world.advance(on: connection)
            } catch {
                disconnected(path)
                return
            }
            guard let step else { return }
            if pace > 0 { try? await Task.sleep(for: step * pace) }
            await drain(path)
        }
    }
}
