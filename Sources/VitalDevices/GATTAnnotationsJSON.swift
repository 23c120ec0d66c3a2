import HealthGATT
import VitalCore

/// What the hub keeps of a measurement beyond its values, printed by `gatt decode` under the key `vitalbridge`:
/// the statuses by the names readings, results and the fleet file use (`bodyMovement`, `deviceBatteryLow`,
/// `armpit`, `measurementUnsuccessful`, …), the fields sent as special values by their result key with the special
/// value's name (`"systolic": "NaN"`, `"temperature": "+INF"`), and the user index. Left out when there is nothing
/// to say.
public struct HubAnnotationsJSON: Encodable, Sendable {
    /// The statuses, by name.
    public var status: [String]?
    /// The fields sent as special values.
    public var unavailable: SpecialValues?
    /// The user index the device gave the reading.
    public var userIndex: UInt8?

    /// The fields sent as special values, in the kind's field order: an object, its keys in that order.
    public struct SpecialValues: Encodable, Sendable {
        /// Each field's result key and the name of the special value sent for it.
        public var fields: [(key: String, value: String)]

        private struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            for (key, value) in fields { try container.encode(value, forKey: Key(stringValue: key)) }
        }
    }

    /// What the hub keeps of `bytes` of the measurement characteristic `uuid`; `nil` when that is nothing, or the
    /// bytes make no reading.
    public init?(decoding bytes: [UInt8], of uuid: UInt16) {
        guard let kept = try? DeviceRecord.annotations(decoding: bytes, of: uuid) else { return nil }
        let names = kept.annotations.status.names
        status = names.isEmpty ? nil : names
        let unavailable = kept.unavailable.map { field, value in
            (key: field.resultPath?.last ?? field.name ?? "value", value: value.description)
        }
        self.unavailable = unavailable.isEmpty ? nil : SpecialValues(fields: unavailable)
        userIndex = kept.annotations.userIndex
        if status == nil, self.unavailable == nil, userIndex == nil { return nil }
    }
}

/// A characteristic's document with what the hub keeps of it (``HubAnnotationsJSON``) under `vitalbridge`.
public struct AnnotatedJSON: Encodable {
    /// The characteristic's document, its keys first.
    public var body: any Encodable
    /// What the hub keeps of it; `nil`: nothing, and no `vitalbridge` key.
    public var annotations: HubAnnotationsJSON?

    /// `body` with `annotations` under `vitalbridge`.
    public init(body: any Encodable, annotations: HubAnnotationsJSON?) {
        self.body = body
        self.annotations = annotations
    }

    /// The document `gatt decode` prints for `bytes` of characteristic `uuid` (`nil`: a bare number): `document`,
    /// with what the hub keeps of the bytes under `vitalbridge` for a measurement it keeps
    /// (``annotatedCharacteristics``).
    public static func document(_ document: any Encodable, of bytes: [UInt8], uuid: UInt16?) -> any Encodable {
        guard let uuid, annotatedCharacteristics.contains(uuid) else { return document }
        return AnnotatedJSON(body: document, annotations: HubAnnotationsJSON(decoding: bytes, of: uuid))
    }

    private enum Keys: String, CodingKey { case vitalbridge }

    public func encode(to encoder: any Encoder) throws {
        try body.encode(to: encoder)
        guard let annotations else { return }
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(annotations, forKey: .vitalbridge)
    }
}

/// The measurement characteristics whose readings the hub keeps, with annotations.
public let annotatedCharacteristics: Set<UInt16> = [
    BloodPressureMeasurement.uuid, GlucoseMeasurement.uuid, WeightMeasurement.uuid, BodyCompositionMeasurement.uuid,
    TemperatureMeasurement.uuid, PLXSpotCheckMeasurement.uuid,
]
