import HealthGATT
import VitalCore

/// The JSON shape `vitalbridge gatt decode` prints: snake_case keys after the SIG field names in the SIG's field
/// order, units in `unit`, time stamps as objects, special float values as strings. Each characteristic has an
/// `Encodable` body whose camelCase properties, declared in the SIG's order, become the keys (``gattJSON(_:)``
/// writes them); an absent optional field is left out.
public protocol JSONRepresentable {
    /// The body's type.
    associatedtype JSONBody: Encodable
    /// The JSON body of this value.
    var json: JSONBody { get }
}

/// A measured number: `mantissa × 10^exponent`, written exactly by ``gattJSON(_:)``, or a special value's name.
public struct GATTNumber: Encodable, Sendable {
    var special: SpecialFloatValue?
    var mantissa: Int
    var exponent: Int

    /// `mantissa × 10^exponent`, or the special value `special`.
    public init(mantissa: Int, exponent: Int, special: SpecialFloatValue? = nil) {
        (self.mantissa, self.exponent, self.special) = (mantissa, exponent, special)
    }

    /// The value of an SFLOAT.
    public init(_ number: SFloat) {
        self.init(mantissa: number.mantissa, exponent: number.exponent, special: number.special)
    }
    /// The value of a FLOAT.
    public init(_ number: MedicalFloat) {
        self.init(mantissa: number.mantissa, exponent: number.exponent, special: number.special)
    }

    /// The number in decimal digits, exactly, with no exponent and no trailing zero after the point (`120`,
    /// `36.5`, `-0.005`, `3700…0`), or the special value's name as a string.
    var exactJSON: JSON {
        if let special { return .string(special.rawValue) }
        var digits = String(mantissa.magnitude)
        if mantissa == 0 {
            digits = "0"
        } else if exponent >= 0 {
            digits += String(repeating: "0", count: exponent)
        } else {
            let fraction = -exponent
            if digits.count <= fraction { digits = String(repeating: "0", count: fraction - digits.count + 1) + digits }
            digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -fraction))
            while digits.last == "0" { digits.removeLast() }
            if digits.last == "." { digits.removeLast() }
        }
        return .number((mantissa < 0 ? "-" : "") + digits)
    }

    /// Writes the number into a document ``gattJSON(_:)`` makes as a JSON number; any other encoder, which could
    /// only round it to a `Double`, gets its exact digits as a string (`"3700…0"`), and a special value's name.
    public func encode(to encoder: any Encoder) throws {
        if let ordered = encoder as? OrderedEncoder { return ordered.write(exactJSON) }
        var container = encoder.singleValueContainer()
        switch exactJSON {
        case .number(let digits), .string(let digits): try container.encode(digits)
        default: try container.encodeNil()
        }
    }
}

/// A number, or a text where the device sent a sentinel (`measurement unsuccessful`).
public enum NumberOrText: Encodable, Sendable {
    case number(GATTNumber)
    case text(String)

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .number(let number): try number.encode(to: encoder)
        case .text(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        }
    }
}

/// A key spelled at run time, for bit fields.
private struct NamedKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// A bit field as flags named after the SIG's bit names, with its raw value (and, for the blood pressure status,
/// the pulse rate range, a two-bit field).
public struct GATTFlags: Encodable, Sendable {
    var flags: [(name: String, isSet: Bool)]
    var raw: UInt64
    var texts: [(name: String, value: String)] = []

    init<Set: OptionSet>(_ value: Set, _ names: [(String, Set)], raw: some BinaryInteger) where Set.Element == Set {
        flags = names.map { ($0.0, value.contains($0.1)) }
        self.raw = UInt64(raw)
    }

    public func encode(to encoder: any Encoder) throws {
        // the SIG names are snake case already; the encoder's key strategy, which only splits words at capitals,
        // leaves them as they are
        var container = encoder.container(keyedBy: NamedKey.self)
        for (name, isSet) in flags { try container.encode(isSet, forKey: NamedKey(name)) }
        for (name, value) in texts { try container.encode(value, forKey: NamedKey(name)) }
        try container.encode(raw, forKey: NamedKey("raw"))
    }
}

