import HealthGATT
import VitalCore

/// A reading a device gave, in the hub's canonical units, with what identifies it on the device.
public struct DeviceRecord: Hashable, Sendable {
    /// The reading, in canonical units (mmHg, mg/dL, kg, °C).
    public var reading: Reading
    /// The record's sequence number on devices that number them (Record Access Control Point devices).
    public var sequenceNumber: UInt16?

    public init(reading: Reading, sequenceNumber: UInt16? = nil) {
        self.reading = reading
        self.sequenceNumber = sequenceNumber
    }
}

/// Where drivers put what they read.
///
/// ``store(_:)`` returns only once the records are durable. A driver tells the device it may delete a record
/// (an indication's confirmation, a Record Access Control Point delete, a vendor delete) only after the call that
/// stored it has returned; when ``store(_:)`` throws, nothing more is confirmed or deleted.
///
/// A sink knows no device family: what it needs of a family's knowledge comes from the driver side. Readings a
/// device sends in parts are one reading by ``RecordMerging``; items a device pushes for a day come with the
/// family's way of making the day's reading from them (``DayItemBatch/summarize``).
public protocol RecordSink: Sendable {
    func store(_ records: [DeviceRecord]) async throws
    /// Keeps items a device pushed for days, with the readings of the days they change; returns only once they are
    /// durable. A device is told it may forget them only after this returns.
    func storeDayItems(_ batch: DayItemBatch) async throws
    /// How the last item a band stored here was dated (its most recent day's), if any: a band's clock still off
    /// by as much is moved by the same minutes (``BandClockReading``).
    func latestBandDating() async throws -> BandItemDating?
}

extension RecordSink {
    /// A sink that keeps no day items has no band's dating.
    public func latestBandDating() async throws -> BandItemDating? { nil }

    /// A sink for devices that push no day items refuses them: nothing is acknowledged to the device.
    public func storeDayItems(_ batch: DayItemBatch) async throws {
        throw DeviceError(.storeFailed, message: "this sink keeps no day items")
    }
}

/// How readings a device sends in parts are one reading: family knowledge, which a sink applies to what it has
/// stored without knowing the family.
///
/// A scale with the Body Composition Service indicates a weight and its body composition apart, in either order.
/// Its driver pairs them on one link, but the link may drop between the two and the scale then sends the whole
/// record on the next: a weight reaches a sink once without its composition and once with it, in either order.
public enum RecordMerging {
    /// Whether `reading` may be one with a stored reading of its device, kind and time: a weight. A sink looks only
    /// these up.
    public static func mayMerge(_ reading: Reading) -> Bool {
        switch reading {
        case .weight: true
        // a PO3 record stored before the hub kept waves comes again with its wave
        case .oximetry(let oximetry): oximetry.wave != nil
        default: false
        }
    }

    /// The one reading that `new` and `stored` (of one device, kind and time) are, or `nil` when they are two: a
    /// weight with a body composition completes a stored one of the same mass without one (the merged reading is
    /// the new one), a weight without one is part of a stored one of the same mass with one (the stored one), and
    /// a weight equal to the stored one is it (whatever text an earlier release stored it as).
    ///
    /// An oximetry reading with a pulse wave completes a stored one without a wave whose values are the same (one
    /// stored before the hub kept waves, sent again by a PO3 that still held it): the merged reading is the new
    /// one. Two waves that differ are two readings.
    public static func merged(_ new: Reading, with stored: Reading) -> Reading? {
        if case .oximetry(let oximetry) = new, case .oximetry(var kept) = stored {
            guard oximetry.wave != nil, kept.wave == nil else { return nil }
            kept.wave = oximetry.wave
            return kept == oximetry ? new : nil
        }
        guard case .weight(let weight) = new, case .weight(let kept) = stored, kept.kilograms == weight.kilograms
        else { return nil }
        if weight == kept { return stored }
        switch (kept.bodyComposition, weight.bodyComposition) {
        case (nil, .some): return new
        case (.some, nil): return stored
        default: return nil
        }
    }
}

/// Items a device pushed for days, with the family's way of making a day's reading from all of the day's items:
/// the driver supplies both, a sink keeps the items and the readings `summarize` makes without knowing the family.
public struct DayItemBatch: Sendable {
    public var items: [DayItem]
    /// The reading of a day made from all of its items, those stored before and these, by kind then key; an error
    /// refuses the batch.
    public var summarize: @Sendable (CalendarDate, [DayItem]) throws -> Reading

