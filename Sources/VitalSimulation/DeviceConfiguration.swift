import VitalCore
import VitalDevices

/// A fleet device, validated.
public struct SimulatedDeviceConfiguration: Hashable, Sendable {
    public let entry: CatalogEntry
    public let mac: MACAddress
    /// The Serial Number String; `nil` for a device without it (the fleet's `omits`).
    public let serial: String?
    /// The Firmware Revision String; `nil` for a device without it.
    public let firmware: String?
    /// Whether it has the Battery Service.
    public let hasBattery: Bool
    public let paired: Bool
    public let inRange: Bool
    public let failures: FailureScript
    public let radio: ResolvedRadioTiming?
    public let mtu: Int
    public let authenticationResult: UInt8
    public let seed: UInt64
    /// A smartband's first recorded moment; `nil` for a week before the world starts (and for other devices).
    public let recordingSince: Timestamp?
    /// A generic weight scale's Body Composition Service, and when it indicates a reading's composition.
    public let bodyComposition: BodyCompositionOrder?
    /// Whether a pulse oximeter has spot-checks and a memory of them; a generic one may measure only continuously.
    public let spotCheck: Bool
    /// Whether the device's readings carry a time stamp; a generic device may have no clock.
    public let clock: Bool
    /// How many seconds the device's clock runs ahead of the true time (negative: behind): the fleet's
    /// `clockOffset`, or what `clockReset` makes of its first record; 0 for a clock that is right.
    public let clockOffset: Int64
    /// Whether the hub may set the clock by writing the Current Time (the fleet's `clockWritable`, `true` when
    /// absent): only for a device that serves one (``readableClock``).
    public let writableClock: Bool
    /// How the device pairs through a simulated BlueZ; `nil`: `Pair` needs no dialogue.
    public let pairing: SimulatedPairing?
    /// Whether its first connection or pairing attempt through a simulated BlueZ is aborted (BlueZ's passing
    /// `le-connection-abort-by-local`).
    public let abortFirstConnection: Bool
    /// A smartband's scripted button presses, in time order (the fleet's `presses`).
    public let presses: [ScriptedPress]
    /// The daily windows the device is in range, each its first second of the day and its length in seconds; in range
    /// all day when empty (the fleet's `presence`).
    public let presence: [PresenceWindow]
    /// How many samples the PO3 sends with each history record that has a wave (the fleet's `waveSamples`); 0 for
    /// every other device.
    public let waveSamples: Int
    /// The User Data Service of a generic blood pressure monitor or weight scale (the fleet's `userData`); `nil`
    /// for a device without one.
    public let userData: SimulatedUserData?
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
        let omits = device.omits ?? []
        for (index, item) in omits.enumerated() {
            guard ["serial", "firmware", "battery"].contains(item) else {
                throw FleetError(path: path + ".omits[\(index)]", message: "must be serial, firmware or battery")
            }
            guard !omits[..<index].contains(item) else {
                throw FleetError(path: path + ".omits[\(index)]", message: "repeats \(item)")
            }
            guard item != "battery" || device.battery == nil, item != "serial" || device.serial == nil,
                item != "firmware" || device.firmware == nil
            else {
                throw FleetError(path: path + ".omits[\(index)]", message: "omits the \(item) the device also gives")
            }
        }
        let result = device.authenticationResult ?? 2
        guard (1...8).contains(result) else {
            throw FleetError(path: path + ".authenticationResult", message: "must be from 1 to 8")
        }
        // a smartband's longest item (an hour of heart rate) needs a larger MTU than the default 23: bands ask 247
        let minimumMTU = model.isSmartband ? SmartbandGATT.minimumMTU : 23
        var mtu = model.isSmartband ? 247 : 23
        if let radio = device.radio {
            guard radio.connectionIntervalMilliseconds >= 7.5, radio.connectionIntervalMilliseconds <= 4000 else {
                throw FleetError(
                    path: path + ".radio.connectionIntervalMilliseconds", message: "must be from 7.5 to 4000")
            }
            guard radio.notificationsPerEvent >= 1 else {
                throw FleetError(path: path + ".radio.notificationsPerEvent", message: "must be at least 1")
            }
            mtu = radio.mtu ?? mtu
            guard (minimumMTU...517).contains(mtu) else {
                throw FleetError(path: path + ".radio.mtu", message: "must be from \(minimumMTU) to 517")
            }
        }
        entry = DeviceCatalog.entry(for: model)
        self.mac = mac
        serial = omits.contains("serial") ? nil : device.serial ?? "\(model.name)-\(mac.description.suffix(6))"
        firmware = omits.contains("firmware") ? nil : device.firmware ?? "1.0.0"
        hasBattery = !omits.contains("battery")
        paired = device.paired ?? (device.pairing == nil)
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
        if model.isSmartband || model.isStandardProfile, let failures = device.failures,
            failures.duringSync != nil || failures.duringMeasurement != nil
        {
            let kind = model.isSmartband ? "smartband" : "standard SIG device (\(model.rawValue))"
            throw FleetError(
                path: path + ".failures",
                message: "of a \(kind) are atConnect and disconnectAfter: it reports no device errors")
        }
        if let rate = device.failures?.linkDrops, !(0...0.5).contains(rate) {
            throw FleetError(
                path: path + ".failures.linkDrops",
                message: "must be from 0 to 0.5 (a probability per notification the device sends)")
        }
        if let text = device.recordingSince {
            guard model.isSmartband else {
                throw FleetError(path: path + ".recordingSince", message: "is for smartbands only")
            }
            guard let time = Timestamp(parsing: text) else {
                throw FleetError(path: path + ".recordingSince", message: "is not yyyy-MM-dd HH:mm:ss")
            }
            recordingSince = time
        } else {
            recordingSince = nil
        }
        if let text = device.bodyComposition {
            guard model == .weightScale else {
                throw FleetError(
                    path: path + ".bodyComposition",
                    message: "is for the generic weight scale (WSS) only: the HS4S sends its weight within it")
            }
            guard let order = BodyCompositionOrder(rawValue: text) else {
                throw FleetError(path: path + ".bodyComposition", message: "must be afterWeight or beforeWeight")
            }
            bodyComposition = order
        } else {
            bodyComposition = nil
        }
        if device.spotCheck != nil, model != .pulseOximeter {
            throw FleetError(path: path + ".spotCheck", message: "is for the generic pulse oximeter (PLXS) only")
        }
        spotCheck = device.spotCheck ?? true
        if device.clock != nil, !model.isStandardProfile || [.glucoseMeter, .heartRateSensor].contains(model) {
            throw FleetError(
                path: path + ".clock",
                message: "is for the generic BPS, WSS, HTS and PLXS only (a glucose record is dated)")
        }
        clock = device.clock ?? true
        clockOffset = try Self.clockOffset(of: device, model: model, clock: clock, path: path)
        writableClock = device.clockWritable ?? true
        pairing = try device.pairing.map { script throws(FleetError) in
            try SimulatedPairing(script, seed: device.seed ?? mac.value, path: path + ".pairing")
        }
        abortFirstConnection = device.abortFirstConnection ?? false
        presses = try Self.presses(of: device, model: model, path: path)
        presence = try Self.presence(of: device, path: path)
        if device.waveSamples != nil, model != .po3 {
            throw FleetError(path: path + ".waveSamples", message: "is for the PO3 only")
        }
        if let samples = device.waveSamples, !(0...PO3HistoryWave.maximumSamples).contains(samples) {
            throw FleetError(path: path + ".waveSamples", message: "must be from 0 to \(PO3HistoryWave.maximumSamples)")
        }
        waveSamples = model == .po3 ? device.waveSamples ?? 18 : 0
        userData = try Self.userData(of: device, model: model, path: path)
        self.device = device
        for (index, reading) in (device.nextMeasurements ?? []).enumerated() {
            // the time of a live measurement defaults to when it is taken
            var check = reading
            check.measuredAt = check.measuredAt ?? "2000-01-01 00:00:00"
            check.date = check.date ?? "2000-01-01"
            _ = try check.reading(for: entry.family, at: path + ".nextMeasurements[\(index)]")
            try checkSent(reading, at: path + ".nextMeasurements[\(index)]")
        }
        if device.currentTime != nil, !datesByProfile {
            throw FleetError(
                path: path + ".currentTime",
                message: "is for a device that dates its readings by a Bluetooth SIG profile")
        }
        if device.clockWritable != nil, !readableClock {
            throw FleetError(
                path: path + ".clockWritable", message: "is for a device that serves a Current Time (0x2A2B)")
        }
    }

    /// The longest a fleet's `clockOffset` may be, either way: ten years (a device's Date Time stays in its range).
    public static let maximumClockOffset: Int64 = 10 * 366 * 86_400

    /// The offset of the device's clock the fleet scripts (`clockOffset`, `clockReset`).
    private static func clockOffset(of device: FleetDevice, model: DeviceModel, clock: Bool, path: String)
        throws(FleetError) -> Int64
    {
        guard device.clockOffset != nil || device.clockReset == true else { return 0 }
        let key = device.clockOffset != nil ? "clockOffset" : "clockReset"
        let name = "\(model.name) \(device.mac)"
        let family = DeviceCatalog.entry(for: model).family
        guard family == .smartband || clock, ![.activityMonitor, .heartRateSensor].contains(family) else {
            throw FleetError(
                path: path + "." + key,
                message:
                    "is for a device that dates its readings with its clock; \(name) has none the simulator shifts")
        }
        if device.clockOffset != nil, device.clockReset == true {
            throw FleetError(
                path: path + ".clockReset", message: "of \(name) cannot be set with clockOffset: choose one clock")
        }
        if let offset = device.clockOffset {
            guard Int64(offset).magnitude <= maximumClockOffset.magnitude else {
                throw FleetError(
                    path: path + ".clockOffset",
                    message: "of \(name) must be from -\(maximumClockOffset) to \(maximumClockOffset) seconds")
            }
            return Int64(offset)
        }
        // a band's clock restarted when it began recording
        if family == .smartband {
            guard let since = device.recordingSince.flatMap(Timestamp.init(parsing:)) else {
                throw FleetError(
                    path: path + ".clockReset",
                    message: "of \(name) needs recordingSince: the band's clock restarted when it began recording")
            }
            return Self.clockEpoch.secondsSince1970 - since.secondsSince1970
        }
        // the clock restarted at 2000-01-01 00:00:00 at the first record
        var times = (device.records?.list ?? []).compactMap { $0.measuredAt.flatMap(Timestamp.init(parsing:)) }
        if let generate = device.records?.generate, generate.count > 0,
            let from = Timestamp(parsing: generate.from)
        {
            times.append(from)
        }
        guard let first = times.min() else {
            throw FleetError(
                path: path + ".clockReset",
                message: "of \(name) needs records: the clock restarted at the device's first record")
        }
        return Self.clockEpoch.secondsSince1970 - first.secondsSince1970
    }

    /// Whether the device serves the Current Time Service (0x1805): one that dates its readings by a SIG profile,
    /// unless the fleet says `currentTime: false`.
    public var readableClock: Bool { datesByProfile && device.currentTime != false }

    /// Whether the device dates its readings by a Bluetooth SIG profile: blood pressure monitors, scales,
    /// thermometers, glucose meters, a generic oximeter with spot-checks; not the PO3, whose protocol only sets its
    /// clock, a device without a clock, an activity monitor, a smartband or a heart-rate sensor.
    private var datesByProfile: Bool {
        guard clock else { return false }
        switch entry.family {
        case .bloodPressure, .scale, .thermometer, .glucose: return true
        case .pulseOximeter: return entry.model.isStandardProfile && spotCheck
        case .activityMonitor, .smartband, .heartRateSensor: return false
        }
    }

    /// Where a reset clock restarts: 2000-01-01 00:00:00.
    public static let clockEpoch = Timestamp(secondsSince1970: 946_684_800)

    /// The time the device's clock shows at the true time `time`, as the fleet sets it (before the hub sets it: the
    /// runtime's `deviceTime` knows that).
    public func deviceTime(_ time: Timestamp) -> Timestamp {
        Timestamp(secondsSince1970: time.secondsSince1970 + clockOffset)
    }

    /// Checks the device's records script, everything ``initialState()`` relies on, without generating records:
    /// a world checks every device when it is made but generates a device's records only when it is first used.
    func checkRecords(path: String) throws(FleetError) {
        // the days are kept only to find two activity days on one date
        let activity = entry.family == .activityMonitor
        var days: [CalendarDate] = []
        var count = 0
        for (index, reading) in (device.records?.list ?? []).enumerated() {
            let day = try reading.reading(for: entry.family, at: path + ".records.list[\(index)]").measuredAt.day
            try checkSent(reading, at: path + ".records.list[\(index)]")
            if activity { days.append(day) }
            count += 1
        }
        if let generate = device.records?.generate {
            guard generate.count >= 0, generate.count <= 65_000 else {
                throw FleetError(path: path + ".records.generate.count", message: "must be from 0 to 65000")
            }
            guard let times = generatedTimes(generate) else {
                throw FleetError(path: path + ".records.generate", message: "needs from ≤ to, both yyyy-MM-dd HH:mm:ss")
            }
            if activity { days += times.map(\.day) }
            count += times.count
        }
        let sortedDays = days.sorted()
        if entry.family == .activityMonitor, zip(sortedDays, sortedDays.dropFirst()).contains(where: { $0 == $1 }) {
            throw FleetError(path: path + ".records", message: "has two activity days on the same date")
        }
        // a device that stores readings dates them (the SIG profiles require it): one without a clock keeps none
        if count > 0, !entry.storesRecords || !spotCheck || !clock {
            throw FleetError(path: path + ".records", message: "\(entry.model.name) keeps no records")
        }
        if device.records != nil, entry.family == .smartband {
            throw FleetError(
                path: path + ".records",
                message: "are not for a smartband: it records by itself from recordingSince")
        }
    }

    /// The times of the generated records, spread evenly from `from` to `to`, made as they are read (a world
    /// checks a fleet of 65,000 generated records at every request without making them); `nil` if those are not
    /// times in order.
    private func generatedTimes(_ generate: GeneratedRecords) -> LazyMapCollection<Range<Int>, Timestamp>? {
        guard let time = generatedTime(generate) else { return nil }
        return (0..<max(generate.count, 0)).lazy.map(time)
    }

    /// The time of generated record `index`, as ``generatedTimes(_:)`` spreads them; `nil` if `from` and `to` are
    /// not times in order.
    private func generatedTime(_ generate: GeneratedRecords) -> (@Sendable (Int) -> Timestamp)? {
        guard let from = Timestamp(parsing: generate.from), let to = Timestamp(parsing: generate.to),
            from <= to
        else { return nil }
        let span = to.secondsSince1970 - from.secondsSince1970
        let count = Int64(generate.count)
        return { index in
            Timestamp(secondsSince1970: from.secondsSince1970 + (count > 1 ? span * Int64(index) / (count - 1) : 0))
        }
    }

    /// The state of a device the world has not seen before: its fleet records, numbered from 1; a smartband that
    /// recorded nothing yet, from ``recordingSince`` or a week before the world's `start`. The script must have
    /// passed ``checkRecords(path:)``.
    func initialState(start: Timestamp) -> DeviceState {
        var generator = SeededGenerator(seed: seed)
        var records = DeviceMemory([])
        records.reserveCapacity(device.records?.list?.count ?? 0)
        var sequenceNumber: UInt16 = 1
        for reading in device.records?.list ?? [] {
            if let reading = try? reading.reading(for: entry.family, at: "") {
                records.append(StoredRecord(sequenceNumber: sequenceNumber, reading: recorded(reading)))
                sequenceNumber &+= 1
            }
        }
        // the generated history is made as it is read (DeviceMemory), never all at once
        if let generate = device.records?.generate, let time = generatedTime(generate), generate.count > 0 {
            let (person, entry, composition) = (person, entry, measuresBodyComposition)
            records.append(
                GeneratedRun(count: generate.count, seed: generate.seed ?? seed, firstSequenceNumber: sequenceNumber) {
                    index, random in
                    person.reading(
                        for: entry, at: time(index), swim: entry.model == .am4, composition: composition,
                        using: &random)
                })
            sequenceNumber &+= UInt16(truncatingIfNeeded: generate.count)
        }
        _ = generator.next()
        return DeviceState(
            records: records, nextSequenceNumber: sequenceNumber, battery: device.battery ?? 100,
            generator: generator, measurementsTaken: 0, spentFailures: [], boundUserID: nil,
            swim: entry.model == .am4, users: userData?.users,
            band: entry.family != .smartband
                ? nil
                : BandState(
                    recordedThrough: recordingSince
                        ?? Timestamp(secondsSince1970: start.secondsSince1970 - 7 * 86_400),
                    clockOffset: clockOffset))
    }
}

