import HealthGATT
import VitalCore
import VitalDevices

/// One simulated peripheral's profile: what its GATT server does beyond what every VitalBridge device shares (the
/// vendor control point's clock, reset and measurement start, the transfer of stored records, failure injection
/// and radio timing, which ``SimulatedWorld`` runs for all of them).
protocol SimulatedPeripheral {
    /// The peripheral of a device's runtime, made for each link.
    init(runtime: DeviceRuntime)
    var runtime: DeviceRuntime { get }
    /// The services of the profile a device of `configuration` serves, in their order in its GATT table, after the
    /// Device Information and Battery services every device has (``services(of:)``).
    static func profileServices(of configuration: SimulatedDeviceConfiguration) -> [GATTServiceLayout]
    /// Whether the peripheral runs `command` now; otherwise it answers with the PO3's error 111.
    func admits(_ command: VendorCommand, on link: Link) -> Bool
    /// The central enabled notifications or indications on `characteristic`.
    func subscribed(_ characteristic: CharacteristicID, on link: Link)
    /// A read of a characteristic of the profile's own services; throws for one that cannot be read.
    func read(_ characteristic: CharacteristicID, on link: Link) throws(DeviceError) -> [UInt8]
    /// A write to a characteristic of the profile's own service; throws for one it does not have.
    func write(_ characteristic: CharacteristicID, _ value: [UInt8], on link: Link) throws(DeviceError)
    /// Runs a vendor command only this profile has; `false` if it has none by that op code.
    func handle(_ command: VendorCommand, on link: Link) -> Bool
    /// What the device sends while it measures (cuff pressure, pulse wave), before the result.
    func sendLiveSamples(on link: Link)
    /// Sends the result of a live measurement, keeping it in memory if the device does.
    func sendMeasurement(_ record: StoredRecord, on link: Link)
    /// Sends what the profile sends by itself when the link is idle and no transfer runs (a band's items).
    func pump(on link: Link)
    /// The central waits and nothing is queued: lets the world's time pass to what the device sends next and
    /// queues it; `false` if the device has nothing more to say (the link then times out).
    func waitForMore(on link: Link) -> Bool
    /// What the device notifies on its vendor status just before it sends `record` of a history transfer (the PO3's
    /// pulse wave); `nil` for nothing.
    func eventBefore(_ record: StoredRecord) -> VendorEvent?
}

extension SimulatedPeripheral {
    /// The GATT table a device of `configuration` serves: Device Information and Battery (what it has of them, the
    /// fleet's `omits`), then its profile's
    /// services, then the Current Time Service of a device whose clock the hub can read
    /// (`readableClock`), writable unless the fleet says `clockWritable: false`.
    static func services(of configuration: SimulatedDeviceConfiguration) -> [GATTServiceLayout] {
        let g = GATTCharacteristics.self
        let clock =
            configuration.readableClock
            ? [
                GATTServiceLayout(
                    CurrentTime.service, [(g.currentTime, configuration.writableClock ? [.read, .write] : .read)])
            ] : []
        let strings =
            (configuration.serial == nil ? [] : [(g.serialNumber, GATTProperties.read)])
            + (configuration.firmware == nil ? [] : [(g.firmwareRevision, .read)])
        let information = strings.isEmpty ? [] : [GATTServiceLayout(0x180A, strings)]
        let battery = configuration.hasBattery ? [GATTServiceLayout(0x180F, [(g.batteryLevel, .read)])] : []
        return information + battery + profileServices(of: configuration) + clock
    }

    func admits(_ command: VendorCommand, on link: Link) -> Bool { true }
    func subscribed(_ characteristic: CharacteristicID, on link: Link) {}
    func read(_ characteristic: CharacteristicID, on link: Link) throws(DeviceError) -> [UInt8] {
        throw DeviceError(.protocolViolation, message: "\(characteristic) cannot be read")
    }
    func write(_ characteristic: CharacteristicID, _ value: [UInt8], on link: Link) throws(DeviceError) {
        throw DeviceError(.protocolViolation, message: "\(characteristic) cannot be written")
    }
    func handle(_ command: VendorCommand, on link: Link) -> Bool { false }
    func sendLiveSamples(on link: Link) {}
    func pump(on link: Link) {}
    func waitForMore(on link: Link) -> Bool { false }
    func eventBefore(_ record: StoredRecord) -> VendorEvent? { nil }
}

