import HealthGATT
import VitalCore
import VitalDevices

/// The simulated Bluetooth world: a `BluetoothCentral` whose peripherals are the fleet's devices, each speaking
/// its family's Bluetooth SIG profile byte for byte (encoded with `HealthGATT`) plus VitalBridge's vendor GATT.
///
/// Each device's profile is a simulated peripheral of its own type: push devices (blood pressure, scales, thermometer) delete a
/// stored reading only when its indication is confirmed; Record Access Control Point devices (glucose, PO3) and
/// activity monitors only on a delete command. The world runs what they share: links, the vendor control point,
/// transfers of stored records (one record at a time, as the central takes them), injected failures and radio
/// timing. A link that drops keeps everything not yet deleted.
public actor SimulatedWorld: BluetoothCentral {
    /// The world's time; radio traffic and measurements advance it, nothing sleeps.
    public nonisolated let clock: VirtualClock
    /// What the simulated user does (for the hub's add, cancel and QR steps).
    public nonisolated let user: UserScript
    /// Seconds of the world's time a second of real time lets pass, when the fleet sets `pace`: a link then waits
    /// in real time for what its events take of the world's time. `nil`: nothing waits.
    public nonisolated let pace: Double?
    /// The devices, as the fleet describes them.
    public nonisolated let configurations: [SimulatedDeviceConfiguration]

    /// The world's time as a clock to wait on, paced by the fleet's `pace` (``PacedClock``).
    public nonisolated var pacedClock: PacedClock { PacedClock(clock, pace: pace) }

    var runtimes = ByMAC<DeviceRuntime>()
    var links = ByMAC<Link>()
    var nextLinkID: UInt64 = 1

    /// A world from `fleet`, continuing from `state` when given (a device's memory then comes from the state,
    /// not from the fleet's records).
    ///
    /// - Parameters:
    ///   - fleet: the devices and the user's script.
    ///   - state: what the world remembered from an earlier run, if any.
    ///   - start: the wall-clock time the world starts at, unless the fleet sets `start`.
    /// - Throws: ``FleetError`` naming the first problem of the fleet.
    public init(fleet: Fleet, state: WorldState? = nil, start: Timestamp) throws(FleetError) {
        var startTime = start
        if let text = fleet.start {
            guard let parsed = Timestamp(parsing: text) else {
                throw FleetError(path: "start", message: "is not yyyy-MM-dd HH:mm:ss")
            }
            startTime = parsed
        }
        clock = VirtualClock(start: startTime)
        if let pace = fleet.pace, !(1...1_000_000).contains(pace) {
            throw FleetError(path: "pace", message: "must be from 1 to 1000000 (seconds of the world's time a second)")
        }
        pace = fleet.pace
        user = fleet.user
        var configurations: [SimulatedDeviceConfiguration] = []
        var runtimes = ByMAC<DeviceRuntime>()
        for (index, device) in fleet.devices.enumerated() {
            let configuration = try SimulatedDeviceConfiguration(device, path: "devices[\(index)]")
            guard !configurations.contains(where: { $0.mac == configuration.mac }) else {
                throw FleetError(path: "devices[\(index)].mac", message: "is used by another device")
            }
            try configuration.checkRecords(path: "devices[\(index)]")
            if let saved = state?.devices[configuration.mac.description] {
                runtimes[configuration.mac] = DeviceRuntime(
                    configuration: configuration, state: try Self.adopted(saved, by: configuration))
            }
            configurations.append(configuration)
        }
        self.configurations = configurations
        self.runtimes = runtimes
    }

    /// The runtime of device `mac`, made from its fleet records when the world first uses it; `nil` for a MAC the
    /// fleet does not have.
    func runtime(_ mac: MACAddress) -> DeviceRuntime? {
        if let runtime = runtimes[mac] { return runtime }
        guard let configuration = configurations.first(where: { $0.mac == mac }) else { return nil }
        let runtime = DeviceRuntime(configuration: configuration, state: configuration.initialState(start: clock.start))
        runtimes[mac] = runtime
        return runtime
    }

    /// `state` as the device of `configuration` takes it: every record a reading the device can hold, its users
    /// (a device with a User Data Service only) each in one of its slots, once; a state saved before devices kept
    /// users keeps the fleet's.
    private static func adopted(_ state: DeviceState, by configuration: SimulatedDeviceConfiguration)
        throws(FleetError) -> DeviceState
    {
        let family = configuration.entry.family
        let path = "state.\(configuration.mac)"
        for (position, record) in state.records.enumerated() where DeviceFamily(of: record.reading) != family {
            throw FleetError(
                path: path + ".records[\(position)]",
                message: "is not a reading a \(configuration.entry.model.name) takes")
        }
        var state = state
        guard let userData = configuration.userData else {
            guard state.users == nil else {
                throw FleetError(
                    path: path + ".users",
                    message: "are for a device with a User Data Service (the fleet's userData): this one has none")
            }
            return state
        }
        guard let users = state.users else {
            state.users = userData.users
            return state
        }
        try SimulatedUserData.check(users, slots: userData.slots, path: path + ".users")
        return state
    }

    /// The world's state, to save and restore with ``init(fleet:state:start:)``.
    public func state() -> WorldState {
        var state = WorldState()
        for configuration in configurations {
            state.devices[configuration.mac.description] = runtime(configuration.mac)?.state
        }
        return state
    }

    /// Replaces what device `mac` remembers, e.g. with what another process saved since this world was made.
    /// Does nothing for a MAC the fleet does not have.
    ///
    /// - Throws: ``FleetError`` naming the first record the device cannot hold; nothing is replaced then.
    public func restore(_ state: DeviceState, for mac: MACAddress) throws(FleetError) {
        guard let configuration = configurations.first(where: { $0.mac == mac }) else { return }
        let state = try Self.adopted(state, by: configuration)
        if let runtime = runtimes[mac] {
            runtime.state = state
        } else {
            runtimes[mac] = DeviceRuntime(configuration: configuration, state: state)
        }
    }

    /// What device `mac` remembers now.
    public func deviceState(of mac: MACAddress) -> DeviceState? { runtime(mac)?.state }

    /// How many users device `mac` keeps of how many it can, `2/4`, for a device with a User Data Service; `none`
    /// for one without (and a MAC the fleet does not have).
    public func usersKept(by mac: MACAddress) -> String {
        guard let runtime = runtime(mac), let userData = runtime.configuration.userData else { return "none" }
        return "\(runtime.state.users?.count ?? 0)/\(userData.slots)"
    }

    /// How many records device `mac` holds now; for a smartband, the items it recorded up to the world's time
    /// and has not had acknowledged.
    public func heldCount(of mac: MACAddress) -> Int {
        guard let runtime = runtime(mac) else { return 0 }
        guard var band = runtime.state.band else { return runtime.state.records.count }
        band.record(until: clock.wallTime, life: BandLife(seed: runtime.configuration.seed))
        runtime.state.band = band
        return band.pending.count
    }

    /// The readings in the memory of device `mac`, oldest first, as the device sends them: a PO3's with the pulse
    /// wave it sends before each record that has one.
    public func storedReadings(of mac: MACAddress) -> [Reading] {
        guard let runtime = runtime(mac) else { return [] }
        let peripheral = makePeripheral(runtime)
        return runtime.state.records.map { record in
            guard case .historyWave(let wave)? = peripheral.eventBefore(record),
                case .oximetry(var oximetry) = record.reading
            else { return record.reading }
            oximetry.wave = wave.readingSamples
            return .oximetry(oximetry)
        }
    }

    // MARK: BluetoothCentral

    public nonisolated func scan(for services: [UInt16]) -> AsyncStream<Advertisement> {
        let now = clock.wallTime
        let heard = configurations.filter {
            $0.advertises(at: now) && $0.entry.reach == .bluetooth
                && (services.isEmpty || services.contains($0.entry.profile.serviceUUID))
        }
        return AsyncStream { continuation in
            for device in heard { continuation.yield(device.advertisement) }
            continuation.finish()
        }
    }

    /// The devices in a presence window where they connect to the host by itself (`"connects": true`), for the
    /// whole window.
    public nonisolated func connectedPeripherals() async -> [MACAddress] {
        let now = clock.wallTime
        return configurations.filter { $0.entry.reach == .bluetooth && $0.connectsByItself(at: now) != nil }.map(\.mac)
    }

    public func connect(to mac: MACAddress) async throws(DeviceError) -> any BluetoothConnection {
        try open(mac)
    }

    /// Connects to device `mac`, as ``connect(to:)`` does, and returns the link as the world's own type: what a
    /// transport that serves the world to other processes keeps, to ask for the link's events.
    ///
    /// - Throws: `DeviceError.Code.notFound` for a device not in range, `DeviceError.Code.connectionFailed`
    ///   when the fleet fails the connection or another central holds the device, `DeviceError.Code.timedOut` when
    ///   the fleet has the device leave the attempt unanswered.
    public func open(_ mac: MACAddress) throws(DeviceError) -> SimulatedConnection {
        guard let runtime = runtime(mac), runtime.configuration.isInRange(at: clock.wallTime) else {
            throw DeviceError(.notFound, message: "no device \(mac) is in range")
        }
        if runtime.configuration.failures.atConnect == true, runtime.spend("atConnect") {
            throw DeviceError(.connectionFailed, message: "the connection to \(mac) failed")
        }
        if runtime.configuration.failures.connectUnanswered == true, runtime.spend("connectUnanswered") {
            throw DeviceError(.timedOut, message: "\(mac) did not answer the connection attempt")
        }
        guard links[mac] == nil else {
            throw DeviceError(.connectionFailed, message: "\(mac) is connected to another central")
        }
        let link = Link(id: nextLinkID, runtime: runtime, peripheral: makePeripheral(runtime), clock: clock)
        nextLinkID += 1
        links[mac] = link
        advanceRadio(link)
        return SimulatedConnection(world: self, peripheral: mac, linkID: link.id, mtu: runtime.configuration.mtu)
    }

    // MARK: The connection's operations

    func link(_ mac: MACAddress, _ id: UInt64) throws(DeviceError) -> Link {
        guard let link = links[mac], link.id == id, !link.dropped else {
            throw DeviceError(.disconnected, message: "the link to \(mac) is down")
        }
        try stayInRange(link)
        return link
    }

    /// Drops the link of a device whose presence window has closed by the world's time: it went out of range.
    func stayInRange(_ link: Link) throws(DeviceError) {
        guard !link.runtime.isInRange(at: clock.wallTime) else { return }
        drop(link)
        throw DeviceError(
            .disconnected,
            message: "the link to \(link.runtime.configuration.mac) dropped: the device went out of range")
    }

    func read(_ mac: MACAddress, _ id: UInt64, _ characteristic: CharacteristicID) throws(DeviceError) -> [UInt8] {
        let link = try link(mac, id)
        advanceRadio(link)
        let runtime = link.runtime
        guard offers(characteristic, on: mac) else {
            throw DeviceError(.unsupported, message: "\(mac) has no characteristic \(characteristic)")
        }
        switch characteristic {
        case GATTCharacteristics.serialNumber: return Array((runtime.configuration.serial ?? "").utf8)
        case GATTCharacteristics.firmwareRevision: return Array((runtime.configuration.firmware ?? "").utf8)
        case GATTCharacteristics.batteryLevel: return [UInt8(runtime.state.battery)]
        case GATTCharacteristics.currentTime: return runtime.currentTime(at: clock.wallTime).encoded()
        case GATTCharacteristics.bandTime: return BandTime(runtime.state.band!.bandTime(clock.wallTime)).encoded
        default: return try link.peripheral.read(characteristic, on: link)
        }
    }

    func subscribe(_ mac: MACAddress, _ id: UInt64, _ characteristic: CharacteristicID) throws(DeviceError) {
        let link = try link(mac, id)
        advanceRadio(link)
        guard offers(characteristic, on: mac) else {
            throw DeviceError(.unsupported, message: "\(mac) has no characteristic \(characteristic)")
        }
        if !link.subscribed.contains(characteristic) { link.subscribed.append(characteristic) }
        link.peripheral.subscribed(characteristic, on: link)
        pump(link)
    }

    func write(_ mac: MACAddress, _ id: UInt64, _ characteristic: CharacteristicID, _ value: [UInt8])
        throws(DeviceError)
    {
        let link = try link(mac, id)
        advanceRadio(link)
        if characteristic == GATTCharacteristics.vendorControlPoint {
            guard let command = VendorCommand(bytes: value) else {
                throw DeviceError(.protocolViolation, message: "an unknown vendor command")
            }
            handle(command, on: link)
        } else if characteristic == GATTCharacteristics.currentTime {
            try setClock(value, on: link)
        } else {
            try link.peripheral.write(characteristic, value, on: link)
        }
        pump(link)
    }

    /// Sets the device's clock to the Current Time `value`, when the device lets it be written.
    func setClock(_ value: [UInt8], on link: Link) throws(DeviceError) {
        let configuration = link.runtime.configuration
        guard configuration.readableClock, configuration.writableClock else {
            throw DeviceError(.unsupported, message: "the Current Time of \(configuration.mac) cannot be written")
        }
        let time: CurrentTime
        do {
            time = try CurrentTime(bytes: value)
        } catch {
            throw DeviceError(.protocolViolation, message: "\(error)")
        }
        guard setClock(to: time.dateTime, on: link) else {
            throw DeviceError(.protocolViolation, message: "the Current Time written has no date")
        }
    }

    /// Sets the device's clock to show `time` from now on, as a Current Time write or the vendor set-time command
    /// does: the next read of its Current Time, and what it dates from now, show the time set. `false`, changing
    /// nothing, for a Date Time that is no date.
    func setClock(to time: DateTime, on link: Link) -> Bool {
        guard
            let shown = Timestamp(
                year: Int(time.year), month: Int(time.month), day: Int(time.day), hour: Int(time.hours),
                minute: Int(time.minutes), second: Int(time.seconds))
        else { return false }
        let now = clock.wallTime
        link.runtime.state.clockSet = (now, shown.secondsSince1970 - now.secondsSince1970)
        return true
    }

    func nextEvent(_ mac: MACAddress, _ id: UInt64) throws(DeviceError) -> GATTEvent {
        guard let event = try nextEvent(mac, id, within: nil) else {
            preconditionFailure("a wait without a deadline ends with an event or a drop")
        }
        return event
    }

    /// The next event; with a `timeout`, `nil` once the world's time has passed it with nothing to send (the link
    /// stays up), without one a device with nothing more to send stops answering and the link drops.
    func nextEvent(_ mac: MACAddress, _ id: UInt64, within timeout: Duration?) throws(DeviceError) -> GATTEvent? {
        let link = try link(mac, id)
        pump(link)
        let deadline = timeout.map { clock.elapsedTime + $0 }
        while link.isIdle, waitForMore(on: link, until: deadline) { pump(link) }
        // waiting for the device let the world's time pass its presence window
        try stayInRange(link)
        guard let pending = link.dequeue() else {
            if let deadline {
                if clock.elapsedTime < deadline { clock.advance(by: deadline - clock.elapsedTime) }
                return nil
            }
            drop(link)
            throw DeviceError(.disconnected, message: "the device stopped answering (supervision timeout)")
        }
        switch pending {
        case .drop:
            drop(link)
            throw DeviceError(.disconnected, message: "the link to \(mac) dropped")
        case .event(let event):
            if link.runtime.dropsLink() {
                drop(link)
                throw DeviceError(.disconnected, message: "the link to \(mac) dropped")
            }
            radioSent(link)
            return event
        }
    }

    func confirm(_ mac: MACAddress, _ id: UInt64, _ token: IndicationToken) throws(DeviceError) {
        let link = try link(mac, id)
        guard let outstanding = link.outstanding, outstanding.token == token else {
            throw DeviceError(.protocolViolation, message: "no indication \(token.id) is waiting for a confirmation")
        }
        if let sequenceNumber = outstanding.deletes {
            // a push device's confirmed record is its oldest: forgotten in constant time
            if link.runtime.state.records.first?.sequenceNumber == sequenceNumber {
                link.runtime.state.records.removeFirst()
            } else {
                link.runtime.state.records.removeAll { $0.sequenceNumber == sequenceNumber }
            }
        }
        link.confirmed()
        pump(link)
    }

    func disconnect(_ mac: MACAddress, _ id: UInt64) {
        if let link = links[mac], link.id == id { links[mac] = nil }
    }

    // MARK: What every device does

    func drop(_ link: Link) {
        link.dropped = true
        links[link.runtime.configuration.mac] = nil
    }

    /// Counts a packet the device sent: the radio's timing moves the world's time on by a connection interval
    /// each `notificationsPerEvent` packets.
    func radioSent(_ link: Link) {
        link.packets += 1
        if let timing = link.runtime.configuration.radio, link.packets % timing.notificationsPerEvent == 0 {
            clock.advance(by: timing.interval)
        }
    }

    func advanceRadio(_ link: Link) {
        if let timing = link.runtime.configuration.radio { clock.advance(by: timing.interval) }
    }

    /// Sends the next record of the link's transfer once the central has taken everything sent before (and
    /// confirmed the last indication), or the transfer's end; injects the fleet's transfer failures.
    func pump(_ link: Link) {
        defer { if link.transfer == nil, !link.dropped { link.peripheral.pump(on: link) } }
        let runtime = link.runtime
        while link.isIdle, link.outstanding == nil, var transfer = link.transfer {
            if transfer.restarts, transfer.part == 0 { (transfer.position, transfer.restarts) = (0, false) }
            var position = transfer.position
            while position < runtime.state.records.count,
                !runtime.matches(runtime.state.records[position], transfer.filter)
                    || !link.sends(runtime.state.records[position])
            {
                position += 1
            }
            guard position < runtime.state.records.count else {
                link.transfer = nil
                switch transfer.completion {
                case .quiet: break
                case .transferComplete: link.status(.transferComplete(count: UInt16(clamping: transfer.sent)))
                case .racpSuccess(let characteristic):
                    link.indicate(
                        characteristic,
                        RecordAccessControlPoint.responseCode(request: .reportStoredRecords, response: .success)
                            .encoded())
                }
                return
            }
            if transfer.part == 0, let failure = runtime.transferFailure(after: transfer.sent) {
                link.transfer = nil
                switch failure {
                case .drop: link.enqueue(.drop)
                case .deviceError(let code): link.status(.deviceError(code: code))
                }
                return
            }
            let record = runtime.state.records[position]
            if transfer.part == 0 { transfer.sent += 1 }
            switch transfer.sending {
            case .indicationsDeletingOnConfirm:
                // the record leaves the memory when its last value is confirmed; the next one then takes its position
                let values = runtime.indications(of: record, on: link)
                let part = min(transfer.part, values.count - 1)
                let last = part == values.count - 1
                link.indicate(values[part].0, values[part].1, deleting: last ? record.sequenceNumber : nil)
                transfer.part = last ? 0 : part + 1
            case .indications:
                if let event = link.peripheral.eventBefore(record) { link.status(event) }
                link.indicate(transfer.characteristic, runtime.encode(record))
                position += 1
            case .notifications:
                link.notify(transfer.characteristic, runtime.encode(record))
                position += 1
            }
            transfer.position = position
            link.transfer = transfer
        }
    }

    /// Runs a vendor command: the profile's own, or the clock, a factory reset or a live measurement.
    func handle(_ command: VendorCommand, on link: Link) {
        let peripheral = link.peripheral
        guard peripheral.admits(command, on: link) else {
            link.status(.deviceError(code: VendorGATT.authenticationFailedError))
            return
        }
        guard !peripheral.handle(command, on: link) else { return }
        switch command {
        case .setTime(let time):
            // the same clock a Current Time write sets, writable or not: the command is the vendor's own way
            link.status(.commandResult(opCode: command.opCode.rawValue, success: setClock(to: time, on: link)))
        case .factoryReset:
            link.runtime.state.records.removeAll()
            link.status(.commandResult(opCode: command.opCode.rawValue, success: true))
        case .startMeasurement, .startGlucoseMeasurement:
            measure(on: link)
        case .authenticate, .bindProfile, .reportActivity, .deleteActivity:
            // a command of another family's profile
            link.status(.commandResult(opCode: command.opCode.rawValue, success: false))
        }
    }

    /// A live measurement: it takes the device's time, sends its samples, then the reading, unless a failure is
    /// injected or the user stops it on the device.
    func measure(on link: Link) {
        let runtime = link.runtime
        let failed = VendorEvent.commandResult(opCode: VendorOpCode.startMeasurement.rawValue, success: false)
        guard runtime.entry.measuresLive else {
            link.status(failed)
            return
        }
        clock.advance(by: runtime.measurementDuration)
        link.peripheral.sendLiveSamples(on: link)
        if let code = runtime.configuration.failures.duringMeasurement, runtime.spend("duringMeasurement") {
            link.status(.deviceError(code: UInt8(clamping: code)))
            return
        }
        if user.cancelAt == .measure {
            link.status(failed)
            return
        }
        let reading = runtime.nextMeasurement(at: clock.wallTime)
        link.peripheral.sendMeasurement(StoredRecord(sequenceNumber: 0, reading: reading), on: link)
    }
}