    public init(
        items: [DayItem], summarize: @escaping @Sendable (CalendarDate, [DayItem]) throws -> Reading
    ) {
        self.items = items
        self.summarize = summarize
    }
}

/// A live sample streamed while a measurement runs.
public enum LiveSample: Hashable, Sendable {
    /// The cuff pressure of a blood pressure monitor, in mmHg.
    case cuffPressure(Double)
    /// A pulse oximeter's running values: SpO2 (%), pulse rate (bpm), perfusion index (%), when known.
    case oximetry(spO2: Double?, pulseRate: Double?, perfusionIndex: Double?)
    /// A pulse oximeter's pulse-wave (pulse intensity) sample, 0–100.
    case pulseWave(Int)
    /// A heart-rate sensor's Heart Rate Measurement: the rate it reports (beats per minute; `nil` when it reports
    /// none, or no skin contact) and the RR intervals it carries, in milliseconds.
    case heartRate(beatsPerMinute: Int?, rrIntervals: [Double])
}

/// How far a sync has come.
public struct SyncProgress: Hashable, Sendable {
    /// Records stored so far.
    public var stored: Int
    /// Records the device said it holds, when it says (RACP, PO3).
    public var expected: Int?

    public init(stored: Int, expected: Int?) {
        self.stored = stored
        self.expected = expected
    }

    /// From 0 to 1; 0 while the total is unknown or zero.
    public var fraction: Double {
        guard let expected, expected > 0 else { return 0 }
        return min(1, Double(stored) / Double(expected))
    }

    /// A progress bar of 30 columns redrawn over itself (it starts with a carriage return), ending with a new line
    /// once every expected record is stored: `\rsync [###############               ] 50% (512/1024)`, and
    /// `\rsync [                              ] (12)` while the total is unknown.
    public var bar: String {
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
        let counts = "(\(stored)" + (expected.map { "/\($0)" } ?? "") + ")"
        let percent = expected == nil ? "" : " \(Int(fraction * 100))%"
        let done = expected.map { stored >= $0 } ?? false
        return "\rsync [\(bar)]\(percent) \(counts)" + (done ? "\n" : "")
    }
}

/// What a device says about itself (Device Information and Battery services).
public struct DeviceInfo: Hashable, Sendable {
    /// The Device Information Service's Serial Number String; `nil` when the device does not have it.
    public var serialNumber: String?
    /// The Device Information Service's Firmware Revision String; `nil` when the device does not have it.
    public var firmwareRevision: String?
    /// The Battery Service's level, in percent; `nil` for a device without the Battery Service.
    public var batteryLevel: Int?

    public init(serialNumber: String?, firmwareRevision: String?, batteryLevel: Int?) {
        self.serialNumber = serialNumber
        self.firmwareRevision = firmwareRevision
        self.batteryLevel = batteryLevel
    }
}

// MARK: - Canonical units from SIG values

extension SpecialValue {
    /// The special value an SFLOAT or FLOAT carries, by the same name.
    init(_ special: SpecialFloatValue) {
        switch special {
        case .nan: self = .nan
        case .nres: self = .nres
        case .positiveInfinity: self = .positiveInfinity
        case .negativeInfinity: self = .negativeInfinity
        case .reserved: self = .reserved
        }
    }
}

/// The fields of a reading a decoder found sent as special values, marked on the reading once it is made.
struct UnavailableMarks {
    private var marks: [(field: ReadingField, value: SpecialValue)] = []

    /// `value`'s number, or 0 with `field` marked for its special value.
    mutating func number(_ value: SFloat, _ field: ReadingField) -> Double {
        guard let number = value.doubleValue else {
            marks.append((field, SpecialValue(value.special!)))
            return 0
        }
        return number
    }

    /// `value`'s number, or 0 with `field` marked for its special value.
    mutating func number(_ value: MedicalFloat, _ field: ReadingField) -> Double {
        guard let number = value.doubleValue else {
            marks.append((field, SpecialValue(value.special!)))
            return 0
        }
        return number
    }

    /// `value` as a whole number, or 0 with `field` marked for its special value.
    mutating func integer(_ value: SFloat, _ field: ReadingField) -> Int { Int(number(value, field).rounded()) }

    mutating func mark(_ field: ReadingField, _ value: SpecialValue) { marks.append((field, value)) }

    /// `reading` with the marked fields unavailable.
    func applied(to reading: Reading) -> Reading {
        var reading = reading
        for (field, value) in marks { reading.markUnavailable(field, value) }
        return reading
    }
}

