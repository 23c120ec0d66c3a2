import LayeredProtocol
import VitalCore
import VitalDevices
import VitalStore

extension BluetoothCentral {
    /// The paired devices of `model` a scan hears, each once with its strongest signal, strongest first (by
    /// address when equal): the devices an add by scan chooses from.
    func pairedCandidates(of model: DeviceModel) async -> [DeviceCandidate] {
        var found: [MACAddress: DeviceCandidate] = [:]
        for await advertisement in scan(for: [DeviceCatalog.entry(for: model).profile.serviceUUID])
        where advertisement.isPaired && advertisement.isHeard && advertisement.isDevice(of: model) {
            if let known = found[advertisement.mac], (known.rssi ?? .min) >= advertisement.rssi { continue }
            found[advertisement.mac] = DeviceCandidate(
                mac: advertisement.mac, name: advertisement.localName, rssi: advertisement.rssi)
        }
        return found.values.sorted { ($0.rssi ?? .min, $1.mac.description) > ($1.rssi ?? .min, $0.mac.description) }
    }
}

/// The commands for a person at a terminal (`vitalbridge add`, `measure`): the same leases, drivers and store as a
/// layered request's stages, with the hub itself as the caller.
extension DeviceDesk {
    /// Adds a device of `model` to the hub: the one at `mac` (a QR code's), or the paired one a scan finds (`user`
    /// chooses when there are several), read for its serial number and firmware. Its records are left on it for a
    /// sync. A device added before is read again and keeps when it was added.
    ///
    /// - Throws: ``DeviceDeskError`` with ``DeviceDeskError/Code/unsupported`` for an activity monitor (its user
    ///   profile comes with a layered request), ``DeviceDeskError/Code/unreachable`` for a model the transport does
    ///   not speak, ``DeviceDeskError/Code/unknownDevice`` when a scan finds none, or several and nobody chooses,
    ///   and the device's or the store's failure.
    public func add(_ model: DeviceModel, mac: MACAddress?, user: any HubUser) async throws(DeviceDeskError)
        -> StoredDevice
    {
        guard !model.hasUserProfile else {
            throw DeviceDeskError(
                .unsupported,
                "\(model.name) devices are bound to a user profile: add it with a layered request that carries one (cmd=1 "
                    + "with userid, age, sex, height, weight)")
        }
        guard central.reaches(model) else {
            throw DeviceDeskError(.unreachable, "a \(model.name): this home's transport does not speak its protocol")
        }
        let address: MACAddress
        if let mac {
            address = mac
        } else {
            address = try await chosenDevice(of: model, user: user)
        }
        let (store, now) = (store, now)
        let candidate = StoredDevice(mac: address, model: model, addedAt: now())
        return try await withDriver(candidate, doing: "add") { driver in
            // under the device's lease: another request adding it meanwhile is seen
            let known = try store.device(address)
            if let known, known.model != model {
                throw DeviceDeskError(
                    .unsupported,
                    "\(address) was added as a \(known.model.name), not a \(model.name): remove it first (vitalbridge devices "
                        + "remove \(address))")
            }
            try await driver.readClock(hubClock: now)
            try await driver.prepare(for: DeviceSession(caller: Self.hubUser, time: now()))
            let info = try await driver.deviceInfo()
            var added = known ?? candidate
            added.serialNumber = info.serialNumber
            added.firmwareRevision = info.firmwareRevision
            try store.saveDevice(added)
            return added
        }
    }

    /// The paired device of `model` a scan finds: the only one, or the one `user` chooses.
    private func chosenDevice(of model: DeviceModel, user: any HubUser) async throws(DeviceDeskError) -> MACAddress {
        let candidates = await central.pairedCandidates(of: model)
        guard let only = candidates.first else {
            throw DeviceDeskError(
                .unknownDevice, "no paired \(model.name) is in range: turn it on near the hub, or give its QR code")
        }
        guard candidates.count > 1 else { return only.mac }
        let listed = candidates.map(\.description).joined(separator: ", ")
        switch await user.chooseDevice(among: candidates) {
        case .answered(let chosen) where candidates.contains { $0.mac == chosen }: return chosen
        case .answered(let chosen):
            throw DeviceDeskError(.unknownDevice, "\(chosen) is not one of those found: \(listed)")
        case .declined: throw DeviceDeskError(.device, "cancelled")
        case .unavailable:
            throw DeviceDeskError(
                .unknownDevice,
                "\(candidates.count) paired \(model.name) devices are in range (\(listed)): give the QR code of one")
        }
    }

    /// Takes a measurement with device `mac` (a strip's `stripCode` for a meter that needs one), stores it and queues
    /// it for every caller that asked for the device, as a layered measurement does; returns it.
    public func measure(_ mac: MACAddress, stripCode: StripCode? = nil) async throws(DeviceDeskError) -> DeviceRecord {
        let known = try knownDevice(mac)
        if known.model.requiresStripCode, stripCode == nil {
            throw DeviceDeskError(.unsupported, "a \(known.model.name) needs the strip's code (--code)")
        }
        if !known.model.requiresStripCode, stripCode != nil {
            throw DeviceDeskError(.unsupported, "\(mac) is a \(known.model.name), which takes no strip's code")
        }
        let (sink, now) = (StoreSink(store: store, device: mac), now)
        return try await withDriver(known, doing: "measure") { driver in
            try await driver.readClock(hubClock: now)
            try await driver.prepare(for: DeviceSession(caller: Self.hubUser, profile: known.profile, time: now()))
            return try await driver.measure(MeasureOptions(stripCode: stripCode), into: sink) { _ in }
        }
    }
}
