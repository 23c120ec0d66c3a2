import BlueZ
import VitalCore
import VitalDevices
import VitalSimulation
import VitalStore

/// What a scan of the home's transport hears, as `scan` and `band scan` list it, and the simulated fleet as
/// `fleet show` lists it.
extension Hub {
    /// The health devices a scan hears (`Advertisement.healthProfiles`), each once, in the order
    /// heard, a row each: MAC, name, profiles, paired (`yes`/`no`), signal strength (RSSI), and the devicemodel a
    /// request for it uses through this transport (`-` when no model of the catalog speaks to it here). Nothing is
    /// stored.
    ///
    /// - Throws: ``HomeError`` saying why BlueZ cannot be used, on a BlueZ home: a scan that cannot start would only
    ///   log why and hear nothing.
    public func healthDeviceTable() async throws(HomeError) -> TextTable {
        let central = transport.central
        if case .bluez(let bluez) = transport {
            do {
                _ = try await bluez.adapters()
            } catch {
                throw HomeError("cannot scan through BlueZ: \(error.message)")
            }
        }
        var rows: [[String]] = []
        var seen = Set<MACAddress>()
        for await advertisement in central.scan(for: Advertisement.healthProfiles.map(\.service))
        where seen.insert(advertisement.mac).inserted {
            let model = DeviceModel.allCases.first { central.reaches($0) && advertisement.isDevice(of: $0) }
            rows.append([
                advertisement.mac.description, advertisement.localName, advertisement.healthProfileNames,
                advertisement.isPaired ? "yes" : "no", String(advertisement.rssi),
                model.map { String($0.rawValue) } ?? "-",
            ])
        }
        return TextTable(["MAC", "name", "profile", "paired", "RSSI", "devicemodel"], rows)
    }

    /// The smartbands a scan hears (their band service, `SmartbandGATT.service`), as heard, a row
    /// each: MAC, name, signal (`-60 dBm`), paired and added to the hub (`yes`/`no`).
    public func bandTable() async throws(StoreError) -> TextTable {
        var rows: [[String]] = []
        for await found in transport.central.scan(for: [SmartbandGATT.service]) {
            rows.append([
                found.mac.description, found.localName, "\(found.rssi) dBm", found.isPaired ? "yes" : "no",
                try store.device(found.mac) == nil ? "no" : "yes",
            ])
        }
        return TextTable(["MAC", "name", "signal", "paired", "added"], rows)
    }

    /// The simulated fleet's devices with their saved state loaded (``restoreWorld()``), a row each: MAC, model,
    /// family, serial (`none`), paired, in range (`yes`/`no`), the users it keeps of its User Data Service's slots
    /// (`2/4`; `none` without one) and how many records it still stores (a smartband: its unacknowledged items).
    ///
    /// - Throws: ``HomeError`` on a BlueZ home, which has no simulated fleet, or when a saved state cannot be read.
    public func fleetTable() async throws(HomeError) -> TextTable {
        let world = try simulatedWorld()
        do {
            try await restoreWorld()
        } catch let error as HomeError {
            throw error
        } catch {
            throw HomeError("\(error)")
        }
        var rows: [[String]] = []
        for device in world.configurations {
            let stored = await world.heldCount(of: device.mac)
            rows.append([
                device.mac.description, device.entry.model.name, device.entry.family.rawValue, device.serial ?? "none",
                device.paired ? "yes" : "no", device.inRange ? "yes" : "no", await world.usersKept(by: device.mac),
                String(stored),
            ])
        }
        return TextTable(["MAC", "model", "family", "serial", "paired", "in range", "users", "stored"], rows)
    }
}