extension SimulatedDeviceConfiguration {
    /// Whether the device measures a body composition with each weight (HS4S; a 902 with the Body Composition
    /// Service).
    var measuresBodyComposition: Bool { entry.measuresBodyComposition || bodyComposition != nil }

    /// Checks what this model, beyond its family, can send of `reading`'s statuses and special values: none from a
    /// pulse oximeter without spot-checks, no body fat special value from a scale without body composition.
    func checkSent(_ reading: SimulatedReading, at path: String) throws(FleetError) {
        if !spotCheck, !reading.status.isEmpty || !reading.specials.isEmpty {
            throw FleetError(
                path: path,
                message: "has a status or a special value, which a pulse oximeter without spot-checks cannot "
                    + "send: its measurement is the median of its continuous ones")
        }
        if entry.family == .scale, !measuresBodyComposition, reading.special("bodyFat") != nil {
            throw FleetError(
                path: path + ".bodyFat",
                message: "is \"NaN\", but \(entry.model.name) sends no body composition (HS4S, or WSS with "
                    + "bodyComposition)")
        }
    }

    /// `reading` as the device keeps it: a body composition scale reports the body fat of a weight without one
    /// unsuccessful (65535), which the hub keeps as an unavailable body fat (NaN) with the status
    /// `measurementUnsuccessful`.
    func recorded(_ reading: Reading) -> Reading {
        guard measuresBodyComposition, case .weight(let weight) = reading, weight.bodyComposition == nil else {
            return reading
        }
        var recorded = reading
        recorded.markUnavailable(ReadingField.bodyFat, .nan)
        recorded.annotations.status.insert(.measurementUnsuccessful)
        return recorded
    }