extension ReadingStatus {
    /// The statuses of a Blood Pressure Measurement Status: bits 0–2 and 5 by name, the pulse rate range (bits 3–4)
    /// as `pulseRateTooHigh` (1) or `pulseRateTooLow` (2); the reserved range 3 names neither.
    init(_ status: BloodPressureMeasurementStatus) {
        var names: ReadingStatus = []
        if status.contains(.bodyMovementDetected) { names.insert(.bodyMovement) }
        if status.contains(.cuffTooLoose) { names.insert(.cuffTooLoose) }
        if status.contains(.irregularPulseDetected) { names.insert(.irregularPulse) }
        if status.contains(.improperMeasurementPosition) { names.insert(.improperPosition) }
        switch status.pulseRateRange {
        case .exceedsUpperLimit: names.insert(.pulseRateTooHigh)
        case .belowLowerLimit: names.insert(.pulseRateTooLow)
        case .withinRange, .reserved: break
        }
        self = names
    }

    /// The glucose Sensor Status Annunciation's 12 defined bits.
    init(_ annunciation: SensorStatusAnnunciation) {
        self.init(profileBits: UInt64(annunciation.rawValue), first: "deviceBatteryLow", count: 12)
    }

    /// The PLX Measurement Status's defined bits 5–15.
    init(_ status: PLXMeasurementStatus) {
        self.init(profileBits: UInt64(status.rawValue >> 5), first: "measurementOngoing", count: 11)
    }

    /// The PLX Device and Sensor Status's defined bits 0–15.
    init(_ status: PLXDeviceAndSensorStatus) {
        self.init(profileBits: UInt64(status.rawValue), first: "extendedDisplayUpdateOngoing", count: 16)
    }

    /// The site of a temperature: `armpit` … `tympanum`.
    init(_ type: TemperatureType) {
        self.init(profileBits: 1 << UInt64(type.rawValue - 1), first: "armpit", count: 9)
    }
}

extension DateTime {
    /// The UTC instant of a device time stamp; devices' clocks are set to UTC by the hub. A time stamp with an
    /// unknown field is a protocol violation: a reading must say when it was taken.
    func timestamp(_ field: String) throws(DeviceError) -> Timestamp {
        guard
            let timestamp = Timestamp(
                year: Int(year), month: Int(month), day: Int(day), hour: Int(hours), minute: Int(minutes),
                second: Int(seconds))
        else { throw DeviceError(.protocolViolation, message: "\(field) is incomplete") }
        return timestamp
    }

    /// The Date Time of a UTC instant.
    public init(_ timestamp: Timestamp) {
        let (year, month, day) = timestamp.day.components
        let seconds = Int(timestamp.secondsSince1970 - timestamp.day.daysSince1970 * 86_400)
        self.init(
            year: UInt16(year), month: UInt8(month), day: UInt8(day), hours: UInt8(seconds / 3600),
            minutes: UInt8(seconds / 60 % 60), seconds: UInt8(seconds % 60))
    }
}

extension CurrentTime {
    /// The Current Time of a UTC instant, with its day of the week (Monday is 1) and `adjustReason`.
    public init(_ timestamp: Timestamp, adjustReason: AdjustReason = []) {
        // 1970-01-01 was a Thursday (4)
        let weekday = UInt8(((timestamp.day.daysSince1970 + 3) % 7 + 7) % 7 + 1)
        self.init(dateTime: DateTime(timestamp), dayOfWeek: weekday, adjustReason: adjustReason)
    }
}

