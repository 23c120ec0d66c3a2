import HealthGATT
import VitalCore

/// A characteristic of a service, both by their 16-bit UUIDs.
public struct CharacteristicID: Hashable, Sendable, CustomStringConvertible {
    public let service: UInt16
    public let characteristic: UInt16

    public init(service: UInt16, characteristic: UInt16) {
        self.service = service
        self.characteristic = characteristic
    }

    public var description: String {
        "\(String(service, radix: 16, uppercase: true))/\(String(characteristic, radix: 16, uppercase: true))"
    }
}

/// What a peripheral advertises while the central scans.
public struct Advertisement: Hashable, Sendable {
    public let mac: MACAddress
    /// The advertised local name, e.g. `BP5 11070`.
    public let localName: String
    /// The primary services advertised.
    public let services: [UInt16]
    /// Whether the phone has bonded with the device before.
    public let isPaired: Bool
    public let rssi: Int
    /// Whether the device was heard advertising just now. BlueZ also reports the devices it knows (paired before)
    /// that are not advertising, with no signal strength: those are not heard.
    public let isHeard: Bool
    /// Whether the device is connected to the host by a link the central did not make: a bonded device that
    /// connected by itself (``BluetoothCentral/connectedPeripherals()``). A scan reports such a device again the
    /// moment it connects, so that it is served at once rather than at the next scan.
    public let isConnected: Bool

    public init(
        mac: MACAddress, localName: String, services: [UInt16], isPaired: Bool, rssi: Int, isHeard: Bool = true,
        isConnected: Bool = false
    ) {
        self.mac = mac
        self.localName = localName
        self.services = services
        self.isPaired = isPaired
        self.rssi = rssi
        self.isHeard = isHeard
        self.isConnected = isConnected
    }
}

extension Advertisement {
    /// Whether the advertiser is a device of `model`: it advertises the model's profile service and, for a model
    /// with a vendor protocol, names itself as the model (`BP5 11070`). A generic SIG device (900–905) may be of
    /// any maker and have any name, except one of a catalog model with a vendor protocol, which is that model.
    public func isDevice(of model: DeviceModel) -> Bool {
        guard services.contains(DeviceCatalog.entry(for: model).profile.serviceUUID) else { return false }
        func named(_ model: DeviceModel) -> Bool { localName.hasPrefix(model.name + " ") }
        guard model.isStandardProfile else { return named(model) }
        return !DeviceModel.allCases.contains { !$0.isStandardProfile && named($0) }
    }
}

/// Confirms one indication; the central sends the ATT confirmation only when the driver calls it.
public struct IndicationToken: Hashable, Sendable {
    public let id: UInt64
    public init(id: UInt64) { self.id = id }
}

/// A value a peripheral sent on a subscribed characteristic, or the end of the link.
public enum GATTEvent: Hashable, Sendable {
    /// A notification: no confirmation.
    case notification(CharacteristicID, [UInt8])
    /// An indication: the peripheral sends nothing more on the link until ``BluetoothConnection/confirm(_:)``.
    case indication(CharacteristicID, [UInt8], IndicationToken)
}

/// The transport seam: scanning and connecting. The simulator implements it on this machine; a CoreBluetooth or
/// BlueZ implementation plugs in on a phone, and the drivers do not change.
public protocol BluetoothCentral: Sendable {
    /// Advertisements of peripherals in range that advertise one of `services`, as they are heard.
    func scan(for services: [UInt16]) -> AsyncStream<Advertisement>
    /// Connects to the peripheral `mac`.
    func connect(to mac: MACAddress) async throws(DeviceError) -> any BluetoothConnection
    /// Whether the central can speak to devices of `model` at all (a real radio reaches only devices whose
    /// protocol is public); the hub refuses a request for any other before touching a device.
    func reaches(_ model: DeviceModel) -> Bool
    /// The peripherals connected to the host now that the central did not connect: a bonded device that connects to
    /// its host by itself after a measurement (BlueZ's `Device1.Connected`), and is then reached through
    /// ``connect(to:)`` without advertising.
    func connectedPeripherals() async -> [MACAddress]
}

extension BluetoothCentral {
    /// Every model: the simulator speaks every protocol.
    public func reaches(_ model: DeviceModel) -> Bool { true }
    /// None: a central that cannot tell leaves every device to its advertising.
    public func connectedPeripherals() async -> [MACAddress] { [] }
}

/// An open link to one peripheral.
///
/// Events arrive in order through ``nextEvent()``; an indication holds back everything after it until the driver
/// confirms it, so a device that deletes a record on confirmation never runs ahead of the hub's store.
public protocol BluetoothConnection: Sendable {
    var peripheral: MACAddress { get }
    /// The negotiated ATT MTU.
    var mtu: Int { get async }
    func read(_ characteristic: CharacteristicID) async throws(DeviceError) -> [UInt8]
    func write(_ characteristic: CharacteristicID, _ value: [UInt8]) async throws(DeviceError)
    /// Enables notifications or indications, whichever the characteristic has.
    func subscribe(_ characteristic: CharacteristicID) async throws(DeviceError)
    /// The next notification or indication; throws ``DeviceError/Code/disconnected`` when the link drops.
    func nextEvent() async throws(DeviceError) -> GATTEvent
    /// The next notification or indication, or `nil` when none arrives within `timeout` (the link stays up): how a
    /// driver learns that a device which announces no end of its transfer has nothing more to send.
    func nextEvent(within timeout: Duration) async throws(DeviceError) -> GATTEvent?
    /// Whether the peripheral's GATT table has `characteristic` (a scale's optional Body Composition).
    func offers(_ characteristic: CharacteristicID) async -> Bool
    /// Sends the ATT confirmation of an indication.
    func confirm(_ token: IndicationToken) async throws(DeviceError)
    func disconnect() async
}