/// Splits a camelCase case name into lower-case words: `capillaryWholeBlood` → `capillary whole blood`.
func words(_ value: some Any) -> String {
    var text = ""
    for character in String(describing: value) {
        if character.isUppercase {
            text += " " + character.lowercased()
        } else {
            text.append(character)
        }
    }
    return text
}

/// `mantissa × 10^exponent`, exactly.
func decimal(_ mantissa: Int, _ exponent: Int) -> GATTNumber {
    GATTNumber(mantissa: mantissa, exponent: exponent)
}

public struct DateTimeJSON: Encodable, Sendable {
    var year: UInt16
    var month, day, hours, minutes, seconds: UInt8

    init(_ time: DateTime) {
        (year, month, day, hours, minutes, seconds) = (
            time.year, time.month, time.day, time.hours, time.minutes, time.seconds
        )
    }
}

extension DateTime: JSONRepresentable {
    public var json: DateTimeJSON { DateTimeJSON(self) }
}

extension BloodPressureMeasurementStatus {
    var json: GATTFlags {
        var flags = GATTFlags(
            self,
            [
                ("body_movement_detected", .bodyMovementDetected), ("cuff_fit_too_loose", .cuffTooLoose),
                ("irregular_pulse_detected", .irregularPulseDetected),
                ("measurement_position_improper", .improperMeasurementPosition),
            ], raw: rawValue)
        flags.texts = [("pulse_rate_range", words(pulseRateRange))]
        return flags
    }
}

/// Blood pressure measurement and intermediate cuff pressure.
public struct PressureJSON: Encodable, Sendable {
    var unit: String
    var systolic, diastolic, meanArterialPressure, currentCuffPressure: GATTNumber?
    var timeStamp: DateTimeJSON?
    var pulseRate: GATTNumber?
    var userId: UInt8?
    var measurementStatus: GATTFlags?

    init(
        unit: String, timeStamp: DateTime?, pulseRate: SFloat?, userID: UInt8?,
        status: BloodPressureMeasurementStatus?
    ) {
        self.unit = unit
        self.timeStamp = timeStamp.map(DateTimeJSON.init)
        self.pulseRate = pulseRate.map(GATTNumber.init)
        userId = userID
        measurementStatus = status?.json
    }
}

extension BloodPressureMeasurement: JSONRepresentable {
    public var json: PressureJSON {
        var body = PressureJSON(
            unit: unit.rawValue, timeStamp: timeStamp, pulseRate: pulseRate, userID: userID, status: status)
        body.systolic = GATTNumber(systolic)
        body.diastolic = GATTNumber(diastolic)
        body.meanArterialPressure = GATTNumber(meanArterialPressure)
        return body
    }
}

extension IntermediateCuffPressure: JSONRepresentable {
    public var json: PressureJSON {
        var body = PressureJSON(
            unit: unit.rawValue, timeStamp: timeStamp, pulseRate: pulseRate, userID: userID, status: status)
        body.currentCuffPressure = GATTNumber(cuffPressure)
        return body
    }
}

extension BloodPressureFeature: JSONRepresentable {
    public var json: GATTFlags {
        GATTFlags(
            self,
            [
                ("body_movement_detection_support", .bodyMovementDetection),
                ("cuff_fit_detection_support", .cuffFitDetection),
                ("irregular_pulse_detection_support", .irregularPulseDetection),
                ("pulse_rate_range_detection_support", .pulseRateRangeDetection),
                ("measurement_position_detection_support", .measurementPositionDetection),
                ("multiple_bond_support", .multipleBonds),
            ], raw: rawValue)
    }
}

extension SensorStatusAnnunciation {
    var json: GATTFlags {
        GATTFlags(
            self,
            [
                ("device_battery_low", .deviceBatteryLow), ("sensor_malfunction", .sensorMalfunction),
                ("sample_size_insufficient", .sampleSizeInsufficient),
                ("strip_insertion_error", .stripInsertionError), ("strip_type_incorrect", .stripTypeIncorrect),
                ("result_too_high", .resultTooHigh), ("result_too_low", .resultTooLow),
                ("temperature_too_high", .temperatureTooHigh), ("temperature_too_low", .temperatureTooLow),
                ("read_interrupted", .readInterrupted), ("general_device_fault", .generalDeviceFault),
                ("time_fault", .timeFault),
            ], raw: rawValue)
    }
}

