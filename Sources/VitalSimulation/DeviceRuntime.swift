import HealthGATT
import VitalCore
import VitalDevices

/// A device's configuration and live state inside the world actor.
final class DeviceRuntime {
    let configuration: SimulatedDeviceConfiguration
    var state: DeviceState

    init(configuration: SimulatedDeviceConfiguration, state: DeviceState) {
        self.configuration = configuration
        self.state = state
    }

    var entry: CatalogEntry { configuration.entry }

    /// Whether the device is in range at the world's time `time` (``SimulatedDeviceConfiguration/isInRange(at:)``).
    /// Asked twice for every event the device sends: from here, the configuration is read in place, where the world
    /// reading `link.runtime.configuration` copied all of it for the question (1,700 instructions a pushed record).
    func isInRange(at time: Timestamp) -> Bool { configuration.isInRange(at: time) }

    /// Marks the one-shot failure `name` as spent; `true` if it had not happened yet.
    func spend(_ name: String) -> Bool { state.spentFailures.insert(name).inserted }

    enum TransferFailure {
        case drop
        case deviceError(UInt8)
    }

    /// The failure to inject before sending record number `sent + 1` of a transfer, if one is due.
    func transferFailure(after sent: Int) -> TransferFailure? {
        if let count = configuration.failures.disconnectAfter, sent == count, spend("disconnectAfter") { return .drop }
        if let failure = configuration.failures.duringSync, sent == failure.afterRecords, spend("duringSync") {
            return .deviceError(UInt8(clamping: failure.code))
        }
        return nil
    }

    /// Whether the link drops instead of sending the device's next notification or indication (the fleet's
    /// `linkDrops`): drawn from the device's generator, which its saved state keeps, so the same fleet drops at the
    /// same packets on every run, and a later process does not repeat an earlier one's draws.
    func dropsLink() -> Bool {
        guard let rate = configuration.failures.linkDrops, rate > 0 else { return false }
        // 53 random bits: a uniform Double in [0, 1)
        return Double(state.generator.next() >> 11) * 0x1p-53 < rate
    }

    /// The characteristic a push device indicates its readings on.
    var pushCharacteristic: CharacteristicID { entry.measurementCharacteristic }

    /// The characteristic the device sends a live reading on: a pulse oximeter without spot-checks sends its
    /// continuous measurements.
    var liveCharacteristic: CharacteristicID {
        configuration.spotCheck ? entry.measurementCharacteristic : GATTCharacteristics.plxContinuous
    }

    /// The values a push device indicates for `record`, in order, on the characteristics `link` subscribed to: a
    /// generic scale with the Body Composition Service sends a weight and its composition apart.
    func indications(of record: StoredRecord, on link: Link) -> [(CharacteristicID, [UInt8])] {
        let whole = [(pushCharacteristic, encode(record))]
        guard let order = configuration.bodyComposition, case .weight = record.reading,
            link.subscribed.contains(GATTCharacteristics.bodyComposition)
        else { return whole }
        let composition = (GATTCharacteristics.bodyComposition, composition(of: record.reading, with: nil).encoded())
        return order == .afterWeight ? whole + [composition] : [composition] + whole
    }

    /// The time the device's clock shows at the true time `time`: as the fleet set it until the hub set it (a
    /// reading taken before then keeps the time the clock showed then), and as the hub set it from then.
    func deviceTime(_ time: Timestamp) -> Timestamp {
        guard let set = state.clockSet, time >= set.at else { return configuration.deviceTime(time) }
        return Timestamp(secondsSince1970: time.secondsSince1970 + set.offset)
    }

    /// The time stamp of a reading taken at `time` (the true time), as the device's clock shows it: none from a
    /// device without a clock.
    func stamp(_ time: Timestamp) -> DateTime? {
        configuration.clock ? DateTime(deviceTime(time)) : nil
    }

    /// The Current Time (0x2A2B) the device's clock shows at the true time `time`.
    func currentTime(at time: Timestamp) -> CurrentTime {
        CurrentTime(deviceTime(time))
    }

