import DBus
import Logging
import VitalCore
import VitalDevices

/// The real transport on Linux: a `BluetoothCentral` that reaches Bluetooth Low Energy devices through BlueZ's
/// D-Bus API (`org.bluez`), on the system bus or any other.
///
/// - Scanning sets a discovery filter with the wanted services (`SetDiscoveryFilter`, LE only), starts discovery
///   and reports every device BlueZ hears for ``scanDuration``, paired ones BlueZ already knows first.
/// - Connecting to a device BlueZ does not know yet scans for it first (for ``scanDuration``), then calls
///   `Device1.Connect` and waits for `ServicesResolved`, each within ``connectTimeout``. A `Connect` that fails
///   for a passing reason (``BlueZRetryPolicy/isTransient(_:)``) is tried again, as the ``BlueZRetryPolicy`` says.
/// - ``pair(_:user:timeout:)`` pairs a device with a pairing agent of this process, asking the person through a
///   ``PairingUser``.
/// - Reads and writes go to `GattCharacteristic1` (`write` with response where the characteristic allows it,
///   else without); subscriptions use `StartNotify`, and values arrive as `Value` changes.
/// - BlueZ confirms an indication itself, before this process sees the value: `confirm()`
///   has nothing left to do. A device that deletes a record on confirmation has deleted it before the hub stores
///   it; the drivers store each value the moment it arrives, which keeps that window to one record.
/// - BlueZ's errors (`org.bluez.Error.*`) become `DeviceError` codes; a link that drops (`Connected` false) or a
///   device BlueZ removes ends the connection's events with `disconnected`.
///
/// Nothing blocks a caller's executor: D-Bus runs on a thread of its own (`DBusConnection`).
public final class BlueZCentral: BluetoothCentral {
    /// How long a scan listens.
    public let scanDuration: Duration
    /// How long connecting, and then resolving the device's services, may each take.
    public let connectTimeout: Duration
    let client: BlueZClient

    /// A central on the bus at `address` (the system bus by default), using the adapter named `adapter` (`hci0`)
    /// or else the first powered one with the central role; calls that fail for a passing reason are retried as
    /// `retryPolicy` says, each retry logged to `logger`.
    public init(
        bus address: DBusConnection.Address = .system, adapter: String? = nil, scanDuration: Duration = .seconds(5),
        connectTimeout: Duration = .seconds(20), logger: Logger,
        retryPolicy: BlueZRetryPolicy = .standard
    ) {
        self.scanDuration = scanDuration
        self.connectTimeout = connectTimeout
        client = BlueZClient(address: address, adapterName: adapter, logger: logger, retryPolicy: retryPolicy)
    }

    public func scan(for services: [UInt16]) -> AsyncStream<Advertisement> {
        let (stream, continuation) = AsyncStream.makeStream(of: Advertisement.self)
        let client = client
        let duration = scanDuration
        let task = Task {
            await client.scan(for: services, duration: duration, into: continuation)
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Only the generic SIG devices (900–905): the iHealth models and the smartbands speak vendor protocols with no
    /// public description, and guessing them could send a real device commands it does not expect.
    public func reaches(_ model: DeviceModel) -> Bool { model.isStandardProfile }

    /// The devices of the adapter BlueZ says are connected (`Device1.Connected`) that the hub did not connect.
    public func connectedPeripherals() async -> [MACAddress] {
        await client.connectedByThemselves()
    }

    public func connect(to mac: MACAddress) async throws(DeviceError) -> any BluetoothConnection {
        try await client.connect(to: mac, timeout: connectTimeout, scanDuration: scanDuration)
    }

    /// The adapters BlueZ has, for `vitalbridge scan` and the README's checks: their name (`hci0`), address,
    /// whether powered and whether they can be a central.
    public func adapters() async throws(DeviceError) -> [BlueZAdapter] {
        try await client.adapters()
    }

    /// Leaves the bus; connections still open end.
    public func close() async { await client.close() }
}

/// A Bluetooth adapter as BlueZ reports it.
public struct BlueZAdapter: Hashable, Sendable {
    /// Its name, e.g. `hci0`.
    public let name: String
    public let address: String
    public let powered: Bool
    /// Whether its `Roles` include `central` (BlueZ before 5.56 has no `Roles`: then `true`).
    public let central: Bool
}