    /// The person whose readings the device generates, records and live measurements alike.
    var person: SimulatedPerson { SimulatedPerson(seed: seed) }
}

/// When a generic weight scale with the Body Composition Service indicates a reading's body composition.
public enum BodyCompositionOrder: String, Hashable, Sendable {
    /// The weight first, then the composition (without the weight), as a scale whose Weight Scale Service
    /// includes the Body Composition Service does.
    case afterWeight
    /// The composition (without the weight) first, then the weight.
    case beforeWeight
}

/// How a device pairs, validated (``PairingScript``).
public struct SimulatedPairing: Hashable, Sendable {
    /// Who shows and who types what.
    public enum Method: String, Hashable, Sendable, CaseIterable {
        /// No dialogue: neither side shows or types anything.
        case justWorks
        /// The device shows ``SimulatedPairing/passkey``; the host's user types it (`Agent1.RequestPasskey`).
        case passkey
        /// The host shows ``SimulatedPairing/passkey`` (`Agent1.DisplayPasskey`); the device's user types
        /// ``SimulatedPairing/typed`` on the device.
        case display
        /// Both show ``SimulatedPairing/passkey``; the host's user confirms it (`Agent1.RequestConfirmation`).
        case confirm
        /// A legacy PIN the host's user types (`Agent1.RequestPinCode`).
        case pinCode
    }

