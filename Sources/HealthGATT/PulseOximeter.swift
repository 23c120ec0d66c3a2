/// The PLX Measurement Status field (16 bits): bits 5–15 defined, 0–4 reserved and kept as received.
public struct PLXMeasurementStatus: OptionSet, Hashable, Sendable {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let measurementOngoing = Self(rawValue: 1 << 5)
    public static let earlyEstimatedData = Self(rawValue: 1 << 6)
    public static let validatedData = Self(rawValue: 1 << 7)
    public static let fullyQualifiedData = Self(rawValue: 1 << 8)
    public static let dataFromMeasurementStorage = Self(rawValue: 1 << 9)
    public static let dataForDemonstration = Self(rawValue: 1 << 10)
    public static let dataForTesting = Self(rawValue: 1 << 11)
    public static let calibrationOngoing = Self(rawValue: 1 << 12)
    public static let measurementUnavailable = Self(rawValue: 1 << 13)
    public static let questionableMeasurementDetected = Self(rawValue: 1 << 14)
    public static let invalidMeasurementDetected = Self(rawValue: 1 << 15)
}

/// The PLX Device and Sensor Status field (24 bits): bits 0–15 defined, 16–23 reserved and kept as received.
public struct PLXDeviceAndSensorStatus: OptionSet, Hashable, Sendable {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue & 0xFF_FFFF }

    public static let extendedDisplayUpdateOngoing = Self(rawValue: 1 << 0)
    public static let equipmentMalfunctionDetected = Self(rawValue: 1 << 1)
    public static let signalProcessingIrregularityDetected = Self(rawValue: 1 << 2)
    public static let inadequateSignalDetected = Self(rawValue: 1 << 3)
    public static let poorSignalDetected = Self(rawValue: 1 << 4)
    public static let lowPerfusionDetected = Self(rawValue: 1 << 5)
    public static let erraticSignalDetected = Self(rawValue: 1 << 6)
    public static let nonpulsatileSignalDetected = Self(rawValue: 1 << 7)
    public static let questionablePulseDetected = Self(rawValue: 1 << 8)
    public static let signalAnalysisOngoing = Self(rawValue: 1 << 9)
    public static let sensorInterferenceDetected = Self(rawValue: 1 << 10)
    public static let sensorUnconnectedToUser = Self(rawValue: 1 << 11)
    public static let unknownSensorConnected = Self(rawValue: 1 << 12)
    public static let sensorDisplaced = Self(rawValue: 1 << 13)
    public static let sensorMalfunctioning = Self(rawValue: 1 << 14)
    public static let sensorDisconnected = Self(rawValue: 1 << 15)
}

/// An SpO2 and pulse rate pair (percent and beats per minute).
public struct SpO2PulseRate: Hashable, Sendable {
    public var spO2: SFloat
    public var pulseRate: SFloat
    public init(spO2: SFloat, pulseRate: SFloat) {
        self.spO2 = spO2
        self.pulseRate = pulseRate
    }
}

extension ByteReader {
    mutating func spO2PulseRate(_ spO2: String, _ pulseRate: String) throws(GATTError) -> SpO2PulseRate {
        SpO2PulseRate(spO2: try sfloat(spO2), pulseRate: try sfloat(pulseRate))
    }
}

extension [UInt8] {
    mutating func append(_ pair: SpO2PulseRate) {
        appendLE(pair.spO2.bits)
        appendLE(pair.pulseRate.bits)
    }
}

/// PLX Spot-Check Measurement (0x2A5E): one SpO2 reading of a pulse oximeter.
///
/// Flags: bit 0 time stamp, 1 measurement status, 2 device and sensor status, 3 pulse amplitude index, 4 device
/// clock is not set; bits 5–7 are reserved and ignored, with any bytes after the known fields.
public struct PLXSpotCheckMeasurement: GATTCharacteristic {
    public static let uuid: UInt16 = 0x2A5E
    public static let name = "PLX Spot-Check Measurement"

    public var spO2PulseRate: SpO2PulseRate
    public var timeStamp: DateTime?
    public var measurementStatus: PLXMeasurementStatus?
    public var deviceAndSensorStatus: PLXDeviceAndSensorStatus?
    /// Pulse amplitude index in percent.
    public var pulseAmplitudeIndex: SFloat?
    public var deviceClockNotSet: Bool

