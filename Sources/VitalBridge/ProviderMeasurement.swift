import LayeredProtocol
import Logging
import VitalCore
import VitalDevices
import VitalStore

/// A live reading a provider protocol (ShareVitalSigns, Welltory DDS) asks the engine for: measured on a device
/// of the home of `family` that the transport reaches, chosen like a layered request's device.
struct ProviderMeasurement: Sendable {
    var family: DeviceFamily
    var options = MeasureOptions()
    /// The device the request names, if it names one.
    var device: MACAddress?
}

/// Why a provider's measurement gave no reading; the description, for standard error, holds no health value.
struct ProviderFailure: Error, CustomStringConvertible {
    enum Kind: Equatable {
        /// No device of the home can supply it (or not the one named).
        case noDevice
        /// Several can, and nobody could be asked which.
        case severalDevices(Int)
        /// The user cancelled.
        case cancelled
        /// The device failed.
        case device
        /// The hub's own storage failed.
        case store
    }

    var kind: Kind
    var description: String

    init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}

extension StageRunner {
    /// Measures `need` on a device of the home: the one the request names, else the only fitting one, else the
    /// one the user chooses. The reading is stored before the device can forget it and reserved for `caller` as
    /// `owner`'s. Nothing is measured or stored when no device fits or the choice cannot be made.
    func measureLive(_ need: ProviderMeasurement, caller: String, owner: ReservationOwner) async throws(ProviderFailure)
        -> StoredReading
    {
        let kind = need.family.traits.deviceName
        let fitting: [StoredDevice]
        do {
            fitting = try store.devices().filter { device in
                let entry = DeviceCatalog.entry(for: device.model)
                return entry.family == need.family && entry.measuresLive && central.reaches(device.model)
            }
        } catch {
            throw ProviderFailure(.store, "the hub's store cannot be read: \(error)")
        }
        let device: StoredDevice
        if let named = need.device {
            guard let found = fitting.first(where: { $0.mac == named }) else {
                throw ProviderFailure(.noDevice, "\(named) is not a \(kind) of the home that this transport reaches")
            }
            device = found
        } else if fitting.count == 1 {
            device = fitting[0]
        } else if fitting.isEmpty {
            throw ProviderFailure(
                .noDevice,
                "no \(kind) of the home can measure through this transport: add one first (a layered add, cmd=1)")
        } else {
            let candidates = fitting.map { DeviceCandidate(mac: $0.mac, name: $0.model.name) }
            switch await user.chooseDevice(among: candidates) {
            case .answered(let chosen):
                guard let found = fitting.first(where: { $0.mac == chosen }) else {
                    throw ProviderFailure(
                        .noDevice, "\(chosen) is not one of the \(candidates.count) \(kind)s of the home")
                }
                device = found
            case .declined: throw ProviderFailure(.cancelled, "the user cancelled the choice of a \(kind)")
            case .unavailable:
                throw ProviderFailure(
                    .severalDevices(candidates.count),
                    "\(candidates.count) \(kind)s of the home can measure, and nobody can be asked which")
            }
        }
        if await user.cancels(.measure) { throw ProviderFailure(.cancelled, "the user cancelled the measurement") }
        let (mac, entry) = (device.mac, DeviceCatalog.entry(for: device.model))
        do {
            return try await leases.withLease(mac) { [self] in
                let connection = try await central.connect(to: mac)
                do {
                    let driver = makeDriver(for: entry, connection: connection, clock: now)
                    try await driver.readClock(hubClock: now)
                    try await driver.prepare(for: DeviceSession(caller: caller, time: now()))
                    let reading = try await measureReserved(
                        driver, need.options, into: StoreSink(store: store, device: mac), caller: caller, owner: owner)
                    await connection.disconnect()
                    guard let reading else {
                        throw ProviderFailure(
                            .device,
                            "\(entry.model.name) \(mac): the reading is of a user the caller does not receive (in quarantine until `vitalbridge people assign`, or another person's)"
                        )
                    }
                    return reading
                } catch {
                    await connection.disconnect()
                    throw error
                }
            }
        } catch let failure as ProviderFailure {
            throw failure
        } catch let error as DeviceError where error.code == .cancelled {
            throw ProviderFailure(.cancelled, "\(entry.model.name) \(mac): \(error.message)")
        } catch let error as DeviceError {
            logger.notice("a provider's measurement failed", metadata: ["device": "\(mac)", "error": "\(error)"])
            throw ProviderFailure(.device, "\(entry.model.name) \(mac): \(error.message)")
        } catch is CancellationError {
            throw ProviderFailure(.cancelled, "the user cancelled the measurement")
        } catch {
            logger.error("the hub's storage failed", metadata: ["error": "\(error)"])
            throw ProviderFailure(.store, "the hub's storage failed: \(error)")
        }
    }
}