    /// The Body Composition Measurement of `reading` (a weight), with the weight field `mass` when given; its body
    /// fat is reported unsuccessful when the reading has no composition or its body fat is unavailable; the user
    /// index is its user ID.
    func composition(of reading: Reading, with mass: MassValue?) -> BodyCompositionMeasurement {
        guard case .weight(let weight) = reading else { preconditionFailure("a body composition of \(reading)") }
        let fatUnavailable = reading.unavailableFields.contains { $0.field.name == "fat" }
        return BodyCompositionMeasurement(
            system: .si,
            bodyFatPercentage: fatUnavailable
                ? 0xFFFF : weight.bodyComposition.map { UInt16(($0.bodyFatPercentage * 10).rounded()) } ?? 0xFFFF,
            timeStamp: stamp(weight.measuredAt), userID: weight.annotations.userIndex, weight: mass)
    }

    /// How long a live measurement takes, in virtual time.
    var measurementDuration: Duration {
        switch entry.family {
        case .bloodPressure: .seconds(40)
        case .pulseOximeter: .seconds(20)
        case .glucose: .seconds(5)
        case .scale: .seconds(3)
        case .thermometer, .activityMonitor, .smartband, .heartRateSensor: .seconds(2)
        }
    }

    /// The reading the next live measurement returns: the fleet's next listed one, else a generated one.
    func nextMeasurement(at time: Timestamp) -> Reading {
        defer { state.measurementsTaken += 1 }
        let listed = configuration.device.nextMeasurements ?? []
        if state.measurementsTaken < listed.count {
            var scripted = listed[state.measurementsTaken]
            if scripted.measuredAt == nil, scripted.date == nil {
                scripted.measuredAt = time.description
                scripted.date = time.day.description
            }
            do {
                return configuration.recorded(try scripted.reading(for: entry.family, at: "nextMeasurements"))
            } catch {
                preconditionFailure("a measurement validated at load no longer reads: \(error)")
            }
        }
        return configuration.person.reading(
            for: entry, at: time, swim: state.swim, composition: configuration.measuresBodyComposition,
            using: &state.generator)
    }

    /// Whether `record` is one of those a Record Access Control Point `filter` selects; `first` and `last` are
    /// resolved to sequence numbers by ``resolved(_:)`` first.
    func matches(_ record: StoredRecord, _ filter: RecordFilter) -> Bool {
        func time() -> DateTime { DateTime(deviceTime(record.reading.measuredAt)) }
        switch filter {
        case .all: return true
        case .first, .last: return false
        case .lessThanOrEqual(.sequenceNumber(let number)): return record.sequenceNumber <= number
        case .greaterThanOrEqual(.sequenceNumber(let number)): return record.sequenceNumber >= number
        case .lessThanOrEqual(.userFacingTime(let bound)): return time() <= bound
        case .greaterThanOrEqual(.userFacingTime(let bound)): return time() >= bound
        case .sequenceNumbers(let range): return range.contains(record.sequenceNumber)
        case .userFacingTimes(let from, let through): return (from...through).contains(time())
        }
    }

    /// `filter` with `first` and `last` turned into the sequence number of the oldest or newest record (a filter
    /// that selects nothing when the memory is empty).
    func resolved(_ filter: RecordFilter) -> RecordFilter {
        let records = state.records
        switch filter {
        case .first, .last:
            guard let record = filter == .first ? records.first : records.last else { return .sequenceNumbers(1...0) }
            return .sequenceNumbers(record.sequenceNumber...record.sequenceNumber)
        default: return filter
        }
    }

    /// How many records `filter` selects.
    func count(_ filter: RecordFilter) -> Int {
        let filter = resolved(filter)
        return state.records.reduce(0) { $0 + (matches($1, filter) ? 1 : 0) }
    }