    public init(
        spO2PulseRate: SpO2PulseRate, timeStamp: DateTime? = nil, measurementStatus: PLXMeasurementStatus? = nil,
        deviceAndSensorStatus: PLXDeviceAndSensorStatus? = nil, pulseAmplitudeIndex: SFloat? = nil,
        deviceClockNotSet: Bool = false
    ) {
        self.spO2PulseRate = spO2PulseRate
        self.timeStamp = timeStamp
        self.measurementStatus = measurementStatus
        self.deviceAndSensorStatus = deviceAndSensorStatus
        self.pulseAmplitudeIndex = pulseAmplitudeIndex
        self.deviceClockNotSet = deviceClockNotSet
    }

    public init(bytes: [UInt8]) throws(GATTError) {
        var reader = ByteReader(bytes, characteristic: Self.name)
        let flags = try reader.flags8(known: 0b1_1111)
        spO2PulseRate = try reader.spO2PulseRate("spo2pr_spot_check.spo2", "spo2pr_spot_check.pr")
        timeStamp = flags & 1 != 0 ? try reader.dateTime("time_stamp") : nil
        measurementStatus =
            flags & 0b10 != 0 ? PLXMeasurementStatus(rawValue: try reader.uint16("measurement_status")) : nil
        deviceAndSensorStatus =
            flags & 0b100 != 0 ? PLXDeviceAndSensorStatus(rawValue: try reader.uint24("device_and_sensor_status")) : nil
        pulseAmplitudeIndex = flags & 0b1000 != 0 ? try reader.sfloat("pulse_amplitude_index") : nil
        deviceClockNotSet = flags & 0b1_0000 != 0
        try reader.finish()
    }

    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(19)
        var flags: UInt8 = 0
        if timeStamp != nil { flags |= 1 }
        if measurementStatus != nil { flags |= 0b10 }
        if deviceAndSensorStatus != nil { flags |= 0b100 }
        if pulseAmplitudeIndex != nil { flags |= 0b1000 }
        if deviceClockNotSet { flags |= 0b1_0000 }
        bytes.append(flags)
        bytes.append(spO2PulseRate)
        timeStamp?.append(to: &bytes)
        if let measurementStatus { bytes.appendLE(measurementStatus.rawValue) }
        if let deviceAndSensorStatus { bytes.appendLE24(deviceAndSensorStatus.rawValue) }
        if let pulseAmplitudeIndex { bytes.appendLE(pulseAmplitudeIndex.bits) }
        return bytes
    }
}

/// PLX Continuous Measurement (0x2A5F): the running SpO2 of a pulse oximeter.
///
/// Flags: bit 0 SpO2PR-Fast, 1 SpO2PR-Slow, 2 measurement status, 3 device and sensor status, 4 pulse amplitude
/// index; bits 5–7 are reserved and ignored, with any bytes after the known fields.
public struct PLXContinuousMeasurement: GATTCharacteristic {
    public static let uuid: UInt16 = 0x2A5F
    public static let name = "PLX Continuous Measurement"

    public var normal: SpO2PulseRate
    public var fast: SpO2PulseRate?
    public var slow: SpO2PulseRate?
    public var measurementStatus: PLXMeasurementStatus?
    public var deviceAndSensorStatus: PLXDeviceAndSensorStatus?
    public var pulseAmplitudeIndex: SFloat?

    public init(
        normal: SpO2PulseRate, fast: SpO2PulseRate? = nil, slow: SpO2PulseRate? = nil,
        measurementStatus: PLXMeasurementStatus? = nil, deviceAndSensorStatus: PLXDeviceAndSensorStatus? = nil,
        pulseAmplitudeIndex: SFloat? = nil
    ) {
        self.normal = normal
        self.fast = fast
        self.slow = slow
        self.measurementStatus = measurementStatus
        self.deviceAndSensorStatus = deviceAndSensorStatus
        self.pulseAmplitudeIndex = pulseAmplitudeIndex
    }

