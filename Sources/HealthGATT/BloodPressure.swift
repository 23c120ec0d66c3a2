/// The unit of a blood or cuff pressure.
public enum PressureUnit: String, Hashable, Sendable {
    case mmHg
    case kPa
}

/// The Measurement Status field of a blood pressure measurement (16 bits).
///
/// Bits 0–5 are defined; bits 6–15 are reserved and kept as received.
public struct BloodPressureMeasurementStatus: OptionSet, Hashable, Sendable {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Bit 0.
    public static let bodyMovementDetected = Self(rawValue: 1 << 0)
    /// Bit 1.
    public static let cuffTooLoose = Self(rawValue: 1 << 1)
    /// Bit 2.
    public static let irregularPulseDetected = Self(rawValue: 1 << 2)
    /// Bit 5.
    public static let improperMeasurementPosition = Self(rawValue: 1 << 5)

    /// Bits 3–4: how the pulse rate compares with the device's limits.
    public enum PulseRateRange: UInt16, Hashable, Sendable {
        case withinRange = 0
        case exceedsUpperLimit = 1
        case belowLowerLimit = 2
        case reserved = 3
    }

    /// Bits 3–4.
    public var pulseRateRange: PulseRateRange {
        get { PulseRateRange(rawValue: rawValue >> 3 & 0b11)! }
        set { rawValue = rawValue & ~(0b11 << 3) | newValue.rawValue << 3 }
    }
}

/// The layout shared by Blood Pressure Measurement (0x2A35) and Intermediate Cuff Pressure (0x2A36).
struct BloodPressureLayout: Hashable, Sendable {
    var unit: PressureUnit
    var first: SFloat
    var second: SFloat
    var third: SFloat
    var timeStamp: DateTime?
    var pulseRate: SFloat?
    var userID: UInt8?
    var status: BloodPressureMeasurementStatus?

    init(
        unit: PressureUnit, first: SFloat, second: SFloat, third: SFloat, timeStamp: DateTime?, pulseRate: SFloat?,
        userID: UInt8?, status: BloodPressureMeasurementStatus?
    ) {
        self.unit = unit
        self.first = first
        self.second = second
        self.third = third
        self.timeStamp = timeStamp
        self.pulseRate = pulseRate
        self.userID = userID
        self.status = status
    }

    init(bytes: [UInt8], characteristic: String, names: (String, String, String)) throws(GATTError) {
        var reader = ByteReader(bytes, characteristic: characteristic)
        let flags = try reader.flags8(known: 0b1_1111)
        unit = flags & 1 == 0 ? .mmHg : .kPa
        first = try reader.sfloat(names.0)
        second = try reader.sfloat(names.1)
        third = try reader.sfloat(names.2)
        timeStamp = flags & 0b10 != 0 ? try reader.dateTime("time_stamp") : nil
        pulseRate = flags & 0b100 != 0 ? try reader.sfloat("pulse_rate") : nil
        userID = flags & 0b1000 != 0 ? try reader.uint8("user_id") : nil
        status =
            flags & 0b1_0000 != 0
            ? BloodPressureMeasurementStatus(rawValue: try reader.uint16("measurement_status")) : nil
        try reader.finish()
    }

    func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(19)
        var flags: UInt8 = unit == .kPa ? 1 : 0
        if timeStamp != nil { flags |= 0b10 }
        if pulseRate != nil { flags |= 0b100 }
        if userID != nil { flags |= 0b1000 }
        if status != nil { flags |= 0b1_0000 }
        bytes.append(flags)
        bytes.appendLE(first.bits)
        bytes.appendLE(second.bits)
        bytes.appendLE(third.bits)
        timeStamp?.append(to: &bytes)
        if let pulseRate { bytes.appendLE(pulseRate.bits) }
        if let userID { bytes.append(userID) }
        if let status { bytes.appendLE(status.rawValue) }
        return bytes
    }
}

/// Blood Pressure Measurement (0x2A35): a final reading, indicated by a blood pressure monitor.
///
/// Flags (bit 0 unit, 1 time stamp, 2 pulse rate, 3 user ID, 4 measurement status) are derived from the
/// optionals when encoding; reserved flag bits 5–7 are ignored when decoding, with any bytes after the known
/// fields: a field they announce would follow those (the Core Specification's rule for reserved bits).
public struct BloodPressureMeasurement: GATTCharacteristic {
    public static let uuid: UInt16 = 0x2A35
    public static let name = "Blood Pressure Measurement"

