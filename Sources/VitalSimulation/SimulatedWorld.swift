import HealthGATT
import LayeredProtocol
import VitalDevices

/// What the world remembers between hub processes: each device's memory, sequence numbers, battery, generator
/// position and the one-shot failures already spent — as a real device keeps its memory across app launches.
public struct WorldState: Hashable, Sendable {
    public var devices: [String: DeviceState]

    public init(devices: [String: DeviceState] = [:]) { self.devices = devices }
}

/// One device's remembered state.
public struct DeviceState: Hashable, Sendable {
    /// The records in the device's memory, oldest first.
    public var records: [StoredRecord]
    /// The sequence number the next stored record gets.
    public var nextSequenceNumber: UInt16
    public var battery: Int
    public var generator: SeededGenerator
    /// How many live measurements the device has taken (the index into the fleet's `nextMeasurements`).
    public var measurementsTaken: Int
    /// The injected failures that already happened: `atConnect`, `duringMeasurement`, `duringSync`,
    /// `disconnectAfter`.
    public var spentFailures: Set<String>
    /// The user the activity monitor is bound to.
    public var boundUserID: Int32?
    /// Whether the activity monitor records swimming.
    public var swim: Bool
}

/// A record in a simulated device's memory.
public struct StoredRecord: Hashable, Sendable {
    public var sequenceNumber: UInt16
    public var reading: SimulatedReading

    public init(sequenceNumber: UInt16, reading: SimulatedReading) {
        self.sequenceNumber = sequenceNumber
        self.reading = reading
    }
}

