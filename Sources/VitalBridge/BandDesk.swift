import LayeredProtocol
import VitalCore
import VitalDevices
import VitalStore

extension DeviceDesk {
    /// Runs `body` on the smartband `mac`: its driver on a link made under the band's lease, and a sink into the
    /// store through which whatever the band pushes meanwhile is stored before the band may forget it. A
    /// `BandSettingError` that `body` throws (a rule the band states, checked before sending) is
    /// ``DeviceDeskError/Code/setting``.
    ///
    /// - Throws: ``DeviceDeskError`` with ``DeviceDeskError/Code/unknownDevice`` for a MAC the hub does not know,
    ///   ``DeviceDeskError/Code/unsupported`` for a device that is not a smartband,
    ///   ``DeviceDeskError/Code/unreachable`` on a transport that cannot speak the band's protocol (BlueZ), and the
    ///   band's or the store's failure naming `operation`.
    public func withBand<T: Sendable>(
        _ mac: MACAddress, doing operation: String,
        _ body: @escaping @Sendable (SmartbandDriver, any RecordSink) async throws -> T
    ) async throws(DeviceDeskError) -> T {
        let known = try knownDevice(mac)
        guard known.model.isSmartband else {
            throw DeviceDeskError(.unsupported, "\(mac) is a \(known.model.name), not a smartband")
        }
        let (entry, now, sink) = (DeviceCatalog.entry(for: known.model), now, StoreSink(store: store, device: mac))
        return try await withConnection(known, doing: operation) { connection in
            var driver = SmartbandDriver(entry: entry, connection: connection, clock: now)
            driver.addedAt = known.addedAt
            return try await body(driver, sink)
        }
    }

    /// Asks the band for today's totals now and stores them; returns today's day as the store has it (and a caller
    /// gets it), `nil` when the band recorded nothing today.
    public func bandToday(_ mac: MACAddress) async throws(DeviceDeskError) -> Reading? {
        let (store, now) = (store, now)
        return try await withBand(mac, doing: "today's totals") { driver, sink in
            try await driver.run(.getToday, storingInto: sink)
            let midnight = Timestamp(secondsSince1970: now().day.daysSince1970 * 86_400)
            return try store.readings.all(device: mac, since: midnight).last?.reading
        }
    }

    /// Follows the smartband `mac` (``BandFollower``): stores what it pushes, reconnecting whenever the link
    /// drops, for `hours` of the band's clock or, when `nil`, until the task is cancelled (Ctrl-C); returns how many
    /// items were stored and acknowledged. `events` hears each commit, drop and the wearer's presses. With
    /// `keepsReconnecting` false, the first failed reconnection ends it (``BandFollower/keepsReconnecting``).
    public func follow(
        _ mac: MACAddress, hours: Int?, keepsReconnecting: Bool = true,
        events: @escaping @Sendable (BandFollowEvent) -> Void
    ) async throws(DeviceDeskError) -> Int {
        let (central, clock, now, logger) = (central, clock, now, logger)
        return try await withBand(mac, doing: "follow") { first, sink in
            var follower = BandFollower(
                central: central, entry: first.entry, mac: mac, firstLink: first.connection, sink: sink,
                bandClock: now, clock: clock, batchSize: first.batchSize, logger: logger)
            follower.addedAt = first.addedAt
            follower.keepsReconnecting = keepsReconnecting
            let end = hours.map { Timestamp(secondsSince1970: now().secondsSince1970 + Int64($0) * 3_600) }
            return try await follower.run(until: end, events: events)
        }
    }
}

extension DeviceDesk {
    /// The smartband model a scan of the band service finds advertising at `mac` (how to add a band the hub does
    /// not know: a Smartee Training 9616N is devicemodel 702); `nil` when none is in range, or the transport
    /// reaches no band.
    public func scannedBandModel(_ mac: MACAddress) async -> DeviceModel? {
        let bands = DeviceModel.allCases.filter(\.isSmartband)
        guard bands.contains(where: central.reaches) else { return nil }
        for await found in central.scan(for: [SmartbandGATT.service]) where found.mac == mac {
            return bands.first(where: found.isDevice(of:))
        }
        return nil
    }

    /// How to add the band `mac`, which the hub does not know: the request for its own model when a scan finds it
    /// (a Smartee Training 9616N is devicemodel 702), else the three models to choose from.
    public func bandAddAdvice(_ mac: MACAddress) async -> String {
        if let model = await scannedBandModel(mac) {
            return "add it first (it is a \(model.name)): vitalbridge open --scan-qr \(mac) "
                + "'ihealth-layer://?cmd=1&addtype=1&devicemodel=\(model.rawValue)&scheme=vitalbridge-demo'"
        }
        let models = DeviceModel.allCases.filter(\.isSmartband).map { "\($0.rawValue) (\($0.name))" }
        return "add it first with a layered request for its model, devicemodel "
            + "\(models.dropLast().joined(separator: ", ")) or \(models.last ?? ""); no band of that address is in range"
    }
}