public struct GlucoseJSON: Encodable, Sendable {
    var sequenceNumber: UInt16
    var baseTime: DateTimeJSON
    var timeOffset: Int16?
    var unit: String?
    var glucoseConcentration: GATTNumber?
    var type, sampleLocation: String?
    var sensorStatusAnnunciation: GATTFlags?
    var contextInformationFollows: Bool
}

extension GlucoseMeasurement: JSONRepresentable {
    public var json: GlucoseJSON {
        GlucoseJSON(
            sequenceNumber: sequenceNumber, baseTime: DateTimeJSON(baseTime), timeOffset: timeOffset,
            unit: concentration.map { _ in unit.rawValue },
            glucoseConcentration: concentration.map { GATTNumber($0.value) },
            type: concentration.map { words($0.type) }, sampleLocation: concentration.map { words($0.location) },
            sensorStatusAnnunciation: sensorStatus?.json, contextInformationFollows: contextInformationFollows)
    }
}

public struct GlucoseContextJSON: Encodable, Sendable {
    var sequenceNumber: UInt16
    var extendedFlags: UInt8?
    var carbohydrateId: String?
    var carbohydrate: GATTNumber?
    var carbohydrateUnit: String?
    var meal, tester, health: String?
    var exerciseDuration: UInt16?
    var exerciseIntensity: UInt8?
    var medicationId: String?
    var medication: GATTNumber?
    var medicationUnit: String?
    var hba1c: GATTNumber?
}

extension GlucoseMeasurementContext: JSONRepresentable {
    public var json: GlucoseContextJSON {
        GlucoseContextJSON(
            sequenceNumber: sequenceNumber, extendedFlags: extendedFlags,
            carbohydrateId: carbohydrate.map { words($0.id) },
            carbohydrate: carbohydrate.map { GATTNumber($0.amount) }, carbohydrateUnit: carbohydrate.map { _ in "g" },
            meal: meal.map { words($0) }, tester: testerHealth.map { words($0.tester) },
            health: testerHealth.map { words($0.health) }, exerciseDuration: exercise?.duration,
            exerciseIntensity: exercise?.intensity, medicationId: medication.map { words($0.id) },
            medication: medication.map { GATTNumber($0.amount) },
            medicationUnit: medication.map { _ in medicationUnit.rawValue }, hba1c: hbA1c.map(GATTNumber.init))
    }
}

extension GlucoseFeature: JSONRepresentable {
    public var json: GATTFlags {
        GATTFlags(
            self,
            [
                ("low_battery_detection", .lowBatteryDetection),
                ("sensor_malfunction_detection", .sensorMalfunctionDetection),
                ("sensor_sample_size", .sensorSampleSize),
                ("sensor_strip_insertion_error_detection", .stripInsertionErrorDetection),
                ("sensor_strip_type_error_detection", .stripTypeErrorDetection),
                ("sensor_result_high_low_detection", .resultHighLowDetection),
                ("sensor_temperature_high_low_detection", .temperatureHighLowDetection),
                ("sensor_read_interrupt_detection", .readInterruptDetection),
                ("general_device_fault", .generalDeviceFault), ("time_fault", .timeFault),
                ("multiple_bond", .multipleBond),
            ], raw: rawValue)
    }
}

public struct RACPJSON: Encodable, Sendable {
    /// A bound of a filter: a sequence number or a user-facing time.
    enum Bound: Encodable, Sendable {
        case number(UInt16)
        case time(DateTimeJSON)

        func encode(to encoder: any Encoder) throws {
            switch self {
            case .number(let number):
                var container = encoder.singleValueContainer()
                try container.encode(number)
            case .time(let time): try time.encode(to: encoder)
            }
        }
    }

    struct Operand: Encodable, Sendable {
        var filterType: String
        var value, minimum, maximum: Bound?