/// The simulated Bluetooth world: a `BluetoothCentral` whose peripherals are the fleet's devices, each speaking
/// its family's Bluetooth SIG profile byte for byte (encoded with `HealthGATT`) plus VitalBridge's vendor GATT.
///
/// Push devices (blood pressure, scales, thermometer) delete a stored reading only when its indication is
/// confirmed; Record Access Control Point devices (glucose, PO3) and activity monitors only on a delete command. A
/// link that drops keeps everything not yet deleted.
public actor SimulatedWorld: BluetoothCentral {
    /// The world's time; radio traffic and measurements advance it, nothing sleeps.
    public nonisolated let clock: VirtualClock
    /// What the simulated user does (for the hub's add, cancel and QR steps).
    public nonisolated let user: UserScript
    /// The devices, as the fleet describes them.
    public nonisolated let configurations: [SimulatedDeviceConfiguration]

    var runtimes = ByMAC<DeviceRuntime>()
    var links = ByMAC<Link>()
    var nextLinkID: UInt64 = 1
    var nextToken: UInt64 = 1

    /// A world from `fleet`, continuing from `state` when given (a device's memory then comes from the state,
    /// not from the fleet's records).
    ///
    /// - Parameters:
    ///   - fleet: the devices and the user's script.
    ///   - state: what the world remembered from an earlier run, if any.
    ///   - start: the wall-clock time the world starts at, unless the fleet sets `start`.
    /// - Throws: ``FleetError`` naming the first problem of the fleet.
    public init(fleet: Fleet, state: WorldState? = nil, start: LayeredTimestamp) throws(FleetError) {
        var startTime = start
        if let text = fleet.start {
            guard let parsed = LayeredTimestamp(parsing: text) else {
                throw FleetError(path: "start", message: "is not yyyy-MM-dd HH:mm:ss")
            }
            startTime = parsed
        }
        clock = VirtualClock(start: startTime)
        user = fleet.user
        if let cancelAt = fleet.user.cancelAt, !["add", "sync", "measure"].contains(cancelAt) {
            throw FleetError(path: "user.cancelAt", message: "must be add, sync or measure")
        }
        var configurations: [SimulatedDeviceConfiguration] = []
        var runtimes = ByMAC<DeviceRuntime>()
        for (index, device) in fleet.devices.enumerated() {
            let configuration = try SimulatedDeviceConfiguration(device, path: "devices[\(index)]")
            guard !configurations.contains(where: { $0.mac == configuration.mac }) else {
                throw FleetError(path: "devices[\(index)].mac", message: "is used by another device")
            }
            try configuration.checkRecords(path: "devices[\(index)]")
            if let saved = state?.devices[configuration.mac.description] {
                try Self.validate(saved, of: configuration)
                runtimes[configuration.mac] = DeviceRuntime(configuration: configuration, state: saved)
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
        let runtime = DeviceRuntime(configuration: configuration, state: configuration.initialState())
        runtimes[mac] = runtime
        return runtime
    }

    /// Checks that every record of `state` is a reading the device of `configuration` can hold.
    private static func validate(_ state: DeviceState, of configuration: SimulatedDeviceConfiguration)
        throws(FleetError)
    {
        for (position, record) in state.records.enumerated() {
            _ = try record.reading.reading(
                for: configuration.entry.family, at: "state.\(configuration.mac).records[\(position)]")
        }
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
        try Self.validate(state, of: configuration)
        if let runtime = runtimes[mac] {
            runtime.state = state
        } else {
            runtimes[mac] = DeviceRuntime(configuration: configuration, state: state)
        }
    }

    /// What device `mac` remembers now.
    public func deviceState(of mac: MACAddress) -> DeviceState? { runtime(mac)?.state }

    /// The readings in the memory of device `mac`, oldest first.
    public func storedReadings(of mac: MACAddress) -> [LayeredReading] {
        guard let runtime = runtime(mac) else { return [] }
        return runtime.state.records.map { runtime.reading($0.reading) }
    }

    // MARK: BluetoothCentral

    public nonisolated func scan(for services: [UInt16]) -> AsyncStream<Advertisement> {
        let heard = configurations.filter {
            $0.inRange && $0.entry.reach == .bluetooth
                && (services.isEmpty || services.contains($0.entry.profile.serviceUUID))
        }
        return AsyncStream { continuation in
            for device in heard {
                continuation.yield(
                    Advertisement(
                        mac: device.mac, localName: "\(device.entry.model.name) \(device.serial.suffix(4))",
                        services: [device.entry.profile.serviceUUID], isPaired: device.paired,
                        rssi: -40 - Int(device.mac.value % 40)))
            }
            continuation.finish()
        }
    }

    public func connect(to mac: MACAddress) async throws(DeviceError) -> any BluetoothConnection {
        guard let runtime = runtime(mac), runtime.configuration.inRange else {
            throw DeviceError(.notFound, message: "no device \(mac) is in range")
        }
        if runtime.configuration.failures.atConnect == true, runtime.spend("atConnect") {
            throw DeviceError(.connectionFailed, message: "the connection to \(mac) failed")
        }
        guard links[mac] == nil else {
            throw DeviceError(.connectionFailed, message: "\(mac) is connected to another central")
        }
        let link = Link(id: nextLinkID, runtime: runtime)
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
        return link
    }

    func read(_ mac: MACAddress, _ id: UInt64, _ characteristic: CharacteristicID) throws(DeviceError) -> [UInt8] {
        let link = try link(mac, id)
        advanceRadio(link)
        let runtime = link.runtime
        switch characteristic {
        case GATTCharacteristics.serialNumber: return Array(runtime.configuration.serial.utf8)
        case GATTCharacteristics.firmwareRevision: return Array(runtime.configuration.firmware.utf8)
        case GATTCharacteristics.batteryLevel: return [UInt8(runtime.state.battery)]
        default: throw DeviceError(.protocolViolation, message: "\(characteristic) cannot be read")
        }
    }

    func subscribe(_ mac: MACAddress, _ id: UInt64, _ characteristic: CharacteristicID) throws(DeviceError) {
        let link = try link(mac, id)
        advanceRadio(link)
        if !link.subscribed.contains(characteristic) { link.subscribed.append(characteristic) }
        let runtime = link.runtime
        // push devices send their memory each time indications are enabled, unless a transfer is running
        if [.bloodPressure, .scale, .thermometer].contains(runtime.entry.family),
            characteristic == runtime.pushCharacteristic, link.transfer == nil, link.outstanding == nil
        {
            link.transfer = Transfer(
                characteristic: characteristic, deleteOnConfirm: true, completion: .transferComplete)
            pump(link)
        }
    }

    func write(_ mac: MACAddress, _ id: UInt64, _ characteristic: CharacteristicID, _ value: [UInt8])
        throws(DeviceError)
    {
        let link = try link(mac, id)
        advanceRadio(link)
        switch characteristic {
        case GATTCharacteristics.vendorControlPoint:
            guard let command = VendorCommand(bytes: value) else {
                throw DeviceError(.protocolViolation, message: "an unknown vendor command")
            }
            handle(command, on: link)
        case GATTCharacteristics.glucoseRACP where link.runtime.entry.family == .glucose,
            GATTCharacteristics.plxRACP where link.runtime.entry.family == .pulseOximeter:
            // GLS and PLXS: a server answers a write with ATT error 0xFD unless RACP indications are enabled
            guard link.subscribed.contains(characteristic) else {
                throw DeviceError(
                    .protocolViolation,
                    message:
                        "\(characteristic) indications are not enabled (ATT error 0xFD, CCCD improperly configured)")
            }
            guard let command = try? RecordAccessControlPoint(bytes: value) else {
                throw DeviceError(.protocolViolation, message: "a malformed Record Access Control Point command")
            }
            handle(command, on: link, characteristic: characteristic)
        default:
            throw DeviceError(.protocolViolation, message: "\(characteristic) cannot be written")
        }
    }

    func nextEvent(_ mac: MACAddress, _ id: UInt64) throws(DeviceError) -> GATTEvent {
        let link = try link(mac, id)
        guard let pending = link.dequeue() else {
            drop(link)
            throw DeviceError(.disconnected, message: "the device stopped answering (supervision timeout)")
        }
        switch pending {
        case .drop:
            drop(link)
            throw DeviceError(.disconnected, message: "the link to \(mac) dropped")
        case .event(let event):
            link.packets += 1
            if let timing = link.runtime.configuration.radio, link.packets % timing.notificationsPerEvent == 0 {
                clock.advance(by: timing.interval)
            }
            return event
        }
    }

    func confirm(_ mac: MACAddress, _ id: UInt64, _ token: IndicationToken) throws(DeviceError) {
        let link = try link(mac, id)
        guard let outstanding = link.outstanding, outstanding.token == token else {
            throw DeviceError(.protocolViolation, message: "no indication \(token.id) is waiting for a confirmation")
        }
        link.outstanding = nil
        if let sequenceNumber = outstanding.deletes {
            link.runtime.state.records.removeAll { $0.sequenceNumber == sequenceNumber }
        }
        pump(link)
    }

    func disconnect(_ mac: MACAddress, _ id: UInt64) {
        if let link = links[mac], link.id == id { links[mac] = nil }
    }

    // MARK: Device behaviour

    func drop(_ link: Link) {
        link.dropped = true
        links[link.runtime.configuration.mac] = nil
    }

    func advanceRadio(_ link: Link) {
        if let timing = link.runtime.configuration.radio { clock.advance(by: timing.interval) }
    }

    func token() -> IndicationToken {
        defer { nextToken += 1 }
        return IndicationToken(id: nextToken)
    }

    /// A value as the radio carries it: at most MTU − 3 bytes (longer values are cut, as an ATT notification is).
    func fitted(_ link: Link, _ value: [UInt8]) -> [UInt8] {
        Array(value.prefix(link.runtime.configuration.mtu - 3))
    }

    /// Sends a notification, if the central enabled them on `characteristic` (a GATT server sends none otherwise).
    func notify(_ link: Link, _ characteristic: CharacteristicID, _ value: [UInt8]) {
        guard link.subscribed.contains(characteristic) else { return }
        link.enqueue(.event(.notification(characteristic, fitted(link, value))))
    }

    /// Sends an indication, if the central enabled them on `characteristic`; the device waits for its confirmation.
    func indicate(
        _ link: Link, _ characteristic: CharacteristicID, _ value: [UInt8], deleting sequenceNumber: UInt16? = nil
    ) {
        guard link.subscribed.contains(characteristic) else { return }
        let token = token()
        link.outstanding = Outstanding(token: token, deletes: sequenceNumber)
        link.enqueue(.event(.indication(characteristic, fitted(link, value), token)))
    }

    func status(_ link: Link, _ event: VendorEvent) {
        notify(link, GATTCharacteristics.vendorStatus, event.encoded)
    }

    /// Sends the next record of a push transfer once the previous indication is confirmed.
    func pump(_ link: Link) {
        guard link.outstanding == nil, var transfer = link.transfer else { return }
        let runtime = link.runtime
        let records = runtime.state.records
        let index = transfer.deleteOnConfirm ? 0 : transfer.sent
        if index < records.count, let failure = runtime.transferFailure(after: transfer.sent) {
            link.transfer = nil
            switch failure {
            case .drop: link.enqueue(.drop)
            case .deviceError(let code): status(link, .deviceError(code: code))
            }
            return
        }
        guard index < records.count else {
            link.transfer = nil
            switch transfer.completion {
            case .transferComplete: status(link, .transferComplete(count: UInt16(transfer.sent)))
            case .racpResponse(let characteristic):
                indicate(
                    link, characteristic,
                    RecordAccessControlPoint.responseCode(request: .reportStoredRecords, response: .success).encoded())
            }
            return
        }
        transfer.sent += 1
        link.transfer = transfer
        let record = records[index]
        indicate(
            link, transfer.characteristic, runtime.encode(record),
            deleting: transfer.deleteOnConfirm ? record.sequenceNumber : nil)
    }

    func handle(_ command: VendorCommand, on link: Link) {
        let runtime = link.runtime
        if runtime.entry.family == .pulseOximeter, !link.authenticated {
            if case .authenticate = command {
            } else {
                status(link, .deviceError(code: 111))
                return
            }
        }
        switch command {
        case .authenticate:
            let result = runtime.configuration.authenticationResult
            link.authenticated = result <= 4
            status(link, .authenticationResult(result))
        case .setTime:
            status(link, .commandResult(opCode: 0x03, success: true))
        case .factoryReset:
            runtime.state.records.removeAll()
            status(link, .commandResult(opCode: 0x05, success: true))
        case .bindProfile(let profile):
            runtime.state.boundUserID = profile.userID
            runtime.state.swim = profile.swim == .on
            status(link, .commandResult(opCode: 0x06, success: true))
        case .reportActivity:
            reportActivity(on: link)
        case .deleteActivity(let count):
            runtime.state.records.removeFirst(min(Int(count), runtime.state.records.count))
            status(link, .commandResult(opCode: 0x08, success: true))
        case .startMeasurement, .startGlucoseMeasurement:
            measure(on: link)
        }
    }

    func reportActivity(on link: Link) {
        let runtime = link.runtime
        var sent = 0
        for record in runtime.state.records {
            if let failure = runtime.transferFailure(after: sent) {
                switch failure {
                case .drop: link.enqueue(.drop)
                case .deviceError(let code): status(link, .deviceError(code: code))
                }
                return
            }
            notify(link, GATTCharacteristics.activityRecords, runtime.encode(record))
            sent += 1
        }
        status(link, .transferComplete(count: UInt16(sent)))
    }

    func measure(on link: Link) {
        let runtime = link.runtime
        let entry = runtime.entry
        guard entry.measuresLive else {
            status(link, .commandResult(opCode: 0x01, success: false))
            return
        }
        clock.advance(by: runtime.measurementDuration)
        if entry.family == .bloodPressure {
            for pressure in [40, 120, 180, 140] {
                let cuff = IntermediateCuffPressure(unit: .mmHg, cuffPressure: SFloat(mantissa: pressure, exponent: 0)!)
                notify(link, GATTCharacteristics.intermediateCuffPressure, cuff.encoded())
            }
        }
        if entry.family == .pulseOximeter {
            for wave in [20, 60, 90, 40] {
                status(link, .pulseWave(UInt8(wave)))
                let sample = PLXContinuousMeasurement(
                    normal: SpO2PulseRate(
                        spO2: SFloat(mantissa: 97, exponent: 0)!, pulseRate: SFloat(mantissa: 70, exponent: 0)!))
                notify(link, GATTCharacteristics.plxContinuous, sample.encoded())
            }
        }
        if let code = runtime.configuration.failures.duringMeasurement, runtime.spend("duringMeasurement") {
            status(link, .deviceError(code: UInt8(clamping: code)))
            return
        }
        if user.cancelAt == "measure" {
            status(link, .commandResult(opCode: 0x01, success: false))
            return
        }
        var record = StoredRecord(
            sequenceNumber: 0, reading: SimulatedReading(runtime.nextMeasurement(at: clock.wallTime)))
        switch entry.family {
        case .glucose:
            // meters keep every reading; BG1 has no memory
            if entry.storesRecords {
                record.sequenceNumber = runtime.state.nextSequenceNumber
                runtime.state.nextSequenceNumber &+= 1
                runtime.state.records.append(record)
            }
            notify(link, GATTCharacteristics.glucoseMeasurement, runtime.encode(record))
        case .pulseOximeter:
            indicate(link, GATTCharacteristics.plxSpotCheck, runtime.encode(record))
        default:
            indicate(link, runtime.pushCharacteristic, runtime.encode(record))
        }
    }

    func handle(_ command: RecordAccessControlPoint, on link: Link, characteristic: CharacteristicID) {
        let runtime = link.runtime
        func respond(_ response: RecordAccessControlPoint) { indicate(link, characteristic, response.encoded()) }
        if runtime.entry.family == .pulseOximeter, !link.authenticated {
            status(link, .deviceError(code: 111))
            return
        }
        switch command {
        case .reportNumberOfStoredRecords(let filter):
            respond(.numberOfStoredRecordsResponse(UInt16(clamping: runtime.matching(filter).count)))
        case .reportStoredRecords(let filter):
            let matching = runtime.matching(filter)
            guard !matching.isEmpty else {
                respond(.responseCode(request: .reportStoredRecords, response: .noRecordsFound))
                return
            }
            if runtime.entry.family == .pulseOximeter {
                link.transfer = Transfer(
                    characteristic: GATTCharacteristics.plxSpotCheck, deleteOnConfirm: false,
                    completion: .racpResponse(characteristic))
                pump(link)
                return
            }
            for (sent, record) in matching.enumerated() {
                if let failure = runtime.transferFailure(after: sent) {
                    switch failure {
                    case .drop: link.enqueue(.drop)
                    case .deviceError(let code): status(link, .deviceError(code: code))
                    }
                    return
                }
                notify(link, GATTCharacteristics.glucoseMeasurement, runtime.encode(record))
            }
            respond(.responseCode(request: .reportStoredRecords, response: .success))
        case .deleteStoredRecords(let filter):
            let doomed = Set(runtime.matching(filter).map(\.sequenceNumber))
            runtime.state.records.removeAll { doomed.contains($0.sequenceNumber) }
            respond(.responseCode(request: .deleteStoredRecords, response: .success))
        case .abortOperation:
            // the records not yet sent and the report's own response are dropped
            link.removePending {
                switch $0 {
                case .event(.notification(GATTCharacteristics.glucoseMeasurement, _)): true
                case .event(.indication(characteristic, _, _)): true
                default: false
                }
            }
            link.outstanding = nil
            respond(.responseCode(request: .abortOperation, response: .success))
        case .numberOfStoredRecordsResponse, .responseCode:
            respond(.responseCode(request: .reportStoredRecords, response: .opCodeNotSupported))
        }
    }
}

/// A fleet device, validated.
public struct SimulatedDeviceConfiguration: Hashable, Sendable {
    public let entry: CatalogEntry
    public let mac: MACAddress
    public let serial: String
    public let firmware: String
    public let paired: Bool
    public let inRange: Bool
    public let failures: FailureScript
    public let radio: ResolvedRadioTiming?
    public let mtu: Int
    public let authenticationResult: UInt8
    public let seed: UInt64
    let device: FleetDevice

    init(_ device: FleetDevice, path: String) throws(FleetError) {
        guard let model = DeviceModel(modelString: device.model) else {
            throw FleetError(path: path + ".model", message: "is not a catalogued model (BP5, BP3L, KN550BT, …, THV3)")
        }
        guard let mac = MACAddress(device.mac) else {
            throw FleetError(path: path + ".mac", message: "is not 12 hexadecimal digits")
        }
        if let battery = device.battery, !(0...100).contains(battery) {
            throw FleetError(path: path + ".battery", message: "must be from 0 to 100")
        }
        let result = device.authenticationResult ?? 2
        guard (1...8).contains(result) else {
            throw FleetError(path: path + ".authenticationResult", message: "must be from 1 to 8")
        }
        var mtu = 23
        if let radio = device.radio {
            guard radio.connectionIntervalMilliseconds >= 7.5, radio.connectionIntervalMilliseconds <= 4000 else {
                throw FleetError(
                    path: path + ".radio.connectionIntervalMilliseconds", message: "must be from 7.5 to 4000")
            }
            guard radio.notificationsPerEvent >= 1 else {
                throw FleetError(path: path + ".radio.notificationsPerEvent", message: "must be at least 1")
            }
            mtu = radio.mtu ?? 23
            guard (23...517).contains(mtu) else {
                throw FleetError(path: path + ".radio.mtu", message: "must be from 23 to 517")
            }
        }
        entry = DeviceCatalog.entry(for: model)
        self.mac = mac
        serial = device.serial ?? "\(model.name)-\(mac.description.suffix(6))"
        firmware = device.firmware ?? "1.0.0"
        paired = device.paired ?? true
        inRange = device.inRange ?? true
        failures = device.failures ?? FailureScript()
        radio = device.radio.map {
            ResolvedRadioTiming(
                interval: .microseconds(Int64(($0.connectionIntervalMilliseconds * 1000).rounded())),
                notificationsPerEvent: $0.notificationsPerEvent)
        }
        self.mtu = mtu
        authenticationResult = UInt8(result)
        seed = device.seed ?? mac.value
        self.device = device
        for (index, reading) in (device.nextMeasurements ?? []).enumerated() {
            // the time of a live measurement defaults to when it is taken
            var check = reading
            check.measuredAt = check.measuredAt ?? "2000-01-01 00:00:00"
            check.date = check.date ?? "2000-01-01"
            _ = try check.reading(for: entry.family, at: path + ".nextMeasurements[\(index)]")
        }
    }

    /// Checks the device's records script, everything ``initialState()`` relies on, without generating records:
    /// a world checks every device when it is made but generates a device's records only when it is first used.
    func checkRecords(path: String) throws(FleetError) {
        var days: [LayeredDate] = []
        for (index, reading) in (device.records?.list ?? []).enumerated() {
            days.append(try reading.reading(for: entry.family, at: path + ".records.list[\(index)]").measuredAt.day)
        }
        if let generate = device.records?.generate {
            guard generate.count >= 0, generate.count <= 65_000 else {
                throw FleetError(path: path + ".records.generate.count", message: "must be from 0 to 65000")
            }
            guard let times = generatedTimes(generate) else {
                throw FleetError(path: path + ".records.generate", message: "needs from ≤ to, both yyyy-MM-dd HH:mm:ss")
            }
            days += times.map(\.day)
        }
        let sortedDays = days.sorted()
        if entry.family == .activityMonitor, zip(sortedDays, sortedDays.dropFirst()).contains(where: { $0 == $1 }) {
            throw FleetError(path: path + ".records", message: "has two activity days on the same date")
        }
        if !days.isEmpty, !entry.storesRecords {
            throw FleetError(path: path + ".records", message: "\(entry.model.name) keeps no records")
        }
    }

    /// The times of the generated records, spread evenly from `from` to `to`; `nil` if those are not times in order.
    private func generatedTimes(_ generate: GeneratedRecords) -> [LayeredTimestamp]? {
        guard let from = LayeredTimestamp(parsing: generate.from), let to = LayeredTimestamp(parsing: generate.to),
            from <= to
        else { return nil }
        let span = to.secondsSince1970 - from.secondsSince1970
        return (0..<max(generate.count, 0)).map { index in
            let offset = generate.count > 1 ? span * Int64(index) / Int64(generate.count - 1) : 0
            return LayeredTimestamp(secondsSince1970: from.secondsSince1970 + offset)
        }
    }

    /// The state of a device the world has not seen before: its fleet records, numbered from 1. The script must
    /// have passed ``checkRecords(path:)``.
    func initialState() -> DeviceState {
        var generator = SeededGenerator(seed: seed)
        var readings = (device.records?.list ?? []).compactMap { try? $0.reading(for: entry.family, at: "") }
        if let generate = device.records?.generate, let times = generatedTimes(generate) {
            var random = SeededGenerator(seed: generate.seed ?? seed)
            for time in times {
                readings.append(
                    ReadingGenerator.reading(for: entry, at: time, swim: entry.model == .am4, using: &random))
            }
        }
        _ = generator.next()
        return DeviceState(
            records: readings.enumerated().map {
                StoredRecord(sequenceNumber: UInt16($0.offset + 1), reading: SimulatedReading($0.element))
            },
            nextSequenceNumber: UInt16(readings.count + 1), battery: device.battery ?? 100, generator: generator,
            measurementsTaken: 0, spentFailures: [], boundUserID: nil, swim: entry.model == .am4)
    }
}

/// Radio timing in durations.
public struct ResolvedRadioTiming: Hashable, Sendable {
    public let interval: Duration
    public let notificationsPerEvent: Int
}

/// Values by device MAC, in a short list: a fleet has a handful of devices, and a dictionary keyed by a VitalBridge
/// type costs the Swift runtime a scan of every protocol conformance in the process at its first use.
struct ByMAC<Value> {
    private var entries: [(mac: MACAddress, value: Value)] = []

    subscript(mac: MACAddress) -> Value? {
        get { entries.first { $0.mac == mac }?.value }
        set {
            let index = entries.firstIndex { $0.mac == mac }
            switch (index, newValue) {
            case (let index?, let value?): entries[index].value = value
            case (let index?, nil): entries.remove(at: index)
            case (nil, let value?): entries.append((mac, value))
            case (nil, nil): break
            }
        }
    }
}