extension DeviceRecord {
    /// The reading a standard measurement characteristic's `value` carries, decoded as the drivers decode it:
    /// Blood Pressure (0x2A35), Glucose (0x2A18), Weight (0x2A9D), Body Composition (0x2A9C), Temperature (0x2A1C)
    /// and PLX Spot-Check (0x2A5E) Measurements.
    ///
    /// A reading whose time stamp is optional in its profile and absent (a device without a clock) is dated
    /// `undatedAt` when given: a generic SIG device's readings are dated at the request's start. Without it, the
    /// reading is refused: the iHealth models always send their time.
    ///
    /// A reading the device dated is corrected by `clock`, what the session read of the device's clock
    /// (`DeviceClock.corrected(_:)`); one dated `undatedAt` is the hub's time, never corrected or
    /// marked. Without a `clock` the time is the device's, unmarked.
    ///
    /// - Throws: ``DeviceError/Code/protocolViolation`` for bytes that do not decode, or a reading without its
    ///   time and no `undatedAt`; ``DeviceError/Code/unsupported`` for another characteristic.
    public init(
        decoding value: [UInt8], of characteristic: UInt16, undatedAt: Timestamp? = nil,
        clock: DeviceClock? = nil
    ) throws(DeviceError) {
        let dated: Bool
        switch characteristic {
        case BloodPressureMeasurement.uuid:
            let measurement = try decode(BloodPressureMeasurement.self, value)
            dated = measurement.timeStamp != nil
            self = try Self(measurement, undatedAt)
        case GlucoseMeasurement.uuid:
            dated = true
            self = try Self(decode(GlucoseMeasurement.self, value))
        case WeightMeasurement.uuid:
            let measurement = try decode(WeightMeasurement.self, value)
            dated = measurement.timeStamp != nil
            self = try Self(measurement, undatedAt)
        case BodyCompositionMeasurement.uuid:
            let measurement = try decode(BodyCompositionMeasurement.self, value)
            dated = measurement.timeStamp != nil
            self = try Self(measurement, undatedAt)
        case TemperatureMeasurement.uuid:
            let measurement = try decode(TemperatureMeasurement.self, value)
            dated = measurement.timeStamp != nil
            self = try Self(measurement, undatedAt)
        case PLXSpotCheckMeasurement.uuid:
            let measurement = try decode(PLXSpotCheckMeasurement.self, value)
            dated = measurement.timeStamp != nil
            self = try Self(measurement, undatedAt)
        default:
            throw DeviceError(
                .unsupported, message: "0x\(String(characteristic, radix: 16, uppercase: true)) carries no reading")
        }
        if dated, let clock { self = clock.corrected(self) }
    }

    /// What the hub keeps of a standard measurement characteristic's `value` beyond its values: the annotations
    /// (statuses by name, user index) and the fields sent as special values, exactly as
    /// ``init(decoding:of:undatedAt:clock:)`` makes them, whatever the value's time says. For a capture whose time stamp
    /// may be incomplete (`vitalbridge gatt decode`); a body composition sent apart from its weight counts as one
    /// with a weight.
    ///
    /// - Throws: as ``init(decoding:of:undatedAt:clock:)``, never for the time stamp or a body composition's missing
    ///   weight.
    public static func annotations(decoding value: [UInt8], of characteristic: UInt16) throws(DeviceError) -> (
        annotations: ReadingAnnotations, unavailable: [(field: ReadingField, value: SpecialValue)]
    ) {
        let reading = try DeviceRecord(decodingUndated: value, of: characteristic).reading
        return (reading.annotations, reading.unavailableFields)
    }

    /// The reading `value` carries, dated at the epoch whatever its time stamp says.
    private init(decodingUndated value: [UInt8], of characteristic: UInt16) throws(DeviceError) {
        let epoch = Timestamp(secondsSince1970: 0)
        switch characteristic {
        case GlucoseMeasurement.uuid:
            var measurement = try decode(GlucoseMeasurement.self, value)
            (measurement.baseTime, measurement.timeOffset) = (DateTime(epoch), nil)
            try self.init(measurement)
        case BloodPressureMeasurement.uuid:
            var measurement = try decode(BloodPressureMeasurement.self, value)
            measurement.timeStamp = nil
            try self.init(measurement, epoch)
        case WeightMeasurement.uuid:
            var measurement = try decode(WeightMeasurement.self, value)
            measurement.timeStamp = nil
            try self.init(measurement, epoch)
        case BodyCompositionMeasurement.uuid:
            var measurement = try decode(BodyCompositionMeasurement.self, value)
            measurement.timeStamp = nil
            measurement.weight = measurement.weight ?? MassValue(raw: 0)
            try self.init(measurement, epoch)
        case TemperatureMeasurement.uuid:
            var measurement = try decode(TemperatureMeasurement.self, value)
            measurement.timeStamp = nil
            try self.init(measurement, epoch)
        case PLXSpotCheckMeasurement.uuid:
            var measurement = try decode(PLXSpotCheckMeasurement.self, value)
            measurement.timeStamp = nil
            try self.init(measurement, epoch)
        default:
            try self.init(decoding: value, of: characteristic, undatedAt: epoch)
        }
    }