        init(_ bound: RecordBound) {
            switch bound {
            case .sequenceNumber(let number): (filterType, value) = ("sequence number", .number(number))
            case .userFacingTime(let time): (filterType, value) = ("user facing time", .time(DateTimeJSON(time)))
            }
        }

        init(filterType: String, minimum: Bound, maximum: Bound) {
            (self.filterType, self.minimum, self.maximum) = (filterType, minimum, maximum)
        }
    }

    var opCode: String
    var `operator`: String
    var operand: Operand?
    var numberOfRecords: UInt16?
    var requestOpCode, responseCodeValue: String?

    init(_ opCode: RACPOpCode, operator: String = "null") {
        self.opCode = opCode.description
        self.operator = `operator`
    }

    init(_ opCode: RACPOpCode, _ filter: RecordFilter) {
        switch filter {
        case .all: self.init(opCode, operator: "all records")
        case .first: self.init(opCode, operator: "first record")
        case .last: self.init(opCode, operator: "last record")
        case .lessThanOrEqual(let value):
            self.init(opCode, operator: "less than or equal to")
            operand = Operand(value)
        case .greaterThanOrEqual(let value):
            self.init(opCode, operator: "greater than or equal to")
            operand = Operand(value)
        case .sequenceNumbers(let range):
            self.init(opCode, operator: "within range of (inclusive)")
            operand = Operand(
                filterType: "sequence number", minimum: .number(range.lowerBound), maximum: .number(range.upperBound))
        case .userFacingTimes(let from, let through):
            self.init(opCode, operator: "within range of (inclusive)")
            operand = Operand(
                filterType: "user facing time", minimum: .time(DateTimeJSON(from)),
                maximum: .time(DateTimeJSON(through)))
        }
    }
}

extension RecordAccessControlPoint: JSONRepresentable {
    public var json: RACPJSON {
        switch self {
        case .reportStoredRecords(let filter): return RACPJSON(.reportStoredRecords, filter)
        case .deleteStoredRecords(let filter): return RACPJSON(.deleteStoredRecords, filter)
        case .reportNumberOfStoredRecords(let filter): return RACPJSON(.reportNumberOfStoredRecords, filter)
        case .abortOperation: return RACPJSON(.abortOperation)
        case .numberOfStoredRecordsResponse(let count):
            var body = RACPJSON(.numberOfStoredRecordsResponse)
            body.numberOfRecords = count
            return body
        case .responseCode(let request, let response):
            var body = RACPJSON(.responseCode)
            body.requestOpCode = request.description
            body.responseCodeValue = response.description
            return body
        }
    }
}

/// A mass in its fixed resolution: 0.005 kg or 0.01 lb, exactly.
func massNumber(_ value: MassValue, _ system: MeasurementSystem) -> NumberOrText {
    if value.isUnsuccessful { return .text("measurement unsuccessful") }
    return .number(system == .si ? decimal(Int(value.raw) * 5, -3) : decimal(Int(value.raw), -2))
}

/// A height in 0.001 m or 0.1 in, exactly.
private func heightNumber(_ raw: UInt16, _ system: MeasurementSystem) -> GATTNumber {
    system == .si ? decimal(Int(raw), -3) : decimal(Int(raw), -1)
}

public struct WeightJSON: Encodable, Sendable {
    var unit, heightUnit: String
    var weight: NumberOrText
    var timeStamp: DateTimeJSON?
    var userId: UInt8?
    var bmi, height: GATTNumber?
}

extension WeightMeasurement: JSONRepresentable {
    public var json: WeightJSON {
        WeightJSON(
            unit: system == .si ? "kg" : "lb", heightUnit: system == .si ? "m" : "in",
            weight: massNumber(weight, system),
            timeStamp: timeStamp.map(DateTimeJSON.init), userId: userID, bmi: bmi.map { decimal(Int($0), -1) },
            height: height.map { heightNumber($0, system) })
    }
}

public struct WeightScaleFeatureJSON: Encodable, Sendable {
    var timeStampSupported, multipleUsersSupported, bmiSupported: Bool
    var weightMeasurementResolution, heightMeasurementResolution, raw: UInt32
}