    /// The record as the device sends it, in its family's SIG (or vendor) format, with what its annotations say:
    /// an unavailable field as its special value (a scale's as 65535, "measurement unsuccessful"), the statuses in
    /// the profile's status fields and flags, the user index as the user ID.
    func encode(_ record: StoredRecord) -> [UInt8] {
        let value = record.reading
        let annotations = value.annotations
        let unavailable = Dictionary(
            value.unavailableFields.map { ($0.field.name ?? "", $0.value) }, uniquingKeysWith: { first, _ in first })
        func sfloat(_ number: Double, _ name: String, exponent: Int = 0) -> SFloat {
            if let special = unavailable[name] { return SFloat(SpecialFloatValue(special)) }
            var mantissa = number
            for _ in 0..<(-exponent) { mantissa *= 10 }
            return SFloat(mantissa: Int(mantissa.rounded()), exponent: exponent)!
        }
        switch value {
        case .bloodPressure(let bp):
            let mean = ((bp.systolic + 2 * bp.diastolic) / 3).rounded()
            var status = BloodPressureMeasurementStatus(annotations.status)
            if bp.arrhythmia == true { status = (status ?? []).union(.irregularPulseDetected) }
            return BloodPressureMeasurement(
                unit: .mmHg, systolic: sfloat(bp.systolic, "sys"), diastolic: sfloat(bp.diastolic, "dia"),
                // the mean of a reading with a special value is not known either
                meanArterialPressure: unavailable.isEmpty ? sfloat(mean, "") : SFloat(.nan),
                timeStamp: stamp(bp.measuredAt),
                pulseRate: bp.heartRate.map { sfloat(Double($0), "hr") }, userID: annotations.userIndex,
                status: bp.arrhythmia == nil ? status : status ?? []
            ).encoded()
        case .glucose(let glucose):
            // mg/dL as kg/L: n mg/dL = n × 10⁻⁵ kg/L
            let annunciation = UInt16(
                truncatingIfNeeded: annotations.status.rawValue >> ReadingStatus.firstBit("deviceBatteryLow") & 0xFFF)
            return GlucoseMeasurement(
                sequenceNumber: record.sequenceNumber, baseTime: DateTime(deviceTime(glucose.measuredAt)),
                concentration: .init(
                    value: unavailable["mgdl"].map { SFloat(SpecialFloatValue($0)) }
                        ?? SFloat(mantissa: Int(glucose.mgPerDeciliter.rounded()), exponent: -5)!,
                    type: .capillaryPlasma,
                    location: .finger),
                sensorStatus: annunciation == 0 ? nil : SensorStatusAnnunciation(rawValue: annunciation)
            ).encoded()
        case .weight(let weight):
            let mass = unavailable["kg"] != nil ? MassValue(raw: 0xFFFF) : MassValue(weight.kilograms, in: .si)!
            if entry.measuresBodyComposition { return composition(of: value, with: mass).encoded() }
            return WeightMeasurement(
                system: .si, weight: mass, timeStamp: stamp(weight.measuredAt), userID: annotations.userIndex
            ).encoded()
        case .temperature(let temperature):
            let site = annotations.status.intersection(DeviceFamily.sites).names.first
            return TemperatureMeasurement(
                unit: .celsius,
                temperature: unavailable["c"].map { MedicalFloat(SpecialFloatValue($0)) }
                    ?? MedicalFloat(mantissa: Int((temperature.celsius * 10).rounded()), exponent: -1)!,
                timeStamp: stamp(temperature.measuredAt),
                type: site.flatMap { name in
                    TemperatureType(
                        rawValue: UInt8(ReadingStatus.firstBit(name) - ReadingStatus.firstBit("armpit") + 1))
                }
            ).encoded()
        case .oximetry(let oximetry):
            let bits = annotations.status.rawValue
            let measurement =
                UInt16(
                    truncatingIfNeeded: bits >> ReadingStatus.firstBit("measurementOngoing") & 0x7FF) << 5
            let device = UInt32(
                truncatingIfNeeded: bits >> ReadingStatus.firstBit("extendedDisplayUpdateOngoing") & 0xFFFF)
            return PLXSpotCheckMeasurement(
                spO2PulseRate: SpO2PulseRate(
                    spO2: sfloat(Double(oximetry.oxygenSaturation), "spo2"),
                    pulseRate: sfloat(Double(oximetry.heartRate), "hr")),
                timeStamp: stamp(oximetry.measuredAt),
                measurementStatus: measurement == 0 ? nil : PLXMeasurementStatus(rawValue: measurement),
                deviceAndSensorStatus: device == 0 ? nil : PLXDeviceAndSensorStatus(rawValue: device),
                pulseAmplitudeIndex: oximetry.perfusionIndex.map { sfloat($0, "pi", exponent: -1) },
                deviceClockNotSet: annotations.status.contains(.deviceClockNotSet)
            ).encoded()
        case .activity(let day):
            return ActivityDayRecord(day: day).encoded
        case .band:
            preconditionFailure("a band day is never in a device's memory: bands hold items (BandState)")
        case .heartRate:
            preconditionFailure("a heart-rate sensor keeps no records: it streams beats (HeartRatePeripheral)")
        }
    }
}