    public var unit: PressureUnit
    public var systolic: SFloat
    public var diastolic: SFloat
    public var meanArterialPressure: SFloat
    public var timeStamp: DateTime?
    /// Pulse rate in beats per minute.
    public var pulseRate: SFloat?
    /// User ID; 255 means unknown user.
    public var userID: UInt8?
    public var status: BloodPressureMeasurementStatus?

    public init(
        unit: PressureUnit, systolic: SFloat, diastolic: SFloat, meanArterialPressure: SFloat,
        timeStamp: DateTime? = nil, pulseRate: SFloat? = nil, userID: UInt8? = nil,
        status: BloodPressureMeasurementStatus? = nil
    ) {
        self.unit = unit
        self.systolic = systolic
        self.diastolic = diastolic
        self.meanArterialPressure = meanArterialPressure
        self.timeStamp = timeStamp
        self.pulseRate = pulseRate
        self.userID = userID
        self.status = status
    }

    public init(bytes: [UInt8]) throws(GATTError) {
        let layout = try BloodPressureLayout(
            bytes: bytes, characteristic: Self.name, names: ("systolic", "diastolic", "mean_arterial_pressure"))
        self.init(
            unit: layout.unit, systolic: layout.first, diastolic: layout.second, meanArterialPressure: layout.third,
            timeStamp: layout.timeStamp, pulseRate: layout.pulseRate, userID: layout.userID, status: layout.status)
    }

    public func encoded() -> [UInt8] {
        BloodPressureLayout(
            unit: unit, first: systolic, second: diastolic, third: meanArterialPressure, timeStamp: timeStamp,
            pulseRate: pulseRate, userID: userID, status: status
        ).encoded()
    }
}

/// Intermediate Cuff Pressure (0x2A36): the cuff pressure while a measurement runs, notified by a blood pressure
/// monitor.
///
/// It has the layout of ``BloodPressureMeasurement`` with the systolic field carrying the current cuff pressure.
/// The diastolic and mean arterial pressure fields are unused: they are written as NaN and ignored when read.
public struct IntermediateCuffPressure: GATTCharacteristic {
    public static let uuid: UInt16 = 0x2A36
    public static let name = "Intermediate Cuff Pressure"

    public var unit: PressureUnit
    public var cuffPressure: SFloat
    public var timeStamp: DateTime?
    public var pulseRate: SFloat?
    public var userID: UInt8?
    public var status: BloodPressureMeasurementStatus?

    public init(
        unit: PressureUnit, cuffPressure: SFloat, timeStamp: DateTime? = nil, pulseRate: SFloat? = nil,
        userID: UInt8? = nil, status: BloodPressureMeasurementStatus? = nil
    ) {
        self.unit = unit
        self.cuffPressure = cuffPressure
        self.timeStamp = timeStamp
        self.pulseRate = pulseRate
        self.userID = userID
        self.status = status
    }

    public init(bytes: [UInt8]) throws(GATTError) {
        let layout = try BloodPressureLayout(
            bytes: bytes, characteristic: Self.name, names: ("current_cuff_pressure", "unused", "unused"))
        self.init(
            unit: layout.unit, cuffPressure: layout.first, timeStamp: layout.timeStamp, pulseRate: layout.pulseRate,
            userID: layout.userID, status: layout.status)
    }

    public func encoded() -> [UInt8] {
        BloodPressureLayout(
            unit: unit, first: cuffPressure, second: SFloat(.nan), third: SFloat(.nan), timeStamp: timeStamp,
            pulseRate: pulseRate, userID: userID, status: status
        ).encoded()
    }
}

/// Blood Pressure Feature (0x2A49): what a monitor can detect (16 bits; undefined bits kept as received).
public struct BloodPressureFeature: GATTCharacteristic, OptionSet {
    public static let uuid: UInt16 = 0x2A49
    public static let name = "Blood Pressure Feature"

    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let bodyMovementDetection = Self(rawValue: 1 << 0)
    public static let cuffFitDetection = Self(rawValue: 1 << 1)
    public static let irregularPulseDetection = Self(rawValue: 1 << 2)
    public static let pulseRateRangeDetection = Self(rawValue: 1 << 3)
    public static let measurementPositionDetection = Self(rawValue: 1 << 4)
    public static let multipleBonds = Self(rawValue: 1 << 5)

    public init(bytes: [UInt8]) throws(GATTError) {
        var reader = ByteReader(bytes, characteristic: Self.name)
        rawValue = try reader.uint16("blood_pressure_feature")
        try reader.finish()
    }

    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendLE(rawValue)
        return bytes
    }
}