    public let method: Method
    /// The six-digit passkey, 0–999999.
    public let passkey: UInt32
    /// `display`: what the device's user types on the device.
    public let typed: UInt32
    /// `pinCode`: the device's PIN.
    public let pinCode: String
    /// Whether the device refuses a connection until it is paired.
    public let required: Bool

    init(_ script: PairingScript, seed: UInt64, path: String) throws(FleetError) {
        guard let method = Method(rawValue: script.method) else {
            throw FleetError(
                path: path + ".method", message: "must be justWorks, passkey, display, confirm or pinCode")
        }
        for (key, value) in [("passkey", script.passkey), ("typed", script.typed)] {
            if let value, !(0...999_999).contains(value) {
                throw FleetError(path: path + "." + key, message: "must be from 0 to 999999")
            }
        }
        if script.typed != nil, method != .display {
            throw FleetError(path: path + ".typed", message: "is for the display method only")
        }
        if script.passkey != nil, [.justWorks, .pinCode].contains(method) {
            throw FleetError(path: path + ".passkey", message: "is for the passkey, display and confirm methods")
        }
        if let pin = script.pinCode {
            guard method == .pinCode else {
                throw FleetError(path: path + ".pinCode", message: "is for the pinCode method only")
            }
            guard (1...16).contains(pin.utf8.count), pin.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
                throw FleetError(path: path + ".pinCode", message: "must be 1–16 printable ASCII characters")
            }
        }
        self.method = method
        passkey = UInt32(script.passkey ?? Int(seed % 1_000_000))
        typed = script.typed.map { UInt32($0) } ?? passkey
        pinCode = script.pinCode ?? "0000"
        required = script.required ?? false
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

/// A press of a smartband's button at a time of the world (the fleet's `presses`).
public struct ScriptedPress: Hashable, Sendable {
    public let time: Timestamp
    public let event: BandEvent
}

extension SimulatedDeviceConfiguration {
    /// The fleet's `presses`, checked and in time order: smartbands only, each a time and a button.
    /// The fleet's `presence`, each window checked: `HH:mm` or `HH:mm:ss`, 1 to 86400 seconds, not with `inRange`
    /// false.
    static func presence(of device: FleetDevice, path: String) throws(FleetError) -> [PresenceWindow] {
        guard let scripts = device.presence else { return [] }
        guard device.inRange != false else {
            throw FleetError(path: path + ".presence", message: "cannot be given with inRange false: choose one")
        }
        guard !scripts.isEmpty else { throw FleetError(path: path + ".presence", message: "must have a window") }
        return try scripts.enumerated().map { index, script throws(FleetError) in
            let parts = script.at.split(separator: ":", omittingEmptySubsequences: false).map { part in
                part.count == 2 && part.allSatisfy(\.isASCII) ? Int(part) : nil
            }
            guard (2...3).contains(parts.count), let hour = parts[0], let minute = parts[1], hour < 24, minute < 60,
                let second = parts.count == 3 ? parts[2] : 0, second < 60
            else {
                throw FleetError(path: path + ".presence[\(index)].at", message: "is not HH:mm or HH:mm:ss")
            }
            guard (1...86_400).contains(script.seconds) else {
                throw FleetError(path: path + ".presence[\(index)].seconds", message: "must be from 1 to 86400")
            }
            return PresenceWindow(
                start: hour * 3_600 + minute * 60 + second, seconds: script.seconds, connects: script.connects ?? false)
        }
    }

