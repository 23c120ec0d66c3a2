/// The measurement system of a scale's values: SI (kg, m) or imperial (lb, in).
public enum MeasurementSystem: String, Hashable, Sendable {
    case si = "SI"
    case imperial
}

/// A mass in the fixed resolution of the Weight Scale and Body Composition services: 0.005 kg (SI) or 0.01 lb
/// (imperial). 65535 means "measurement unsuccessful".
public struct MassValue: Hashable, Sendable {
    public var raw: UInt16
    public init(raw: UInt16) { self.raw = raw }

    /// Whether the scale reported an unsuccessful measurement (65535).
    public var isUnsuccessful: Bool { raw == 0xFFFF }

    /// The mass in kilograms (SI) or pounds (imperial), or `nil` if unsuccessful.
    public func value(in system: MeasurementSystem) -> Double? {
        // divided, not multiplied by 0.005: the result is the double nearest the exact decimal
        isUnsuccessful ? nil : system == .si ? Double(Int(raw) * 5) / 1000 : Double(raw) / 100
    }

    /// The mass in kilograms, whatever the system it was sent in, or `nil` if unsuccessful.
    public func kilograms(in system: MeasurementSystem) -> Double? {
        value(in: system).map { system == .si ? $0 : $0 * 0.453_592_37 }
    }

    /// The raw value for `value` kilograms (SI) or pounds (imperial), rounded to the resolution; `nil` if out of
    /// range or not finite.
    public init?(_ value: Double, in system: MeasurementSystem) {
        let raw = (value / (system == .si ? 0.005 : 0.01)).rounded()
        guard raw.isFinite, raw >= 0, raw < 65535 else { return nil }
        self.raw = UInt16(raw)
    }
}

/// Weight Measurement (0x2A9D).
///
/// Weight has the fixed resolution 0.005 kg or 0.01 lb, height 0.001 m or 0.1 in, BMI 0.1 kg/m²; the Weight
/// Scale Feature's resolution fields describe the scale's precision only, never how to read these values.
/// Flags: bit 0 imperial units, bit 1 time stamp, bit 2 user ID, bit 3 BMI and height; bits 4–7 are reserved
/// and ignored, with any bytes after the known fields.
public struct WeightMeasurement: GATTCharacteristic {
    public static let uuid: UInt16 = 0x2A9D
    public static let name = "Weight Measurement"

    public var system: MeasurementSystem
    public var weight: MassValue
    public var timeStamp: DateTime?
    /// User ID; 255 means unknown user.
    public var userID: UInt8?
    /// BMI in 0.1 kg/m², present with ``height``.
    public var bmi: UInt16?
    /// Height in 0.001 m (SI) or 0.1 in (imperial), present with ``bmi``.
    public var height: UInt16?

    public init(
        system: MeasurementSystem, weight: MassValue, timeStamp: DateTime? = nil, userID: UInt8? = nil,
        bmiAndHeight: (bmi: UInt16, height: UInt16)? = nil
    ) {
        self.system = system
        self.weight = weight
        self.timeStamp = timeStamp
        self.userID = userID
        self.bmi = bmiAndHeight?.bmi
        self.height = bmiAndHeight?.height
    }