extension WeightScaleFeature: JSONRepresentable {
    public var json: WeightScaleFeatureJSON {
        WeightScaleFeatureJSON(
            timeStampSupported: timeStampSupported, multipleUsersSupported: multipleUsersSupported,
            bmiSupported: bmiSupported, weightMeasurementResolution: weightResolution,
            heightMeasurementResolution: heightResolution, raw: rawValue)
    }
}

public struct BodyCompositionJSON: Encodable, Sendable {
    var unit, heightUnit: String
    var bodyFatPercentage: NumberOrText
    var timeStamp: DateTimeJSON?
    var userId: UInt8?
    var basalMetabolism: UInt16?
    var musclePercentage: GATTNumber?
    var muscleMass, fatFreeMass, softLeanMass, bodyWaterMass: NumberOrText?
    var impedance: GATTNumber?
    var weight: NumberOrText?
    var height: GATTNumber?
    var multiplePacketMeasurement: Bool
}

extension BodyCompositionMeasurement: JSONRepresentable {
    public var json: BodyCompositionJSON {
        BodyCompositionJSON(
            unit: system == .si ? "kg" : "lb", heightUnit: system == .si ? "m" : "in",
            bodyFatPercentage: bodyFatPercentage == 0xFFFF
                ? .text("measurement unsuccessful") : .number(decimal(Int(bodyFatPercentage), -1)),
            timeStamp: timeStamp.map(DateTimeJSON.init), userId: userID, basalMetabolism: basalMetabolism,
            musclePercentage: musclePercentage.map { decimal(Int($0), -1) },
            muscleMass: muscleMass.map { massNumber($0, system) },
            fatFreeMass: fatFreeMass.map { massNumber($0, system) },
            softLeanMass: softLeanMass.map { massNumber($0, system) },
            bodyWaterMass: bodyWaterMass.map { massNumber($0, system) },
            impedance: impedance.map { decimal(Int($0), -1) }, weight: weight.map { massNumber($0, system) },
            height: height.map { heightNumber($0, system) }, multiplePacketMeasurement: multiplePacket)
    }
}

public struct TemperatureJSON: Encodable, Sendable {
    var unit: String
    var temperatureMeasurementValue: GATTNumber
    var timeStamp: DateTimeJSON?
    var temperatureType: String?
}

extension TemperatureMeasurement: JSONRepresentable {
    public var json: TemperatureJSON {
        TemperatureJSON(
            unit: unit.rawValue, temperatureMeasurementValue: GATTNumber(temperature),
            timeStamp: timeStamp.map(DateTimeJSON.init), temperatureType: type.map { words($0) })
    }
}

extension PLXMeasurementStatus {
    var json: GATTFlags {
        GATTFlags(
            self,
            [
                ("measurement_ongoing", .measurementOngoing), ("early_estimated_data", .earlyEstimatedData),
                ("validated_data", .validatedData), ("fully_qualified_data", .fullyQualifiedData),
                ("data_from_measurement_storage", .dataFromMeasurementStorage),
                ("data_for_demonstration", .dataForDemonstration), ("data_for_testing", .dataForTesting),
                ("calibration_ongoing", .calibrationOngoing), ("measurement_unavailable", .measurementUnavailable),
                ("questionable_measurement_detected", .questionableMeasurementDetected),
                ("invalid_measurement_detected", .invalidMeasurementDetected),
            ], raw: rawValue)
    }
}

extension PLXDeviceAndSensorStatus {
    var json: GATTFlags {
        GATTFlags(
            self,
            [
                ("extended_display_update_ongoing", .extendedDisplayUpdateOngoing),
                ("equipment_malfunction_detected", .equipmentMalfunctionDetected),
                ("signal_processing_irregularity_detected", .signalProcessingIrregularityDetected),
                ("inadequate_signal_detected", .inadequateSignalDetected),
                ("poor_signal_detected", .poorSignalDetected),
                ("low_perfusion_detected", .lowPerfusionDetected), ("erratic_signal_detected", .erraticSignalDetected),
                ("nonpulsatile_signal_detected", .nonpulsatileSignalDetected),
                ("questionable_pulse_detected", .questionablePulseDetected),
                ("signal_analysis_ongoing", .signalAnalysisOngoing),
                ("sensor_interference_detected", .sensorInterferenceDetected),
                ("sensor_unconnected_to_user", .sensorUnconnectedToUser),
                ("unknown_sensor_connected", .unknownSensorConnected), ("sensor_displaced", .sensorDisplaced),
                ("sensor_malfunctioning", .sensorMalfunctioning), ("sensor_disconnected", .sensorDisconnected),
            ], raw: rawValue)
    }
}

