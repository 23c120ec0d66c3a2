import HealthGATT
import VitalCore
import VitalDevices

/// What the world offers a transport that serves it to other processes (a BlueZ-compatible service on D-Bus):
/// each device's GATT table, and its link's events without a central waiting in the same process.
extension SimulatedDeviceConfiguration {
    /// What the device advertises: its model's name with the end of its serial number (of its MAC without one), its
    /// profile's service
    /// (and the Body Composition Service, on a scale that has it), and a signal strength drawn from its MAC.
    public var advertisement: Advertisement {
        Advertisement(
            mac: mac, localName: "\(entry.model.name) \((serial ?? mac.description).suffix(4))",
            services: [entry.profile.serviceUUID] + (bodyComposition == nil ? [] : [0x181B]),
            isPaired: paired, rssi: -40 - Int(mac.value % 40))
    }
}

extension SimulatedWorld {
    /// The GATT table device `mac` serves: Device Information, Battery, its profile's service (or services) and
    /// the vendor service its family uses, as its simulated peripheral describes them; empty for a MAC the fleet
    /// does not have.
    public nonisolated func services(of mac: MACAddress) -> [GATTServiceLayout] {
        guard let configuration = configurations.first(where: { $0.mac == mac }) else { return [] }
        return peripheralType(of: configuration.entry.family).services(of: configuration)
    }

    /// Whether device `mac`'s GATT table has `characteristic`.
    nonisolated func offers(_ characteristic: CharacteristicID, on mac: MACAddress) -> Bool {
        services(of: mac).contains { service in
            service.uuid == characteristic.service
                && service.characteristics.contains { $0.uuid == characteristic.characteristic }
        }
    }

    /// The next event the device has queued on `connection`'s link, without waiting for more: `nil` when it has
    /// nothing to send now. The fleet's radio timing moves the world's time on as the device sends. Unlike `BluetoothConnection.nextEvent()`, an idle link stays up: the central is in
    /// another process and may simply not be waiting.
    ///
    /// - Throws: `DeviceError.Code.disconnected` when the link dropped (the event the device sent last).
    public func pendingEvent(on connection: SimulatedConnection) throws(DeviceError) -> GATTEvent? {
        let link = try servedLink(connection)
        pump(link)
        guard let pending = link.dequeue() else { return nil }
        switch pending {
        case .drop:
            drop(link)
            throw DeviceError(.disconnected, message: "the link to \(connection.peripheral) dropped")
        case .event(let event):
            if link.runtime.dropsLink() {
                drop(link)
                throw DeviceError(.disconnected, message: "the link to \(connection.peripheral) dropped")
            }
            radioSent(link)
            return event
        }
    }

    /// Lets the world's time pass to what the device on `connection` sends next by itself (a heartbeat, a band's
    /// item) and queues it; returns how much of the world's time passed, or `nil` if the device sends nothing by
    /// itself now.
    public func advance(on connection: SimulatedConnection) throws(DeviceError) -> Duration? {
        let link = try servedLink(connection)
        let before = clock.elapsedTime
        guard link.isIdle, waitForMore(on: link, until: nil) else { return nil }
        return clock.elapsedTime - before
    }

    private func servedLink(_ connection: SimulatedConnection) throws(DeviceError) -> Link {
        guard connection.world === self else {
            throw DeviceError(.protocolViolation, message: "not a connection of this world")
        }
        return try link(connection.peripheral, connection.linkID)
    }
}

extension DeviceError {
    /// The ATT error a simulated device's GATT server refuses a request with when the central has not enabled the
    /// indications of the control point it writes (0xFD, Client Characteristic Configuration Descriptor Improperly
    /// Configured).
    static let cccdImproperlyConfigured: UInt8 = 0xFD

    /// The error of a request a simulated device's GATT server refuses with the ATT error `code`: `reason`, then the
    /// code and its `name`, if given, in parentheses (`… (ATT error 0x80)`), as ``simulatedATTError`` reads it back.
    static func att(_ code: UInt8, _ reason: String, name: String? = nil) -> DeviceError {
        let hex = String(code, radix: 16, uppercase: true)
        let digits = (code < 0x10 ? "0" : "") + hex
        return DeviceError(
            .protocolViolation, message: "\(reason) (ATT error 0x\(digits)\(name.map { ", " + $0 } ?? ""))")
    }

    /// The ATT error code of an error a simulated device's GATT server answered a read or write with (made by
    /// ``att(_:_:name:)``), for a transport serving the world to answer as bluetoothd does
    /// (`Operation failed with ATT error: 0x80`); `nil` for any other error.
    public var simulatedATTError: UInt8? {
        guard code == .protocolViolation, let marker = message.firstRange(of: " (ATT error 0x") else { return nil }
        return UInt8(message[marker.upperBound...].prefix(2), radix: 16)
    }
}