/// An open link's state.
final class Link {
    let id: UInt64
    let runtime: DeviceRuntime
    /// The device's profile.
    let peripheral: any SimulatedPeripheral
    /// The world's time.
    let clock: VirtualClock
    /// The characteristics whose notifications or indications the central enabled (a short list: a dictionary or
    /// set keyed by a VitalBridge type costs a scan of every conformance in the process at its first use).
    var subscribed: [CharacteristicID] = []
    private var queue: [Pending] = []
    private var head = 0
    var outstanding: Outstanding?
    /// Indications made while another waited for its confirmation (a User Control Point response written during a
    /// transfer): ATT has one in flight at a time, so each is sent once the one before it is confirmed.
    private var held: [(characteristic: CharacteristicID, value: [UInt8], deletes: UInt16?)] = []
    /// The transfer of stored records in progress; its records are sent as the central takes the previous ones.
    var transfer: Transfer?
    var dropped = false
    var authenticated = false
    /// What a band sent on this link, once the central subscribed to its data.
    var band: LinkBand?
    /// A heart-rate sensor's beats on this link, once the central subscribed to them.
    var heartRate: HeartRateStream?
    /// Whether the user of a standard device took the measurement this link waited for.
    var userMeasured = false
    /// The user the central consented as on this link through the User Data Service; `nil` until a consent.
    var consentedUser: UInt8?
    var packets = 0
    private var nextToken: UInt64 = 1

    init(id: UInt64, runtime: DeviceRuntime, peripheral: any SimulatedPeripheral, clock: VirtualClock) {
        self.id = id
        self.runtime = runtime
        self.peripheral = peripheral
        self.clock = clock
    }

    var isIdle: Bool { head == queue.count }

    /// Whether the device sends `record` on this link: on a device with a User Data Service, a record of a user
    /// (a user index other than 255, the unknown user) only on a link consented as that user; every other record to
    /// anyone.
    func sends(_ record: StoredRecord) -> Bool {
        guard runtime.configuration.userData != nil, let user = record.reading.annotations.userIndex,
            user != UserDataService.unknownUser
        else { return true }
        return user == consentedUser
    }

    func enqueue(_ pending: Pending) { queue.append(pending) }

    func dequeue() -> Pending? {
        guard head < queue.count else { return nil }
        defer {
            head += 1
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
            }
        }
        return queue[head]
    }

    /// Drops what the link has not delivered yet that `shouldRemove` selects, the indications held back too.
    func removePending(where shouldRemove: (Pending) -> Bool) {
        queue = Array(queue[head...].filter { !shouldRemove($0) })
        head = 0
        held.removeAll { shouldRemove(.event(.indication($0.characteristic, $0.value, IndicationToken(id: 0)))) }
    }

    /// Sends a notification, if the central enabled them on `characteristic` (a GATT server sends none otherwise).
    func notify(_ characteristic: CharacteristicID, _ value: [UInt8]) {
        guard subscribed.contains(characteristic) else { return }
        enqueue(.event(.notification(characteristic, fitted(value))))
    }

    /// Sends an indication, if the central enabled them on `characteristic`; the device sends nothing more until
    /// it is confirmed, and then forgets `deleting`, if given.
    func indicate(_ characteristic: CharacteristicID, _ value: [UInt8], deleting sequenceNumber: UInt16? = nil) {
        guard subscribed.contains(characteristic) else { return }
        guard outstanding == nil else {
            held.append((characteristic, value, sequenceNumber))
            return
        }
        let token = IndicationToken(id: nextToken)
        nextToken += 1
        outstanding = Outstanding(token: token, deletes: sequenceNumber)
        enqueue(.event(.indication(characteristic, fitted(value), token)))
    }

    /// The outstanding indication was confirmed: the next one held back, if any, is sent.
    func confirmed() {
        outstanding = nil
        guard !held.isEmpty else { return }
        let next = held.removeFirst()
        indicate(next.characteristic, next.value, deleting: next.deletes)
    }

    /// Notifies a vendor status event.
    func status(_ event: VendorEvent) { notify(GATTCharacteristics.vendorStatus, event.encoded) }

    /// A value as the radio carries it: at most MTU − 3 bytes (longer values are cut, as an ATT notification is).
    private func fitted(_ value: [UInt8]) -> [UInt8] { Array(value.prefix(runtime.configuration.mtu - 3)) }
}

/// What a link will deliver next.
enum Pending {
    case event(GATTEvent)
    /// The link drops here.
    case drop
}

