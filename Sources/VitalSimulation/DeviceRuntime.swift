import HealthGATT
import LayeredProtocol
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

    /// The characteristic a push device indicates its readings on.
    var pushCharacteristic: CharacteristicID { entry.measurementCharacteristic }

    /// How long a live measurement takes, in virtual time.
    var measurementDuration: Duration {
        switch entry.family {
        case .bloodPressure: .seconds(40)
        case .pulseOximeter: .seconds(20)
        case .glucose: .seconds(5)
        case .scale: .seconds(3)
        case .thermometer, .activityMonitor: .seconds(2)
        }
    }

    /// A stored reading, already validated when the world was made.
    func reading(_ reading: SimulatedReading) -> LayeredReading {
        do {
            return try reading.reading(for: entry.family, at: "record")
        } catch {
            preconditionFailure("a record validated at load no longer reads: \(error)")
        }
    }

    /// The reading the next live measurement returns: the fleet's next listed one, else a generated one.
    func nextMeasurement(at time: LayeredTimestamp) -> LayeredReading {
        defer { state.measurementsTaken += 1 }
        let listed = configuration.device.nextMeasurements ?? []
        if state.measurementsTaken < listed.count {
            var scripted = listed[state.measurementsTaken]
            if scripted.measuredAt == nil, scripted.date == nil {
                scripted.measuredAt = time.description
                scripted.date = time.day.description
            }
            return reading(scripted)
        }
        return ReadingGenerator.reading(for: entry, at: time, swim: state.swim, using: &state.generator)
    }

    /// The records a Record Access Control Point filter selects, in sequence order.
    func matching(_ filter: RecordFilter) -> [StoredRecord] {
        let records = state.records
        func time(_ record: StoredRecord) -> DateTime { DateTime(reading(record.reading).measuredAt) }
        switch filter {
        case .all: return records
        case .first: return Array(records.prefix(1))
        case .last: return Array(records.suffix(1))
        case .lessThanOrEqual(.sequenceNumber(let number)): return records.filter { $0.sequenceNumber <= number }
        case .greaterThanOrEqual(.sequenceNumber(let number)): return records.filter { $0.sequenceNumber >= number }
        case .lessThanOrEqual(.userFacingTime(let bound)): return records.filter { time($0) <= bound }
        case .greaterThanOrEqual(.userFacingTime(let bound)): return records.filter { time($0) >= bound }
        case .sequenceNumbers(let range): return records.filter { range.contains($0.sequenceNumber) }
        case .userFacingTimes(let from, let through): return records.filter { (from...through).contains(time($0)) }
        }
    }

    /// The record as the device sends it, in its family's SIG (or vendor) format.
    func encode(_ record: StoredRecord) -> [UInt8] {
        let value = reading(record.reading)
        func sfloat(_ number: Double) -> SFloat { SFloat(mantissa: Int(number.rounded()), exponent: 0)! }
        switch value {
        case .bloodPressure(let bp):
            let mean = ((bp.systolic + 2 * bp.diastolic) / 3).rounded()
            return BloodPressureMeasurement(
                unit: .mmHg, systolic: sfloat(bp.systolic), diastolic: sfloat(bp.diastolic),
                meanArterialPressure: sfloat(mean), timeStamp: DateTime(bp.measuredAt),
                pulseRate: bp.heartRate.map { sfloat(Double($0)) },
                status: bp.arrhythmia.map { $0 ? .irregularPulseDetected : [] }
            ).encoded()
        case .glucose(let glucose):
            // mg/dL as kg/L: n mg/dL = n × 10⁻⁵ kg/L
            return GlucoseMeasurement(
                sequenceNumber: record.sequenceNumber, baseTime: DateTime(glucose.measuredAt),
                concentration: .init(
                    value: SFloat(mantissa: Int(glucose.mgPerDeciliter.rounded()), exponent: -5)!,
                    type: .capillaryPlasma,
                    location: .finger)
            ).encoded()
        case .weight(let weight):
            let mass = MassValue(weight.kilograms, in: .si)!
            if entry.measuresBodyComposition {
                return BodyCompositionMeasurement(
                    system: .si, bodyFatPercentage: UInt16(150 + mass.raw % 150),
                    timeStamp: DateTime(weight.measuredAt),
                    weight: mass
                ).encoded()
            }
            return WeightMeasurement(system: .si, weight: mass, timeStamp: DateTime(weight.measuredAt)).encoded()
        case .temperature(let temperature):
            return TemperatureMeasurement(
                unit: .celsius,
                temperature: MedicalFloat(mantissa: Int((temperature.celsius * 10).rounded()), exponent: -1)!,
                timeStamp: DateTime(temperature.measuredAt), type: .body
            ).encoded()
        case .oximetry(let oximetry):
            return PLXSpotCheckMeasurement(
                spO2PulseRate: SpO2PulseRate(
                    spO2: sfloat(Double(oximetry.oxygenSaturation)), pulseRate: sfloat(Double(oximetry.heartRate))),
                timeStamp: DateTime(oximetry.measuredAt),
                pulseAmplitudeIndex: oximetry.perfusionIndex.map {
                    SFloat(mantissa: Int(($0 * 10).rounded()), exponent: -1)!
                }
            ).encoded()
        case .activity(let day):
            return ActivityDayRecord(day: day).encoded
        }
    }
}