/// The peripheral type of `family`'s profile.
func peripheralType(of family: DeviceFamily) -> any SimulatedPeripheral.Type {
    switch family {
    case .bloodPressure, .scale, .thermometer: PushPeripheral.self
    case .glucose: GlucosePeripheral.self
    case .pulseOximeter: OximeterPeripheral.self
    case .activityMonitor: ActivityPeripheral.self
    case .smartband: BandPeripheral.self
    case .heartRateSensor: HeartRatePeripheral.self
    }
}

/// The peripheral of `runtime`'s family.
func makePeripheral(_ runtime: DeviceRuntime) -> any SimulatedPeripheral {
    peripheralType(of: runtime.entry.family).init(runtime: runtime)
}

extension GATTServiceLayout {
    /// Service `uuid` with `characteristics` and their properties, in order.
    init(_ uuid: UInt16, _ characteristics: [(CharacteristicID, GATTProperties)]) {
        self.init(
            uuid: uuid,
            characteristics: characteristics.map {
                GATTCharacteristicLayout(uuid: $0.0.characteristic, properties: $0.1)
            })
    }

    /// VitalBridge's vendor control service, on a model that has it: none on a standard device (900–905), which
    /// is any maker's and speaks its SIG profile only.
    static func vendorControl(of configuration: SimulatedDeviceConfiguration) -> GATTServiceLayout? {
        guard !configuration.entry.model.isStandardProfile else { return nil }
        let g = GATTCharacteristics.self
        return GATTServiceLayout(
            VendorGATT.controlService, [(g.vendorControlPoint, .write), (g.vendorStatus, .notify)])
    }
}

/// Blood Pressure, Weight Scale (and Body Composition) and Health Thermometer services: stored readings are
/// indicated one at a time each time the central enables indications, each forgotten when its indication is
/// confirmed, then ``VendorEvent/transferComplete(count:)``; a live reading is indicated the same way. A generic
/// blood pressure monitor or weight scale may keep users in a User Data Service (``UserDataServer``): a user's
/// readings then go out only on a link consented as that user, and again as soon as the central consents.
struct PushPeripheral: SimulatedPeripheral {
    let runtime: DeviceRuntime

    /// Blood Pressure (with Intermediate Cuff Pressure), Weight Scale (and Body Composition, on a scale that has
    /// it, after the vendor service) or Health Thermometer, with the vendor service; then the User Data Service of
    /// a device that keeps users.
    static func profileServices(of configuration: SimulatedDeviceConfiguration) -> [GATTServiceLayout] {
        let g = GATTCharacteristics.self
        let vendor = GATTServiceLayout.vendorControl(of: configuration)
        var services: [GATTServiceLayout?]
        switch configuration.entry.family {
        case .bloodPressure:
            services = [
                GATTServiceLayout(
                    0x1810, [(g.bloodPressureMeasurement, .indicate), (g.intermediateCuffPressure, .notify)]),
                vendor,
            ]
        case .scale:
            let measurement = configuration.entry.measurementCharacteristic
            services = [GATTServiceLayout(measurement.service, [(measurement, .indicate)]), vendor]
            if configuration.bodyComposition != nil {
                services.append(GATTServiceLayout(0x181B, [(g.bodyComposition, .indicate)]))
            }
        default:
            services = [GATTServiceLayout(0x1809, [(g.temperatureMeasurement, .indicate)]), vendor]
        }
        if configuration.userData != nil { services.append(UserDataServer.service) }
        return services.compactMap { $0 }
    }

    /// The User Data Service of a device that keeps users.
    var users: UserDataServer? { runtime.configuration.userData == nil ? nil : UserDataServer(runtime: runtime) }

    /// A transfer of the stored records the link may have; a standard device announces no end: it has no vendor
    /// status to say it on.
    var storedRecords: Transfer {
        Transfer(
            runtime.pushCharacteristic, sending: .indicationsDeletingOnConfirm,
            completion: runtime.entry.model.isStandardProfile ? .quiet : .transferComplete)
    }

    func subscribed(_ characteristic: CharacteristicID, on link: Link) {
        guard characteristic == runtime.pushCharacteristic, link.transfer == nil, link.outstanding == nil else {
            return
        }
        link.transfer = storedRecords
    }

    func read(_ characteristic: CharacteristicID, on link: Link) throws(DeviceError) -> [UInt8] {
        guard let users, characteristic.service == UserDataService.uuid else {
            throw DeviceError(.protocolViolation, message: "\(characteristic) cannot be read")
        }
        return try users.read(characteristic, on: link)
    }