    /// A blood pressure measurement in mmHg; kPa readings are converted. A special value in the systolic,
    /// diastolic or pulse rate field leaves that field unavailable; the Measurement Status goes into the reading's
    /// status by name, and its irregular pulse bit also sets the arrhythmia flag; the user ID is the user index.
    init(_ measurement: BloodPressureMeasurement, _ undatedAt: Timestamp?) throws(DeviceError) {
        let factor = measurement.unit == .kPa ? 1 / 0.133_322_387_415 : 1
        let time = try measurement.timeStamp.measuredAt("a blood pressure reading", undatedAt)
        let status = measurement.status
        var marks = UnavailableMarks()
        var reading = Reading.bloodPressure(
            BloodPressureReading(
                systolic: marks.number(measurement.systolic, ReadingField.systolic) * factor,
                diastolic: marks.number(measurement.diastolic, ReadingField.diastolic) * factor,
                heartRate: measurement.pulseRate.map { marks.integer($0, ReadingField.bloodPressurePulse) },
                arrhythmia: status.map { $0.contains(.irregularPulseDetected) }, measuredAt: time))
        reading = marks.applied(to: reading)
        reading.annotations.status = status.map(ReadingStatus.init) ?? []
        reading.annotations.userIndex = measurement.userID
        self.init(reading: reading)
    }

    /// A glucose measurement in mg/dL; a special value for the concentration leaves it unavailable, and the
    /// Sensor Status Annunciation goes into the reading's status by name.
    init(_ measurement: GlucoseMeasurement) throws(DeviceError) {
        guard let concentration = measurement.concentration else {
            throw DeviceError(.protocolViolation, message: "a glucose record has no concentration")
        }
        let base = try measurement.baseTime.timestamp("base_time")
        let offset = Int64(measurement.timeOffset ?? 0) * 60
        var reading = Reading.glucose(
            GlucoseReading(
                mgPerDeciliter: measurement.milligramsPerDeciliter ?? 0,
                measuredAt: Timestamp(secondsSince1970: base.secondsSince1970 + offset)))
        if let special = concentration.value.special {
            reading.markUnavailable(ReadingField.bloodGlucose, SpecialValue(special))
        }
        reading.annotations.status = measurement.sensorStatus.map(ReadingStatus.init) ?? []
        self.init(reading: reading, sequenceNumber: measurement.sequenceNumber)
    }

    /// A weight in kg. A weight the scale reports unsuccessful (65535) is kept with the status
    /// `measurementUnsuccessful` and the weight unavailable (NaN); the user ID is the user index.
    init(_ measurement: WeightMeasurement, _ undatedAt: Timestamp?) throws(DeviceError) {
        let time = try measurement.timeStamp.measuredAt("a weight", undatedAt)
        var reading = Reading.weight(WeightReading(kilograms: measurement.kilograms ?? 0, measuredAt: time))
        if measurement.weight.isUnsuccessful {
            reading.markUnavailable(ReadingField.bodyWeight, .nan)
            reading.annotations.status.insert(.measurementUnsuccessful)
        }
        reading.annotations.userIndex = measurement.userID
        self.init(reading: reading)
    }

    /// A body composition with its weight in kg: a whole reading of a scale that sends its weight within the body
    /// composition (`BodyCompositionMeasurement.apply(to:)` says how unsuccessful fields are kept).
    init(_ measurement: BodyCompositionMeasurement, _ undatedAt: Timestamp?) throws(DeviceError) {
        guard let weight = measurement.weight else {
            throw DeviceError(.protocolViolation, message: "a body composition has no weight")
        }
        var reading = Reading.weight(
            WeightReading(
                kilograms: weight.kilograms(in: measurement.system) ?? 0,
                measuredAt: try measurement.timeStamp.measuredAt("a body composition", undatedAt)))
        if weight.isUnsuccessful {
            reading.markUnavailable(ReadingField.bodyWeight, .nan)
            reading.annotations.status.insert(.measurementUnsuccessful)
        }
        measurement.apply(to: &reading)
        self.init(reading: reading)
    }

    /// A temperature in °C; a special value leaves it unavailable, and the temperature type (the site) goes into
    /// the reading's status by name.
    init(_ measurement: TemperatureMeasurement, _ undatedAt: Timestamp?) throws(DeviceError) {
        let time = try measurement.timeStamp.measuredAt("a temperature", undatedAt)
        var marks = UnavailableMarks()
        let value = marks.number(measurement.temperature, ReadingField.bodyTemperature)
        let celsius =
            measurement.unit == .celsius || measurement.temperature.special != nil ? value : (value - 32) * 5 / 9
        var reading = marks.applied(to: .temperature(TemperatureReading(celsius: celsius, measuredAt: time)))
        reading.annotations.status = measurement.type.map(ReadingStatus.init) ?? []
        self.init(reading: reading)
    }