/// An open link's state.
final class Link {
    let id: UInt64
    let runtime: DeviceRuntime
    /// The characteristics whose notifications or indications the central enabled (a short list: a dictionary or
    /// set keyed by a VitalBridge type costs a scan of every conformance in the process at its first use).
    var subscribed: [CharacteristicID] = []
    private var queue: [Pending] = []
    private var head = 0
    var outstanding: Outstanding?
    var transfer: Transfer?
    var dropped = false
    var authenticated = false
    var packets = 0

    init(id: UInt64, runtime: DeviceRuntime) {
        self.id = id
        self.runtime = runtime
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

    func removePending(where shouldRemove: (Pending) -> Bool) {
        queue = Array(queue[head...].filter { !shouldRemove($0) })
        head = 0
    }
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

/// A transfer of stored records one indication at a time.
struct Transfer {
    enum Completion {
        case transferComplete
        case racpResponse(CharacteristicID)
    }

    let characteristic: CharacteristicID
    /// Push devices delete a record when its indication is confirmed; the PO3 waits for a RACP delete.
    let deleteOnConfirm: Bool
    let completion: Completion
    var sent = 0
}

/// The simulated link as the drivers see it.
final class SimulatedConnection: BluetoothConnection {
    let world: SimulatedWorld
    let peripheral: MACAddress
    let linkID: UInt64
    private let negotiatedMTU: Int

    init(world: SimulatedWorld, peripheral: MACAddress, linkID: UInt64, mtu: Int) {
        self.world = world
        self.peripheral = peripheral
        self.linkID = linkID
        self.negotiatedMTU = mtu
    }

    var mtu: Int { get async { negotiatedMTU } }

    func read(_ characteristic: CharacteristicID) async throws(DeviceError) -> [UInt8] {
        try await world.read(peripheral, linkID, characteristic)
    }

    func write(_ characteristic: CharacteristicID, _ value: [UInt8]) async throws(DeviceError) {
        try await world.write(peripheral, linkID, characteristic, value)
    }

    func subscribe(_ characteristic: CharacteristicID) async throws(DeviceError) {
        try await world.subscribe(peripheral, linkID, characteristic)
    }

    func nextEvent() async throws(DeviceError) -> GATTEvent {
        try await world.nextEvent(peripheral, linkID)
    }

    func confirm(_ token: IndicationToken) async throws(DeviceError) {
        try await world.confirm(peripheral, linkID, token)
    }

    func disconnect() async {
        await world.disconnect(peripheral, linkID)
    }
}