public struct SpO2PulseRateJSON: Encodable, Sendable {
    var spo2, pr: GATTNumber

    init(_ value: SpO2PulseRate) { (spo2, pr) = (GATTNumber(value.spO2), GATTNumber(value.pulseRate)) }
}

public struct PLXJSON: Encodable, Sendable {
    var unit = "%, bpm"
    var spo2prSpotCheck, spo2prNormal, spo2prFast, spo2prSlow: SpO2PulseRateJSON?
    var timeStamp: DateTimeJSON?
    var measurementStatus, deviceAndSensorStatus: GATTFlags?
    var pulseAmplitudeIndex: GATTNumber?
    var deviceClockNotSet: Bool?
}

extension PLXSpotCheckMeasurement: JSONRepresentable {
    public var json: PLXJSON {
        PLXJSON(
            spo2prSpotCheck: SpO2PulseRateJSON(spO2PulseRate), timeStamp: timeStamp.map(DateTimeJSON.init),
            measurementStatus: measurementStatus?.json, deviceAndSensorStatus: deviceAndSensorStatus?.json,
            pulseAmplitudeIndex: pulseAmplitudeIndex.map(GATTNumber.init), deviceClockNotSet: deviceClockNotSet)
    }
}

extension PLXContinuousMeasurement: JSONRepresentable {
    public var json: PLXJSON {
        PLXJSON(
            spo2prNormal: SpO2PulseRateJSON(normal), spo2prFast: fast.map(SpO2PulseRateJSON.init),
            spo2prSlow: slow.map(SpO2PulseRateJSON.init), measurementStatus: measurementStatus?.json,
            deviceAndSensorStatus: deviceAndSensorStatus?.json,
            pulseAmplitudeIndex: pulseAmplitudeIndex.map(GATTNumber.init))
    }
}

public struct PLXFeaturesJSON: Encodable, Sendable {
    var supportedFeatures: UInt16
    var measurementStatusSupport, deviceAndSensorStatusSupport: GATTFlags?
}

extension PLXFeatures: JSONRepresentable {
    public var json: PLXFeaturesJSON {
        PLXFeaturesJSON(
            supportedFeatures: supportedFeaturesField, measurementStatusSupport: measurementStatusSupport?.json,
            deviceAndSensorStatusSupport: deviceAndSensorStatusSupport?.json)
    }
}

public struct HeartRateJSON: Encodable, Sendable {
    var unit = "bpm"
    var heartRateMeasurementValue: UInt16
    var valueFormat, sensorContact: String
    var energyExpended: UInt16?
    var energyUnit: String?
    var rrIntervals: [UInt16]?
    var rrIntervalUnit: String?
}

extension HeartRateMeasurement: JSONRepresentable {
    public var json: HeartRateJSON {
        HeartRateJSON(
            heartRateMeasurementValue: heartRate, valueFormat: valueFormat == .uint8 ? "uint8" : "uint16",
            sensorContact: sensorContact.rawValue, energyExpended: energyExpended,
            energyUnit: energyExpended.map { _ in "kJ" }, rrIntervals: rrIntervals.isEmpty ? nil : rrIntervals,
            rrIntervalUnit: rrIntervals.isEmpty ? nil : "1/1024 s")
    }
}

/// A bare SFLOAT or FLOAT: its value (or special value's name), with its mantissa and exponent unless special.
public struct BareNumberJSON: Encodable, Sendable {
    var value: GATTNumber
    var mantissa, exponent: Int?

    /// `value`, with its mantissa and exponent unless it is a special value.
    public init(_ value: GATTNumber, mantissa: Int, exponent: Int) {
        self.value = value
        if value.special == nil { (self.mantissa, self.exponent) = (mantissa, exponent) }
    }
}