extension BluetoothConnection {
    /// The events as an async sequence (ends by throwing when the link drops).
    public var events: GATTEvents { GATTEvents(connection: self) }
}

/// ``BluetoothConnection/nextEvent()`` as an `AsyncSequence`.
public struct GATTEvents: AsyncSequence, Sendable {
    public typealias Element = GATTEvent
    let connection: any BluetoothConnection

    public struct AsyncIterator: AsyncIteratorProtocol {
        let connection: any BluetoothConnection
        public mutating func next() async throws(DeviceError) -> GATTEvent? { try await connection.nextEvent() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(connection: connection) }
}

/// The standard and vendor characteristics the drivers use.
public enum GATTCharacteristics {
    public static let bloodPressureMeasurement = CharacteristicID(service: 0x1810, characteristic: 0x2A35)
    public static let intermediateCuffPressure = CharacteristicID(service: 0x1810, characteristic: 0x2A36)
    public static let glucoseMeasurement = CharacteristicID(service: 0x1808, characteristic: 0x2A18)
    public static let glucoseContext = CharacteristicID(service: 0x1808, characteristic: 0x2A34)
    public static let glucoseRACP = CharacteristicID(service: 0x1808, characteristic: 0x2A52)
    public static let weightMeasurement = CharacteristicID(service: 0x181D, characteristic: 0x2A9D)
    public static let bodyComposition = CharacteristicID(service: 0x181B, characteristic: 0x2A9C)
    public static let temperatureMeasurement = CharacteristicID(service: 0x1809, characteristic: 0x2A1C)
    public static let plxSpotCheck = CharacteristicID(service: 0x1822, characteristic: 0x2A5E)
    public static let plxContinuous = CharacteristicID(service: 0x1822, characteristic: 0x2A5F)
    public static let plxRACP = CharacteristicID(service: 0x1822, characteristic: 0x2A52)
    public static let serialNumber = CharacteristicID(service: 0x180A, characteristic: 0x2A25)
    public static let firmwareRevision = CharacteristicID(service: 0x180A, characteristic: 0x2A26)
    public static let batteryLevel = CharacteristicID(service: 0x180F, characteristic: 0x2A19)
    public static let currentTime = CharacteristicID(service: CurrentTime.service, characteristic: CurrentTime.uuid)
    public static let heartRateMeasurement = CharacteristicID(service: 0x180D, characteristic: 0x2A37)
    public static let bandControlPoint = CharacteristicID(
        service: SmartbandGATT.service, characteristic: SmartbandGATT.controlPoint)
    public static let bandData = CharacteristicID(service: SmartbandGATT.service, characteristic: SmartbandGATT.data)
    public static let vendorControlPoint = CharacteristicID(
        service: VendorGATT.controlService, characteristic: VendorGATT.controlPoint)
    public static let vendorStatus = CharacteristicID(
        service: VendorGATT.controlService, characteristic: VendorGATT.status)
    public static let activityRecords = CharacteristicID(
        service: VendorGATT.activityService, characteristic: VendorGATT.activityRecords)
    /// The User Data Service (0x181C) of a multi-user device: its User Control Point (register, consent, delete).
    public static let userControlPoint = CharacteristicID(
        service: UserDataService.uuid, characteristic: UserControlPoint.uuid)
    /// The index of the user the host consented as (255 before a consent).
    public static let userIndex = CharacteristicID(service: UserDataService.uuid, characteristic: UserIndex.uuid)
    /// The consented user's data version.
    public static let databaseChangeIncrement = CharacteristicID(
        service: UserDataService.uuid, characteristic: DatabaseChangeIncrement.uuid)
    /// The consented user's data: First Name, Age, Date of Birth, Gender and Height.
    public static let firstName = CharacteristicID(service: UserDataService.uuid, characteristic: FirstName.uuid)
    public static let age = CharacteristicID(service: UserDataService.uuid, characteristic: Age.uuid)
    public static let dateOfBirth = CharacteristicID(service: UserDataService.uuid, characteristic: DateOfBirth.uuid)
    public static let gender = CharacteristicID(service: UserDataService.uuid, characteristic: Gender.uuid)
    public static let height = CharacteristicID(service: UserDataService.uuid, characteristic: Height.uuid)
}

/// What a characteristic allows, as its declaration says.
public struct GATTProperties: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let read = GATTProperties(rawValue: 0x02)
    public static let writeWithoutResponse = GATTProperties(rawValue: 0x04)
    public static let write = GATTProperties(rawValue: 0x08)
    public static let notify = GATTProperties(rawValue: 0x10)
    public static let indicate = GATTProperties(rawValue: 0x20)
}

/// One service of a peripheral's GATT table, with its characteristics.
public struct GATTServiceLayout: Hashable, Sendable {
    public let uuid: UInt16
    public let characteristics: [GATTCharacteristicLayout]

    public init(uuid: UInt16, characteristics: [GATTCharacteristicLayout]) {
        self.uuid = uuid
        self.characteristics = characteristics
    }
}

/// One characteristic of a ``GATTServiceLayout``.
public struct GATTCharacteristicLayout: Hashable, Sendable {
    public let uuid: UInt16
    public let properties: GATTProperties

    public init(uuid: UInt16, properties: GATTProperties) {
        self.uuid = uuid
        self.properties = properties
    }
}