    public init(bytes: [UInt8]) throws(GATTError) {
        var reader = ByteReader(bytes, characteristic: Self.name)
        let flags = try reader.flags8(known: 0b1_1111)
        normal = try reader.spO2PulseRate("spo2pr_normal.spo2", "spo2pr_normal.pr")
        fast = flags & 1 != 0 ? try reader.spO2PulseRate("spo2pr_fast.spo2", "spo2pr_fast.pr") : nil
        slow = flags & 0b10 != 0 ? try reader.spO2PulseRate("spo2pr_slow.spo2", "spo2pr_slow.pr") : nil
        measurementStatus =
            flags & 0b100 != 0 ? PLXMeasurementStatus(rawValue: try reader.uint16("measurement_status")) : nil
        deviceAndSensorStatus =
            flags & 0b1000 != 0
            ? PLXDeviceAndSensorStatus(rawValue: try reader.uint24("device_and_sensor_status")) : nil
        pulseAmplitudeIndex = flags & 0b1_0000 != 0 ? try reader.sfloat("pulse_amplitude_index") : nil
        try reader.finish()
    }

    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20)
        var flags: UInt8 = 0
        if fast != nil { flags |= 1 }
        if slow != nil { flags |= 0b10 }
        if measurementStatus != nil { flags |= 0b100 }
        if deviceAndSensorStatus != nil { flags |= 0b1000 }
        if pulseAmplitudeIndex != nil { flags |= 0b1_0000 }
        bytes.append(flags)
        bytes.append(normal)
        if let fast { bytes.append(fast) }
        if let slow { bytes.append(slow) }
        if let measurementStatus { bytes.appendLE(measurementStatus.rawValue) }
        if let deviceAndSensorStatus { bytes.appendLE24(deviceAndSensorStatus.rawValue) }
        if let pulseAmplitudeIndex { bytes.appendLE(pulseAmplitudeIndex.bits) }
        return bytes
    }
}

/// PLX Features (0x2A60): what a pulse oximeter supports.
///
/// Supported features (16 bits): 0 measurement status support present, 1 device and sensor status support
/// present, 2 spot-check measurement storage, 3 spot-check time stamp, 4 SpO2PR-Fast, 5 SpO2PR-Slow, 6 pulse
/// amplitude index, 7 multiple bonds; bits 8–15 reserved and kept. Bits 0 and 1 announce the two support fields.
public struct PLXFeatures: GATTCharacteristic {
    public static let uuid: UInt16 = 0x2A60
    public static let name = "PLX Features"

    /// The supported features with bits 0 and 1 derived from the support fields when encoding.
    public var supportedFeatures: UInt16
    public var measurementStatusSupport: PLXMeasurementStatus?
    public var deviceAndSensorStatusSupport: PLXDeviceAndSensorStatus?

    public init(
        supportedFeatures: UInt16, measurementStatusSupport: PLXMeasurementStatus? = nil,
        deviceAndSensorStatusSupport: PLXDeviceAndSensorStatus? = nil
    ) {
        self.supportedFeatures = supportedFeatures & ~0b11
        self.measurementStatusSupport = measurementStatusSupport
        self.deviceAndSensorStatusSupport = deviceAndSensorStatusSupport
    }

    public init(bytes: [UInt8]) throws(GATTError) {
        var reader = ByteReader(bytes, characteristic: Self.name)
        let features = try reader.uint16("supported_features")
        supportedFeatures = features & ~0b11
        measurementStatusSupport =
            features & 1 != 0 ? PLXMeasurementStatus(rawValue: try reader.uint16("measurement_status_support")) : nil
        deviceAndSensorStatusSupport =
            features & 0b10 != 0
            ? PLXDeviceAndSensorStatus(rawValue: try reader.uint24("device_and_sensor_status_support")) : nil
        try reader.finish()
    }

    /// The Supported Features field as sent: ``supportedFeatures`` with bits 0 and 1 set for the support fields
    /// present.
    public var supportedFeaturesField: UInt16 {
        supportedFeatures & ~0b11 | (measurementStatusSupport != nil ? 1 : 0)
            | (deviceAndSensorStatusSupport != nil ? 0b10 : 0)
    }

    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendLE(supportedFeaturesField)
        if let measurementStatusSupport { bytes.appendLE(measurementStatusSupport.rawValue) }
        if let deviceAndSensorStatusSupport { bytes.appendLE24(deviceAndSensorStatusSupport.rawValue) }
        return bytes
    }
}