    /// A write to the User Data Service; a Consent that succeeds on a link subscribed to the measurements sends the
    /// consented user's records after the Consent's response: it starts a transfer, or takes the one running (the
    /// records of no user, sent as the link subscribed) from the memory's start again once the record it is sending
    /// is whole, where the user's records it passed over wait (those it sent were deleted as they were confirmed).
    func write(_ characteristic: CharacteristicID, _ value: [UInt8], on link: Link) throws(DeviceError) {
        guard let users, characteristic.service == UserDataService.uuid else {
            throw DeviceError(.protocolViolation, message: "\(characteristic) cannot be written")
        }
        guard try users.write(characteristic, value, on: link), link.subscribed.contains(runtime.pushCharacteristic)
        else { return }
        if link.transfer == nil { link.transfer = storedRecords } else { link.transfer?.restarts = true }
    }

    func sendLiveSamples(on link: Link) {
        guard runtime.entry.family.traits.progressCharacteristic == GATTCharacteristics.intermediateCuffPressure
        else { return }
        for pressure in [40, 120, 180, 140] {
            let cuff = IntermediateCuffPressure(unit: .mmHg, cuffPressure: SFloat(mantissa: pressure, exponent: 0)!)
            link.notify(GATTCharacteristics.intermediateCuffPressure, cuff.encoded())
        }
    }

    /// Indicates a live reading; a standard device keeps it in memory, and sends it as it sends its stored ones,
    /// until its indications are confirmed (it measured on its own, and must not lose the reading if the link
    /// drops first).
    func sendMeasurement(_ record: StoredRecord, on link: Link) {
        guard runtime.entry.model.isStandardProfile else {
            link.indicate(runtime.pushCharacteristic, runtime.encode(record))
            return
        }
        var record = record
        record.sequenceNumber = runtime.state.nextSequenceNumber
        runtime.state.nextSequenceNumber &+= 1
        runtime.state.records.append(record)
        link.transfer = Transfer(runtime.pushCharacteristic, sending: .indicationsDeletingOnConfirm, completion: .quiet)
    }
}

/// A Record Access Control Point server (GLS and PLXS): counts, reports, deletes and aborts by filter; the
/// records go out on `recordCharacteristic` as `sending` says.
struct RecordAccessServer {
    let runtime: DeviceRuntime
    let recordCharacteristic: CharacteristicID
    let sending: Transfer.Sending

