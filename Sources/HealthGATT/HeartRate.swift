/// Heart Rate Measurement (0x2A37).
///
/// Flags: bit 0 the rate is 16 bits (8 when clear), bits 1–2 sensor contact (`00` and `01` both mean "not
/// supported", `10` supported but not detected, `11` detected), bit 3 energy expended, bit 4 RR intervals; bits
/// 5–7 are reserved and ignored, except with RR intervals: those fill the rest of the value, two bytes each, in
/// 1/1024 s, so a field a reserved bit announced would be misread as intervals, and is rejected. The RR flag with no
/// interval, or an odd byte left, is rejected.
public struct HeartRateMeasurement: GATTCharacteristic {
    public static let uuid: UInt16 = 0x2A37
    public static let name = "Heart Rate Measurement"

    /// Sensor contact, as bits 1–2 report it.
    public enum SensorContact: String, Hashable, Sendable {
        /// `00` or `01`: the sensor does not report contact (encoded as `00`).
        case notSupported = "not supported"
        /// `10`.
        case notDetected = "not detected"
        /// `11`.
        case detected
    }

    /// Whether the rate is sent as 8 or 16 bits.
    public enum ValueFormat: Hashable, Sendable {
        case uint8
        case uint16
    }

    /// Beats per minute.
    public var heartRate: UInt16
    public var valueFormat: ValueFormat
    public var sensorContact: SensorContact
    /// Kilojoules since the last reset.
    public var energyExpended: UInt16?
    /// RR intervals in 1/1024 s, oldest first; empty when not sent.
    public var rrIntervals: [UInt16]

    /// A measurement; the value format is 8 bits when the rate fits, unless given.
    public init(
        heartRate: UInt16, valueFormat: ValueFormat? = nil, sensorContact: SensorContact = .notSupported,
        energyExpended: UInt16? = nil, rrIntervals: [UInt16] = []
    ) {
        self.heartRate = heartRate
        self.valueFormat = valueFormat ?? (heartRate <= 255 ? .uint8 : .uint16)
        self.sensorContact = sensorContact
        self.energyExpended = energyExpended
        self.rrIntervals = rrIntervals
    }

    public init(bytes: [UInt8]) throws(GATTError) {
        var reader = ByteReader(bytes, characteristic: Self.name)
        let flags = try reader.flags8(known: 0b1_1111)
        valueFormat = flags & 1 == 0 ? .uint8 : .uint16
        heartRate =
            valueFormat == .uint8
            ? UInt16(try reader.uint8("heart_rate_measurement_value"))
            : try reader.uint16("heart_rate_measurement_value")
        sensorContact =
            switch flags >> 1 & 0b11 {
            case 0b10: .notDetected
            case 0b11: .detected
            default: .notSupported
            }
        energyExpended = flags & 0b1000 != 0 ? try reader.uint16("energy_expended") : nil
        var intervals: [UInt16] = []
        if flags & 0b1_0000 != 0 {
            // RR intervals fill the rest of the value: a field a reserved bit announced would be read as intervals.
            guard !reader.announcesUnknownFields else { throw reader.error(.reservedValue, "flags", at: 0) }
            intervals.append(try reader.uint16("rr_interval"))
            while reader.remaining > 0 { intervals.append(try reader.uint16("rr_interval")) }
        }
        rrIntervals = intervals
        try reader.finish()
    }

    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(5 + 2 * rrIntervals.count)
        // A rate above 255 is always sent as 16 bits, whatever the format says.
        let wide = valueFormat == .uint16 || heartRate > 255
        var flags: UInt8 = wide ? 1 : 0
        switch sensorContact {
        case .notSupported: break
        case .notDetected: flags |= 0b100
        case .detected: flags |= 0b110
        }
        if energyExpended != nil { flags |= 0b1000 }
        if !rrIntervals.isEmpty { flags |= 0b1_0000 }
        bytes.append(flags)
        if !wide {
            bytes.append(UInt8(heartRate))
        } else {
            bytes.appendLE(heartRate)
        }
        if let energyExpended { bytes.appendLE(energyExpended) }
        for interval in rrIntervals { bytes.appendLE(interval) }
        return bytes
    }

    /// The RR intervals in seconds.
    public var rrIntervalsInSeconds: [Double] { rrIntervals.map { Double($0) / 1024 } }
}
