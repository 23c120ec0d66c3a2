/// The unit of a temperature.
public enum TemperatureUnit: String, Hashable, Sendable {
    case celsius = "°C"
    case fahrenheit = "°F"
}

/// Where a temperature was taken (Temperature Type, 0x2A1D values).
public enum TemperatureType: UInt8, Hashable, Sendable, CaseIterable {
    case armpit = 1
    case body = 2
    case ear = 3
    case finger = 4
    case gastrointestinalTract = 5
    case mouth = 6
    case rectum = 7
    case toe = 8
    case tympanum = 9
}

/// Temperature Measurement (0x2A1C), indicated by a health thermometer.
///
/// The temperature is an IEEE 11073 FLOAT (32 bits). Flags: bit 0 Fahrenheit, bit 1 time stamp, bit 2
/// temperature type; bits 3–7 are reserved and ignored, with any bytes after the known fields; reserved temperature types are rejected (0, 10–255).
public struct TemperatureMeasurement: GATTCharacteristic {
    public static let uuid: UInt16 = 0x2A1C
    public static let name = "Temperature Measurement"

    public var unit: TemperatureUnit
    public var temperature: MedicalFloat
    public var timeStamp: DateTime?
    public var type: TemperatureType?

    public init(
        unit: TemperatureUnit, temperature: MedicalFloat, timeStamp: DateTime? = nil, type: TemperatureType? = nil
    ) {
        self.unit = unit
        self.temperature = temperature
        self.timeStamp = timeStamp
        self.type = type
    }

    public init(bytes: [UInt8]) throws(GATTError) {
        var reader = ByteReader(bytes, characteristic: Self.name)
        let flags = try reader.flags8(known: 0b111)
        unit = flags & 1 == 0 ? .celsius : .fahrenheit
        temperature = try reader.float("temperature_measurement_value")
        timeStamp = flags & 0b10 != 0 ? try reader.dateTime("time_stamp") : nil
        if flags & 0b100 != 0 {
            let at = reader.offset
            guard let type = TemperatureType(rawValue: try reader.uint8("temperature_type")) else {
                throw reader.error(.reservedValue, "temperature_type", at: at)
            }
            self.type = type
        } else {
            type = nil
        }
        try reader.finish()
    }

    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(13)
        var flags: UInt8 = unit == .fahrenheit ? 1 : 0
        if timeStamp != nil { flags |= 0b10 }
        if type != nil { flags |= 0b100 }
        bytes.append(flags)
        bytes.appendLE(temperature.bits)
        timeStamp?.append(to: &bytes)
        if let type { bytes.append(type.rawValue) }
        return bytes
    }
}