    /// Runs the command written to the control point `characteristic`; a command not `admitted` (a PO3 before
    /// authentication) is answered with error 111 on the status characteristic.
    func write(_ characteristic: CharacteristicID, _ value: [UInt8], on link: Link, admitted: Bool = true)
        throws(DeviceError)
    {
        // a server answers a write with ATT error 0xFD unless RACP indications are enabled
        guard link.subscribed.contains(characteristic) else {
            throw DeviceError.att(
                DeviceError.cccdImproperlyConfigured, "\(characteristic) indications are not enabled",
                name: "CCCD improperly configured")
        }
        guard let command = try? RecordAccessControlPoint(bytes: value) else {
            throw DeviceError(.protocolViolation, message: "a malformed Record Access Control Point command")
        }
        guard admitted else {
            link.status(.deviceError(code: VendorGATT.authenticationFailedError))
            return
        }
        func respond(_ response: RecordAccessControlPoint) { link.indicate(characteristic, response.encoded()) }
        switch command {
        case .reportNumberOfStoredRecords(let filter):
            respond(.numberOfStoredRecordsResponse(UInt16(clamping: runtime.count(filter))))
        case .reportStoredRecords(let filter):
            let filter = runtime.resolved(filter)
            guard runtime.state.records.contains(where: { runtime.matches($0, filter) }) else {
                respond(.responseCode(request: .reportStoredRecords, response: .noRecordsFound))
                return
            }
            link.transfer = Transfer(
                recordCharacteristic, sending: sending, completion: .racpSuccess(characteristic), filter: filter)
        case .deleteStoredRecords(let filter):
            let filter = runtime.resolved(filter)
            // taken out of the state while it is filtered: `matches` reads the state (the device's clock), which an
            // access modifying the state's records in place would overlap (a fatal access conflict)
            var records = runtime.state.records
            runtime.state.records = []
            records.removeAll { runtime.matches($0, filter) }
            runtime.state.records = records
            respond(.responseCode(request: .deleteStoredRecords, response: .success))
        case .abortOperation:
            // the records not yet sent and the report's own response are dropped
            link.transfer = nil
            link.removePending {
                switch $0 {
                case .event(.notification(recordCharacteristic, _)), .event(.indication(recordCharacteristic, _, _)),
                    .event(.indication(characteristic, _, _)):
                    true
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

/// The Glucose Service: stored records through the Record Access Control Point (notified, kept until deleted); a
/// live measurement is notified as a new record, kept in memory by meters that have one.
struct GlucosePeripheral: SimulatedPeripheral {
    let runtime: DeviceRuntime

    /// The Glucose Service with its Record Access Control Point, then the vendor service.
    static func profileServices(of configuration: SimulatedDeviceConfiguration) -> [GATTServiceLayout] {
        let g = GATTCharacteristics.self
        let services: [GATTServiceLayout?] = [
            GATTServiceLayout(
                0x1808,
                [
                    (g.glucoseMeasurement, .notify), (g.glucoseContext, .notify),
                    (g.glucoseRACP, GATTProperties([.write, .indicate])),
                ]),
            .vendorControl(of: configuration),
        ]
        return services.compactMap { $0 }
    }
    var records: RecordAccessServer {
        RecordAccessServer(
            runtime: runtime, recordCharacteristic: GATTCharacteristics.glucoseMeasurement, sending: .notifications)
    }

    func write(_ characteristic: CharacteristicID, _ value: [UInt8], on link: Link) throws(DeviceError) {
        guard characteristic == GATTCharacteristics.glucoseRACP else {
            throw DeviceError(.protocolViolation, message: "\(characteristic) cannot be written")
        }
        try records.write(characteristic, value, on: link)
    }

    func sendMeasurement(_ record: StoredRecord, on link: Link) {
        var record = record
        // meters keep every reading; BG1 has no memory
        if runtime.entry.storesRecords {
            record.sequenceNumber = runtime.state.nextSequenceNumber
            runtime.state.nextSequenceNumber &+= 1
            runtime.state.records.append(record)
        }
        link.notify(GATTCharacteristics.glucoseMeasurement, runtime.encode(record))
    }
}

/// The PO3: the Pulse Oximeter Service (spot-checks stored behind its Record Access Control Point, indicated one at
/// a time), gated by the vendor user authentication: until it succeeds, everything but `authenticate` is answered
/// with error 111. A standard oximeter (904) is the same service without the vendor gate.
struct OximeterPeripheral: SimulatedPeripheral {
    let runtime: DeviceRuntime

    /// The Pulse Oximeter Service, then the vendor service; an oximeter without spot-checks has the continuous
    /// measurement alone (no Record Access Control Point, no vendor service).
    static func profileServices(of configuration: SimulatedDeviceConfiguration) -> [GATTServiceLayout] {
        let g = GATTCharacteristics.self
        guard configuration.spotCheck else { return [GATTServiceLayout(0x1822, [(g.plxContinuous, .notify)])] }
        let services: [GATTServiceLayout?] = [
            GATTServiceLayout(
                0x1822,
                [
                    (g.plxSpotCheck, .indicate), (g.plxContinuous, .notify),
                    (g.plxRACP, GATTProperties([.write, .indicate])),
                ]),
            .vendorControl(of: configuration),
        ]
        return services.compactMap { $0 }
    }
    var records: RecordAccessServer {
        RecordAccessServer(
            runtime: runtime, recordCharacteristic: GATTCharacteristics.plxSpotCheck, sending: .indications)
    }

    func admits(_ command: VendorCommand, on link: Link) -> Bool {
        if case .authenticate = command { return true }
        return link.authenticated
    }

    func write(_ characteristic: CharacteristicID, _ value: [UInt8], on link: Link) throws(DeviceError) {
        guard characteristic == GATTCharacteristics.plxRACP else {
            throw DeviceError(.protocolViolation, message: "\(characteristic) cannot be written")
        }
        // a standard oximeter has no user authentication
        try records.write(
            characteristic, value, on: link, admitted: link.authenticated || runtime.entry.model.isStandardProfile)
    }

    func handle(_ command: VendorCommand, on link: Link) -> Bool {
        guard case .authenticate = command else { return false }
        let result = runtime.configuration.authenticationResult
        link.authenticated = PO3Authentication(rawValue: result)?.allowsMeasuring ?? false
        link.status(.authenticationResult(result))
        return true
    }

    /// The PO3's pulse wave of a history record: two of every three records have one (those whose sequence number
    /// is not a multiple of 3), of ``SimulatedDeviceConfiguration/waveSamples`` samples drawn from the device's
    /// seed and the record's sequence number, so that the same record always has the same wave.
    func eventBefore(_ record: StoredRecord) -> VendorEvent? {
        let count = runtime.configuration.waveSamples
        guard count > 0, record.sequenceNumber % 3 != 0 else { return nil }
        return .historyWave(
            PO3HistoryWave(
                samples: Self.wave(
                    count: count, seed: runtime.configuration.seed ^ 0x5741_5645 ^ UInt64(record.sequenceNumber)))!)
    }

    /// A plethysmogram of `count` samples (0–100): beats of 12 to 20 samples, each a quick rise from a baseline of
    /// 5–15 to a peak of 70–95 over a third of the beat and a slower fall, with ±2 of noise.
    static func wave(count: Int, seed: UInt64) -> [UInt8] {
        var random = SeededGenerator(seed: seed)
        let beat = Int.random(in: 12...20, using: &random)
        let base = Int.random(in: 5...15, using: &random)
        let peak = Int.random(in: 70...95, using: &random)
        let rise = max(beat / 3, 1)
        return (0..<count).map { index in
            let phase = index % beat
            let height =
                phase < rise
                ? base + (peak - base) * phase / rise : peak - (peak - base) * (phase - rise) / (beat - rise)
            return UInt8(min(max(height + Int.random(in: -2...2, using: &random), 0), 100))
        }
    }

    func sendLiveSamples(on link: Link) {
        for wave in [20, 60, 90, 40] {
            link.status(.pulseWave(UInt8(wave)))
            let sample = PLXContinuousMeasurement(
                normal: SpO2PulseRate(
                    spO2: SFloat(mantissa: 97, exponent: 0)!, pulseRate: SFloat(mantissa: 70, exponent: 0)!),
                measurementStatus: .measurementOngoing)
            link.notify(GATTCharacteristics.plxContinuous, sample.encoded())
        }
    }

    /// Indicates a spot-check; a standard oximeter keeps it in memory as well, for its Record Access Control
    /// Point (the PO3 keeps only what it measured offline). One without spot-checks notifies the reading as
    /// continuous measurements: two early estimates, then the settled value, a few times.
    func sendMeasurement(_ record: StoredRecord, on link: Link) {
        guard runtime.configuration.spotCheck else {
            guard case .oximetry(let reading) = record.reading else { return }
            func sample(_ spO2: Int, _ status: PLXMeasurementStatus) -> [UInt8] {
                PLXContinuousMeasurement(
                    normal: SpO2PulseRate(
                        spO2: SFloat(mantissa: spO2, exponent: 0)!,
                        pulseRate: SFloat(mantissa: reading.heartRate, exponent: 0)!),
                    measurementStatus: status,
                    pulseAmplitudeIndex: reading.perfusionIndex.map {
                        SFloat(mantissa: Int(($0 * 10).rounded()), exponent: -1)!
                    }
                ).encoded()
            }
            for spO2 in [reading.oxygenSaturation - 4, reading.oxygenSaturation - 1] {
                link.notify(GATTCharacteristics.plxContinuous, sample(spO2, .earlyEstimatedData))
            }
            for _ in 0..<PulseOximeterDriver.settledSamples + 3 {
                link.notify(GATTCharacteristics.plxContinuous, sample(reading.oxygenSaturation, .validatedData))
            }
            return
        }
        if runtime.entry.model.isStandardProfile {
            var record = record
            record.sequenceNumber = runtime.state.nextSequenceNumber
            runtime.state.nextSequenceNumber &+= 1
            runtime.state.records.append(record)
        }
        link.indicate(GATTCharacteristics.plxSpotCheck, runtime.encode(record))
    }
}

/// The AM3S and AM4: a user profile to bind, and the stored days reported on the vendor activity service
/// (notified), deleted oldest first by count. They take no live measurement.
struct ActivityPeripheral: SimulatedPeripheral {
    let runtime: DeviceRuntime

    /// The vendor control service, then the vendor activity service.
    static func profileServices(of configuration: SimulatedDeviceConfiguration) -> [GATTServiceLayout] {
        [
            .vendorControl(of: configuration),
            GATTServiceLayout(VendorGATT.activityService, [(GATTCharacteristics.activityRecords, .notify)]),
        ].compactMap { $0 }
    }

    func handle(_ command: VendorCommand, on link: Link) -> Bool {
        switch command {
        case .bindProfile(let profile):
            runtime.state.boundUserID = profile.userID
            runtime.state.swim = profile.swim == .on
            link.status(.commandResult(opCode: command.opCode.rawValue, success: true))
        case .reportActivity:
            link.transfer = Transfer(
                GATTCharacteristics.activityRecords, sending: .notifications, completion: .transferComplete)
        case .deleteActivity(let count):
            runtime.state.records.removeFirst(min(Int(count), runtime.state.records.count))
            link.status(.commandResult(opCode: command.opCode.rawValue, success: true))
        default:
            return false
        }
        return true
    }

    func sendMeasurement(_ record: StoredRecord, on link: Link) {}
}