    /// An SpO2 spot-check. A special value in the SpO2, pulse rate or pulse amplitude index leaves that field
    /// unavailable; the measurement status (bits 5–15), the device and sensor status (bits 0–15) and the "device
    /// clock is not set" flag (`deviceClockNotSet`) go into the reading's status by name.
    init(_ measurement: PLXSpotCheckMeasurement, _ undatedAt: Timestamp?) throws(DeviceError) {
        let time = try measurement.timeStamp.measuredAt("a spot-check", undatedAt)
        var marks = UnavailableMarks()
        var reading = Reading.oximetry(
            OximetryReading(
                oxygenSaturation: marks.integer(measurement.spO2PulseRate.spO2, ReadingField.oxygenSaturation),
                heartRate: marks.integer(measurement.spO2PulseRate.pulseRate, ReadingField.oximetryPulse),
                perfusionIndex: measurement.pulseAmplitudeIndex.map { marks.number($0, ReadingField.perfusionIndex) },
                measuredAt: time))
        reading = marks.applied(to: reading)
        var status: ReadingStatus = measurement.deviceClockNotSet ? .deviceClockNotSet : []
        if let measured = measurement.measurementStatus { status.formUnion(ReadingStatus(measured)) }
        if let device = measurement.deviceAndSensorStatus { status.formUnion(ReadingStatus(device)) }
        reading.annotations.status = status
        self.init(reading: reading)
    }
}

extension Optional where Wrapped == DateTime {
    /// When `what` was measured: its time stamp, else `undatedAt`.
    ///
    /// - Throws: ``DeviceError/Code/protocolViolation`` for an incomplete time stamp, or none and no `undatedAt`.
    func measuredAt(_ what: String, _ undatedAt: Timestamp?) throws(DeviceError) -> Timestamp {
        guard let time = self else {
            guard let undatedAt else { throw DeviceError(.protocolViolation, message: "\(what) has no time stamp") }
            return undatedAt
        }
        return try time.timestamp("time_stamp")
    }
}

extension BodyCompositionMeasurement {
    /// Puts the body composition on `reading` (a weight), in %, kg, kJ and Ω, with the user ID as its user index
    /// when the reading has none.
    ///
    /// A body composition whose body fat the scale reports unsuccessful (65535) is kept: the reading gets the status
    /// `measurementUnsuccessful`, its body fat is unavailable (NaN) and the composition's other fields, if the scale
    /// sent any, are kept; a mass field reported unsuccessful is unavailable (NaN) likewise. The weight is never
    /// dropped for its composition.
    func apply(to reading: inout Reading) {
        guard case .weight(var weight) = reading else { return }
        func kilograms(_ mass: MassValue?) -> Double? { mass.map { $0.kilograms(in: system) ?? 0 } }
        let unsuccessful = bodyFatPercentage == 0xFFFF
        weight.bodyComposition = BodyComposition(
            bodyFatPercentage: unsuccessful ? 0 : Double(bodyFatPercentage) / 10,
            basalMetabolism: basalMetabolism.map(Int.init),
            musclePercentage: musclePercentage.map { Double($0) / 10 }, muscleMass: kilograms(muscleMass),
            fatFreeMass: kilograms(fatFreeMass), softLeanMass: kilograms(softLeanMass),
            bodyWaterMass: kilograms(bodyWaterMass), impedance: impedance.map { Double($0) / 10 })
        if weight.annotations.userIndex == nil { weight.annotations.userIndex = userID }
        reading = .weight(weight)
        if unsuccessful { reading.markUnavailable(ReadingField.bodyFat, .nan) }
        let masses: [(ReadingField, MassValue?)] = [
            (.muscleMass, muscleMass), (.fatFreeMass, fatFreeMass), (.softLeanMass, softLeanMass),
            (.bodyWaterMass, bodyWaterMass),
        ]
        for (field, mass) in masses where mass?.isUnsuccessful == true {
            reading.markUnavailable(field, .nan)
        }
        if unsuccessful || masses.contains(where: { $0.1?.isUnsuccessful == true }) {
            reading.annotations.status.insert(.measurementUnsuccessful)
        }
    }
}