/// An indication waiting for its confirmation, and the record its confirmation deletes.
struct Outstanding {
    let token: IndicationToken
    let deletes: UInt16?
}

/// A transfer of stored records: the records a filter selects, oldest first, sent one at a time as the central
/// takes them (a device does not queue 65,000 notifications at once), then a completion.
struct Transfer {
    enum Sending {
        /// Indications, each record forgotten when its indication is confirmed (push devices).
        case indicationsDeletingOnConfirm
        /// Indications, kept until a delete command (PO3).
        case indications
        /// Notifications (glucose meters, activity monitors).
        case notifications
    }

    enum Completion {
        /// Nothing: a standard push device announces no end, it goes quiet (and disconnects when the hub stops
        /// waiting for more).
        case quiet
        /// ``VendorEvent/transferComplete(count:)`` on the status characteristic.
        case transferComplete
        /// A Record Access Control Point success response on that characteristic.
        case racpSuccess(CharacteristicID)
    }

    let characteristic: CharacteristicID
    let sending: Sending
    let completion: Completion
    /// The records to send, with `first` and `last` already resolved.
    let filter: RecordFilter
    /// The memory position to look at next (records before it were sent, or forgotten).
    var position = 0
    /// Whether the transfer goes back to the memory's start once the record it is sending is whole (a Consent
    /// made records it passed over sendable).
    var restarts = false
    /// Which of the record's values goes next, for a record sent as several (a weight and its composition).
    var part = 0
    var sent = 0

    init(_ characteristic: CharacteristicID, sending: Sending, completion: Completion, filter: RecordFilter = .all) {
        self.characteristic = characteristic
        self.sending = sending
        self.completion = completion
        self.filter = filter
    }
}

/// A link to a device of a ``SimulatedWorld``: what the drivers see as a `BluetoothConnection`, and what a
/// transport serving the world to other processes hands back to it (``SimulatedWorld/pendingEvent(on:)``,
/// ``SimulatedWorld/advance(on:)``). Made by ``SimulatedWorld/open(_:)``.
public final class SimulatedConnection: BluetoothConnection {
    let world: SimulatedWorld
    /// The device's MAC address.
    public let peripheral: MACAddress
    /// Which of the world's links to the device this is: a link that dropped is never the device's next.
    let linkID: UInt64
    private let negotiatedMTU: Int

    init(world: SimulatedWorld, peripheral: MACAddress, linkID: UInt64, mtu: Int) {
        self.world = world
        self.peripheral = peripheral
        self.linkID = linkID
        self.negotiatedMTU = mtu
    }

    public var mtu: Int { get async { negotiatedMTU } }

    public func read(_ characteristic: CharacteristicID) async throws(DeviceError) -> [UInt8] {
        try await world.read(peripheral, linkID, characteristic)
    }

    public func write(_ characteristic: CharacteristicID, _ value: [UInt8]) async throws(DeviceError) {
        try await world.write(peripheral, linkID, characteristic, value)
    }

    public func subscribe(_ characteristic: CharacteristicID) async throws(DeviceError) {
        try await world.subscribe(peripheral, linkID, characteristic)
    }

    public func nextEvent() async throws(DeviceError) -> GATTEvent {
        let before = world.clock.elapsedTime
        let event = try await world.nextEvent(peripheral, linkID)
        await keepPace(since: before)
        return event
    }

    public func nextEvent(within timeout: Duration) async throws(DeviceError) -> GATTEvent? {
        let before = world.clock.elapsedTime
        let event = try await world.nextEvent(peripheral, linkID, within: timeout)
        await keepPace(since: before)
        return event
    }

    /// With the fleet's `pace`, waits in real time for the world's time that passed since `before`, divided by the
    /// pace; at once without one (and when the task is cancelled: a stopped follower does not wait).
    private func keepPace(since before: Duration) async {
        guard let pace = world.pace else { return }
        let passed = world.clock.elapsedTime - before
        guard passed > .zero else { return }
        try? await Task.sleep(for: passed / pace)
    }

    public func offers(_ characteristic: CharacteristicID) async -> Bool {
        world.offers(characteristic, on: peripheral)
    }

    public func confirm(_ token: IndicationToken) async throws(DeviceError) {
        try await world.confirm(peripheral, linkID, token)
    }

    public func disconnect() async {
        await world.disconnect(peripheral, linkID)
    }
}