    public init(bytes: [UInt8]) throws(GATTError) {
        var reader = ByteReader(bytes, characteristic: Self.name)
        let flags = try reader.flags8(known: 0b1111)
        system = flags & 1 == 0 ? .si : .imperial
        weight = MassValue(raw: try reader.uint16("weight"))
        timeStamp = flags & 0b10 != 0 ? try reader.dateTime("time_stamp") : nil
        userID = flags & 0b100 != 0 ? try reader.uint8("user_id") : nil
        if flags & 0b1000 != 0 {
            bmi = try reader.uint16("bmi")
            height = try reader.uint16("height")
        } else {
            bmi = nil
            height = nil
        }
        try reader.finish()
    }

    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(15)
        var flags: UInt8 = system == .imperial ? 1 : 0
        if timeStamp != nil { flags |= 0b10 }
        if userID != nil { flags |= 0b100 }
        let bmiAndHeight = bmi.flatMap { bmi in height.map { (bmi, $0) } }
        if bmiAndHeight != nil { flags |= 0b1000 }
        bytes.append(flags)
        bytes.appendLE(weight.raw)
        timeStamp?.append(to: &bytes)
        if let userID { bytes.append(userID) }
        if let (bmi, height) = bmiAndHeight {
            bytes.appendLE(bmi)
            bytes.appendLE(height)
        }
        return bytes
    }

    /// The weight in kilograms, whatever the system; `nil` if unsuccessful.
    public var kilograms: Double? {
        weight.kilograms(in: system)
    }

    /// The height in metres, whatever the system.
    public var heightInMeters: Double? {
        height.map { system == .si ? Double($0) * 0.001 : Double($0) * 0.1 * 0.0254 }
    }
}

/// Weight Scale Feature (0x2A9E): what a scale supports (32 bits).
///
/// Bits 3–6 give the weight resolution (0 unspecified, 1–7 from 0.5 kg down to 0.005 kg), bits 7–9 the height
/// resolution (0 unspecified, 1–3 from 0.01 m down to 0.001 m); reserved resolution values are rejected,
/// reserved bits 10–31 kept as received.
public struct WeightScaleFeature: GATTCharacteristic {
    public static let uuid: UInt16 = 0x2A9E
    public static let name = "Weight Scale Feature"

    public var rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public init(bytes: [UInt8]) throws(GATTError) {
        var reader = ByteReader(bytes, characteristic: Self.name)
        rawValue = try reader.uint32("weight_scale_feature")
        guard weightResolution <= 7 else { throw reader.error(.reservedValue, "weight_measurement_resolution", at: 0) }
        guard heightResolution <= 3 else { throw reader.error(.reservedValue, "height_measurement_resolution", at: 0) }
        try reader.finish()
    }

    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendLE(rawValue)
        return bytes
    }

    public var timeStampSupported: Bool { rawValue & 1 != 0 }
    public var multipleUsersSupported: Bool { rawValue & 0b10 != 0 }
    public var bmiSupported: Bool { rawValue & 0b100 != 0 }
    /// Bits 3–6: 0 not specified; 1 0.5 kg / 1 lb; 2 0.2 kg / 0.5 lb; 3 0.1 kg / 0.2 lb; 4 0.05 kg / 0.1 lb;
    /// 5 0.02 kg / 0.05 lb; 6 0.01 kg / 0.02 lb; 7 0.005 kg / 0.01 lb.
    public var weightResolution: UInt32 { rawValue >> 3 & 0xF }
    /// Bits 7–9: 0 not specified; 1 0.01 m / 1 in; 2 0.005 m / 0.5 in; 3 0.001 m / 0.1 in.
    public var heightResolution: UInt32 { rawValue >> 7 & 0b111 }
    /// The weight precision in kilograms, if specified.
    public var weightResolutionKilograms: Double? {
        [nil, 0.5, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005][Int(min(weightResolution, 7))]
    }
}

/// Body Composition Measurement (0x2A9C).
///
/// Flags (16 bits): 0 imperial units, 1 time stamp, 2 user ID, 3 basal metabolism, 4 muscle percentage,
/// 5 muscle mass, 6 fat free mass, 7 soft lean mass, 8 body water mass, 9 impedance, 10 weight, 11 height,
/// 12 multiple packet measurement; 13–15 are reserved and ignored, with any bytes after the known fields.
/// Percentages are in 0.1 %, masses in the ``MassValue`` resolution, basal metabolism in kJ, impedance in 0.1 Ω, height in 0.001 m or 0.1 in.
public struct BodyCompositionMeasurement: GATTCharacteristic {
    public static let uuid: UInt16 = 0x2A9C
    public static let name = "Body Composition Measurement"