    /// Whether the device is in range at the world's time `time`: `inRange`, and within one of its `presence`
    /// windows when it has any (a window open past midnight goes on into the next day).
    public func isInRange(at time: Timestamp) -> Bool {
        guard inRange else { return false }
        return presence.isEmpty || window(at: time) != nil
    }

    /// Whether the device advertises at `time`: in range, and not in a window where it connects by itself.
    public func advertises(at time: Timestamp) -> Bool {
        guard inRange else { return false }
        guard !presence.isEmpty else { return true }
        return window(at: time).map { !$0.window.connects } ?? false
    }

    /// When the window in which the device connects to the host by itself opened, if `time` is in one: the device is
    /// connected once per window, from its start.
    public func connectsByItself(at time: Timestamp) -> Timestamp? {
        guard inRange, let open = window(at: time), open.window.connects else { return nil }
        return open.opened
    }

    /// The presence window `time` is in, if any, and when it opened.
    func window(at time: Timestamp) -> (window: PresenceWindow, opened: Timestamp)? {
        let second = Int(((time.secondsSince1970 % 86_400) + 86_400) % 86_400)
        for window in presence {
            let into = (second - window.start + 86_400) % 86_400
            if into < window.seconds {
                return (window, Timestamp(secondsSince1970: time.secondsSince1970 - Int64(into)))
            }
        }
        return nil
    }

    static func presses(of device: FleetDevice, model: DeviceModel, path: String) throws(FleetError)
        -> [ScriptedPress]
    {
        guard let scripts = device.presses else { return [] }
        guard model.isSmartband else { throw FleetError(path: path + ".presses", message: "is for smartbands only") }
        var presses: [ScriptedPress] = []
        for (index, script) in scripts.enumerated() {
            guard let time = Timestamp(parsing: script.at) else {
                throw FleetError(path: path + ".presses[\(index)].at", message: "is not yyyy-MM-dd HH:mm:ss")
            }
            let event: BandEvent
            switch script.button {
            case "takePicture": event = .takePicture
            case "findPhone": event = .findPhone
            default:
                throw FleetError(path: path + ".presses[\(index)].button", message: "must be takePicture or findPhone")
            }
            presses.append(ScriptedPress(time: time, event: event))
        }
        return presses.sorted { $0.time < $1.time }
    }
}

/// A daily window in which a simulated device is in range: from `start` (seconds of the day, UTC) for `seconds`;
/// advertising, or connected to the host by itself when `connects`.
public struct PresenceWindow: Hashable, Sendable {
    public let start: Int
    public let seconds: Int
    public let connects: Bool
}
