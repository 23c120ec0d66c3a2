import HealthGATT
import VitalCore

/// A reading a device gave, in the hub's canonical units, with what identifies it on the device.
public struct DeviceRecord: Hashable, Sendable {
    /// The reading, in canonical units (mmHg, mg/dL, kg, °C).
    public var reading: LayeredReading
    /// The record's sequence number on devices that number them (Record Access Control Point devices).
    public var sequenceNumber: UInt16?

    public init(reading: LayeredReading, sequenceNumber: UInt16? = nil) {
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
}

extension RecordSink {
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
    public static func mayMerge(_ reading: LayeredReading) -> Bool {
        if case .weight = reading { return true }
        return false
    }

    /// The one reading that `new` and `stored` (of one device, kind and time) are, or `nil` when they are two: a
    /// weight with a body composition completes a stored one of the same mass without one (the merged reading is
    /// the new one), a weight without one is part of a stored one of the same mass with one (the stored one), and
    /// a weight equal to the stored one is it (whatever text an earlier release stored it as).
    public static func merged(_ new: LayeredReading, with stored: LayeredReading) -> LayeredReading? {
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
    public var summarize: @Sendable (LayeredDate, [DayItem]) throws -> LayeredReading

    public init(
        items: [DayItem], summarize: @escaping @Sendable (LayeredDate, [DayItem]) throws -> LayeredReading
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
}

/// What a device says about itself (Device Information and Battery services).
public struct DeviceInfo: Hashable, Sendable {
    public var serialNumber: String
    public var firmwareRevision: String
    /// Percent.
    public var batteryLevel: Int

    public init(serialNumber: String, firmwareRevision: String, batteryLevel: Int) {
        self.serialNumber = serialNumber
        self.firmwareRevision = firmwareRevision
        self.batteryLevel = batteryLevel
    }
}

// MARK: - Canonical units from SIG values

extension SFloat {
    /// The value, or a protocol violation naming `field` for a special value where a number is required.
    func required(_ field: String) throws(DeviceError) -> Double {
        guard let value = doubleValue else {
            throw DeviceError(.protocolViolation, message: "\(field) is \(description), not a number")
        }
        return value
    }
}

extension DateTime {
    /// The UTC instant of a device time stamp; devices' clocks are set to UTC by the hub. A time stamp with an
    /// unknown field is a protocol violation: a reading must say when it was taken.
    func timestamp(_ field: String) throws(DeviceError) -> LayeredTimestamp {
        guard
            let timestamp = LayeredTimestamp(
                year: Int(year), month: Int(month), day: Int(day), hour: Int(hours), minute: Int(minutes),
                second: Int(seconds))
        else { throw DeviceError(.protocolViolation, message: "\(field) is incomplete") }
        return timestamp
    }

    /// The Date Time of a UTC instant.
    public init(_ timestamp: LayeredTimestamp) {
        let (year, month, day) = timestamp.day.components
        let seconds = Int(timestamp.secondsSince1970 - timestamp.day.daysSince1970 * 86_400)
        self.init(
            year: UInt16(year), month: UInt8(month), day: UInt8(day), hours: UInt8(seconds / 3600),
            minutes: UInt8(seconds / 60 % 60), seconds: UInt8(seconds % 60))
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
        decoding value: [UInt8], of characteristic: UInt16, undatedAt: LayeredTimestamp? = nil,
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

    /// A blood pressure measurement in mmHg; kPa readings are converted.
    init(_ measurement: BloodPressureMeasurement, _ undatedAt: LayeredTimestamp?) throws(DeviceError) {
        let factor = measurement.unit == .kPa ? 1 / 0.133_322_387_415 : 1
        let time = try measurement.timeStamp.measuredAt("a blood pressure reading", undatedAt)
        let status = measurement.status
        self.init(
            reading: .bloodPressure(
                BloodPressureReading(
                    systolic: try measurement.systolic.required("systolic") * factor,
                    diastolic: try measurement.diastolic.required("diastolic") * factor,
                    heartRate: try measurement.pulseRate.map { value throws(DeviceError) in
                        Int(try value.required("pulse_rate").rounded())
                    },
                    arrhythmia: status.map { $0.contains(.irregularPulseDetected) }, measuredAt: time)))
    }

    /// A glucose measurement in mg/dL.
    init(_ measurement: GlucoseMeasurement) throws(DeviceError) {
        guard let milligrams = measurement.milligramsPerDeciliter else {
            throw DeviceError(.protocolViolation, message: "a glucose record has no concentration")
        }
        let base = try measurement.baseTime.timestamp("base_time")
        let offset = Int64(measurement.timeOffset ?? 0) * 60
        self.init(
            reading: .glucose(
                GlucoseReading(
                    mgPerDeciliter: milligrams,
                    measuredAt: LayeredTimestamp(secondsSince1970: base.secondsSince1970 + offset))),
            sequenceNumber: measurement.sequenceNumber)
    }

    /// A weight in kg.
    init(_ measurement: WeightMeasurement, _ undatedAt: LayeredTimestamp?) throws(DeviceError) {
        guard let kilograms = measurement.kilograms else {
            throw DeviceError(.protocolViolation, message: "the scale reported an unsuccessful measurement")
        }
        let time = try measurement.timeStamp.measuredAt("a weight", undatedAt)
        self.init(reading: .weight(WeightReading(kilograms: kilograms, measuredAt: time)))
    }

    /// A body composition with its weight in kg.
    init(_ measurement: BodyCompositionMeasurement, _ undatedAt: LayeredTimestamp?) throws(DeviceError) {
        guard let kilograms = measurement.weight.flatMap({ $0.kilograms(in: measurement.system) }) else {
            throw DeviceError(.protocolViolation, message: "a body composition has no weight")
        }
        self.init(
            reading: .weight(
                WeightReading(
                    kilograms: kilograms,
                    measuredAt: try measurement.timeStamp.measuredAt("a body composition", undatedAt),
                    bodyComposition: BodyComposition(measurement))))
    }

    /// A temperature in °C.
    init(_ measurement: TemperatureMeasurement, _ undatedAt: LayeredTimestamp?) throws(DeviceError) {
        guard let value = measurement.temperature.doubleValue else {
            throw DeviceError(.protocolViolation, message: "temperature is \(measurement.temperature)")
        }
        let time = try measurement.timeStamp.measuredAt("a temperature", undatedAt)
        let celsius = measurement.unit == .celsius ? value : (value - 32) * 5 / 9
        self.init(reading: .temperature(TemperatureReading(celsius: celsius, measuredAt: time)))
    }

    /// An SpO2 spot-check.
    init(_ measurement: PLXSpotCheckMeasurement, _ undatedAt: LayeredTimestamp?) throws(DeviceError) {
        let time = try measurement.timeStamp.measuredAt("a spot-check", undatedAt)
        self.init(
            reading: .oximetry(
                OximetryReading(
                    oxygenSaturation: Int(try measurement.spO2PulseRate.spO2.required("spo2").rounded()),
                    heartRate: Int(try measurement.spO2PulseRate.pulseRate.required("pr").rounded()),
                    perfusionIndex: measurement.pulseAmplitudeIndex?.doubleValue, measuredAt: time)))
    }
}

extension Optional where Wrapped == DateTime {
    /// When `what` was measured: its time stamp, else `undatedAt`.
    ///
    /// - Throws: ``DeviceError/Code/protocolViolation`` for an incomplete time stamp, or none and no `undatedAt`.
    func measuredAt(_ what: String, _ undatedAt: LayeredTimestamp?) throws(DeviceError) -> LayeredTimestamp {
        guard let time = self else {
            guard let undatedAt else { throw DeviceError(.protocolViolation, message: "\(what) has no time stamp") }
            return undatedAt
        }
        return try time.timestamp("time_stamp")
    }
}

extension BodyComposition {
    /// The body composition `measurement` carries, in %, kg, kJ and Ω; `nil` when the scale reports its body fat
    /// unsuccessful (65535), or a mass field unsuccessful is left out.
    init?(_ measurement: BodyCompositionMeasurement) {
        guard measurement.bodyFatPercentage != 0xFFFF else { return nil }
        func kilograms(_ mass: MassValue?) -> Double? { mass?.kilograms(in: measurement.system) }
        self.init(
            bodyFatPercentage: Double(measurement.bodyFatPercentage) / 10,
            basalMetabolism: measurement.basalMetabolism.map(Int.init),
            musclePercentage: measurement.musclePercentage.map { Double($0) / 10 },
            muscleMass: kilograms(measurement.muscleMass), fatFreeMass: kilograms(measurement.fatFreeMass),
            softLeanMass: kilograms(measurement.softLeanMass), bodyWaterMass: kilograms(measurement.bodyWaterMass),
            impedance: measurement.impedance.map { Double($0) / 10 })
    }
}