    public var system: MeasurementSystem
    /// Body fat percentage in 0.1 %; 65535 means unsuccessful.
    public var bodyFatPercentage: UInt16
    public var timeStamp: DateTime?
    public var userID: UInt8?
    public var basalMetabolism: UInt16?
    public var musclePercentage: UInt16?
    public var muscleMass: MassValue?
    public var fatFreeMass: MassValue?
    public var softLeanMass: MassValue?
    public var bodyWaterMass: MassValue?
    public var impedance: UInt16?
    public var weight: MassValue?
    public var height: UInt16?
    /// Whether the measurement continues in another packet.
    public var multiplePacket: Bool

    public init(
        system: MeasurementSystem, bodyFatPercentage: UInt16, timeStamp: DateTime? = nil, userID: UInt8? = nil,
        basalMetabolism: UInt16? = nil, musclePercentage: UInt16? = nil, muscleMass: MassValue? = nil,
        fatFreeMass: MassValue? = nil, softLeanMass: MassValue? = nil, bodyWaterMass: MassValue? = nil,
        impedance: UInt16? = nil, weight: MassValue? = nil, height: UInt16? = nil, multiplePacket: Bool = false
    ) {
        self.system = system
        self.bodyFatPercentage = bodyFatPercentage
        self.timeStamp = timeStamp
        self.userID = userID
        self.basalMetabolism = basalMetabolism
        self.musclePercentage = musclePercentage
        self.muscleMass = muscleMass
        self.fatFreeMass = fatFreeMass
        self.softLeanMass = softLeanMass
        self.bodyWaterMass = bodyWaterMass
        self.impedance = impedance
        self.weight = weight
        self.height = height
        self.multiplePacket = multiplePacket
    }

    public init(bytes: [UInt8]) throws(GATTError) {
        var reader = ByteReader(bytes, characteristic: Self.name)
        let flags = try reader.flags16(known: 0x1FFF)
        func has(_ bit: UInt16) -> Bool { flags & 1 << bit != 0 }
        system = has(0) ? .imperial : .si
        bodyFatPercentage = try reader.uint16("body_fat_percentage")
        timeStamp = has(1) ? try reader.dateTime("time_stamp") : nil
        userID = has(2) ? try reader.uint8("user_id") : nil
        basalMetabolism = has(3) ? try reader.uint16("basal_metabolism") : nil
        musclePercentage = has(4) ? try reader.uint16("muscle_percentage") : nil
        muscleMass = has(5) ? MassValue(raw: try reader.uint16("muscle_mass")) : nil
        fatFreeMass = has(6) ? MassValue(raw: try reader.uint16("fat_free_mass")) : nil
        softLeanMass = has(7) ? MassValue(raw: try reader.uint16("soft_lean_mass")) : nil
        bodyWaterMass = has(8) ? MassValue(raw: try reader.uint16("body_water_mass")) : nil
        impedance = has(9) ? try reader.uint16("impedance") : nil
        weight = has(10) ? MassValue(raw: try reader.uint16("weight")) : nil
        height = has(11) ? try reader.uint16("height") : nil
        multiplePacket = has(12)
        try reader.finish()
    }

    public func encoded() -> [UInt8] {
        var flags: UInt16 = system == .imperial ? 1 : 0
        var body: [UInt8] = []
        body.reserveCapacity(30)
        body.appendLE(bodyFatPercentage)
        if let timeStamp {
            flags |= 1 << 1
            timeStamp.append(to: &body)
        }
        if let userID {
            flags |= 1 << 2
            body.append(userID)
        }
        let fields: [(UInt16, UInt16?)] = [
            (3, basalMetabolism), (4, musclePercentage), (5, muscleMass?.raw), (6, fatFreeMass?.raw),
            (7, softLeanMass?.raw), (8, bodyWaterMass?.raw), (9, impedance), (10, weight?.raw), (11, height),
        ]
        for (bit, value) in fields {
            if let value {
                flags |= 1 << bit
                body.appendLE(value)
            }
        }
        if multiplePacket { flags |= 1 << 12 }
        var bytes: [UInt8] = []
        bytes.appendLE(flags)
        return bytes + body
    }
}
