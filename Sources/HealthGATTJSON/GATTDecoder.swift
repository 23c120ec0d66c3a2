import HealthGATT

/// How one characteristic's captured bytes become its JSON document: the table `vitalbridge gatt decode` reads.
///
/// A characteristic is named by its 16-bit UUID in hexadecimal (`2A35`, `0x2a35`, in any case), or `sfloat` /
/// `float` for a bare IEEE 11073 number:
///
/// ```swift
/// let decoder = GATTDecoder.named("0x2a35")!             // Blood Pressure Measurement
/// let document = try decoder.decode(GATTDecoder.bytes(hex: "1E 8A00 5800 7800 0000 04 11 14 29 3B 3C00 01 2700")!)
/// let json = try gattJSON(document).serialized(pretty: true)
/// ```
public struct GATTDecoder: Sendable {
    /// The characteristic's name (`Blood Pressure Measurement`, `IEEE 11073 SFLOAT`).
    public var name: String
    /// Its UUID; `nil` for a bare number.
    public var uuid: UInt16?
    /// Its document of `bytes`, or the error naming the field and byte offset where they do not decode.
    public var decode: @Sendable ([UInt8]) throws(GATTError) -> any Encodable

    /// Every characteristic's decoder by its upper-case key (`2A35`, `SFLOAT`, `FLOAT`).
    public static let all: [String: GATTDecoder] = {
        var table: [String: GATTDecoder] = [:]
        func add<C: GATTCharacteristic & JSONRepresentable>(_ type: C.Type) {
            table[String(C.uuid, radix: 16, uppercase: true)] = GATTDecoder(name: C.name, uuid: C.uuid) {
                bytes throws(GATTError) in try C(bytes: bytes).json
            }
        }
        add(DateTime.self)
        add(BloodPressureMeasurement.self)
        add(IntermediateCuffPressure.self)
        add(BloodPressureFeature.self)
        add(GlucoseMeasurement.self)
        add(GlucoseMeasurementContext.self)
        add(GlucoseFeature.self)
        add(RecordAccessControlPoint.self)
        add(WeightMeasurement.self)
        add(WeightScaleFeature.self)
        add(BodyCompositionMeasurement.self)
        add(TemperatureMeasurement.self)
        add(PLXSpotCheckMeasurement.self)
        add(PLXContinuousMeasurement.self)
        add(PLXFeatures.self)
        add(HeartRateMeasurement.self)
        add(UserControlPoint.self)
        add(UserIndex.self)
        add(DatabaseChangeIncrement.self)
        add(FirstName.self)
        add(Age.self)
        add(DateOfBirth.self)
        add(Gender.self)
        add(Height.self)
        add(UserWeight.self)
        for width in [2, 4] {
            let name = width == 2 ? "IEEE 11073 SFLOAT" : "IEEE 11073 FLOAT"
            table[width == 2 ? "SFLOAT" : "FLOAT"] = GATTDecoder(name: name, uuid: nil) { bytes throws(GATTError) in
                try BareNumberJSON(bytes, width: width, name: name)
            }
        }
        return table
    }()

    /// The decoder of the characteristic `text` names: a 16-bit UUID in hexadecimal with or without `0x`, or
    /// `sfloat` / `float`, in any case; `nil` for anything else.
    public static func named(_ text: String) -> GATTDecoder? {
        var key = text.uppercased()
        if key.hasPrefix("0X") { key.removeFirst(2) }
        return all[key]
    }

    /// The bytes of hexadecimal text as captured: pairs of digits, with spaces, `:` and `-` between bytes and a
    /// leading `0x` ignored; `nil` when it is not that.
    public static func bytes(hex text: String) -> [UInt8]? {
        var digits = Substring(text)
        if digits.lowercased().hasPrefix("0x") { digits = digits.dropFirst(2) }
        let cleaned = digits.filter { $0 != " " && $0 != ":" && $0 != "-" }
        guard cleaned.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        var index = cleaned.startIndex
        while index != cleaned.endIndex {
            let next = cleaned.index(index, offsetBy: 2)
            guard let byte = UInt8(cleaned[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }
}

extension BareNumberJSON {
    /// The SFLOAT (`width` 2) or FLOAT (4) of exactly `width` little-endian bytes.
    init(_ bytes: [UInt8], width: Int, name: String) throws(GATTError) {
        guard bytes.count >= width else { throw GATTError(.short, characteristic: name, field: "value", offset: 0) }
        guard bytes.count == width else {
            throw GATTError(.tooLong, characteristic: name, field: "end", offset: width)
        }
        let bits = bytes.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        if width == 2 {
            let number = SFloat(bits: UInt16(bits))
            self.init(GATTNumber(number), mantissa: number.mantissa, exponent: number.exponent)
        } else {
            let number = MedicalFloat(bits: bits)
            self.init(GATTNumber(number), mantissa: number.mantissa, exponent: number.exponent)
        }
    }
}
