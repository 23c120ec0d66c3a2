import SinkSettings
import VitalCore
import VitalExports

/// What the MQTT sink publishes for Home Assistant's MQTT discovery: pure, no I/O.
///
/// One Home Assistant device per owner of readings (each person of the home, and the home itself for devices that do
/// not tell whose a reading is), and on it one sensor per quantity of each kind of reading: `Ann`'s
/// `Blood pressure systolic`, the home's `Body temperature`. A sensor's state is its owner's latest reading of the
/// kind by measurement time, retained on one topic per (owner, kind) and written as `records --format json` writes a
/// reading; the sensor picks its field out with a template.
///
/// Topics and identifiers use the hub's identity, a person's number in the home and the names of kinds and fields,
/// never a name a person typed (MQTT gives `+`, `#` and `/` meanings; Home Assistant allows only `[A-Za-z0-9_-]` in
/// a discovery topic's node and object identifiers). A person's name appears only in a payload, as the device's
/// name.
///
/// ```
/// homeassistant/sensor/vitalbridge_2b1f…c0de/person2_weight_weight/config     (retained)
/// {"name":"Weight","unique_id":"vitalbridge_2b1f…c0de_person2_weight_weight",
///  "state_topic":"vitalbridge/2b1f…c0de/person2/weight/state","value_template":"{{ value_json.weight_kg | default(None) }}",
///  "unit_of_measurement":"kg","device_class":"weight","state_class":"measurement", …}
/// vitalbridge/2b1f…c0de/person2/weight/state                                   (retained)
/// {"device":"A4C138000001","kind":"weight","measured_at_utc":"2026-11-28T07:02:11Z","weight_kg":71.3}
/// ```
public struct HomeAssistantDiscovery: Sendable {
    /// A quantity Home Assistant shows as a sensor, and how.
    public struct Sensor: Hashable, Sendable {
        public var column: ReadingColumn
        /// Home Assistant's device class, only where its class means this very quantity (a body's weight is a
        /// weight; a blood pressure is not Home Assistant's `pressure`, which it would convert to inHg).
        public var deviceClass: String?
        /// `measurement` for an instant reading, `total_increasing` for a day's running total that starts again at
        /// zero each day (Home Assistant's class for "a daily amount").
        public var stateClass: String
    }

    public let address: MQTTAddress
    public let hubID: String

    public init(address: MQTTAddress, hubID: String) {
        self.address = address
        self.hubID = hubID
    }

    /// The sensors of a reading of `kind`: its numeric fields, in column order. Flags, lists and series (an
    /// arrhythmia flag, sports, RR intervals, sleep segments, a pulse wave) are no sensor's state.
    public static func sensors(of kind: ReadingKind) -> [Sensor] {
        kind.fieldsInColumnOrder.compactMap(\.column).compactMap { column in
            switch column {
            case .arrhythmia, .sports, .rrIntervals, .sportTotals, .sleepSegments, .wave, .heartRateMinutes: return nil
            default: break
            }
            let deviceClass: String? =
                switch column {
                case .weight, .muscleMass, .fatFreeMass, .softLeanMass, .bodyWaterMass: "weight"
                case .temperature: "temperature"
                case .glucose: "blood_glucose_concentration"
                case .distance: "distance"
                case .sleep, .swim, .deepSleep, .lightSleep, .awake: "duration"
                default: nil
                }
            let dayTotal = kind.isDay && [.steps, .calories, .distance, .swimCalories].contains(column)
            return Sensor(
                column: column, deviceClass: deviceClass, stateClass: dayTotal ? "total_increasing" : "measurement")
        }
    }

    /// How an owner is written in topics and identifiers: `home`, or `person` and the person's number.
    public static func ownerLevel(_ personID: Int64?) -> String { personID.map { "person\($0)" } ?? "home" }

    /// Where the latest reading of `kind` of the owner is retained: `PREFIX/HUB/OWNER/KIND/state`.
    public func stateTopic(_ personID: Int64?, _ kind: ReadingKind) -> String {
        "\(address.prefix)/\(hubID)/\(Self.ownerLevel(personID))/\(kind.rawValue)/state"
    }

    /// The object identifier of a sensor: `OWNER_KIND_FIELD` (`person2_blood_pressure_systolic`).
    static func objectID(_ personID: Int64?, _ kind: ReadingKind, _ column: ReadingColumn) -> String {
        "\(ownerLevel(personID))_\(kind.rawValue)_\(column.field)"
    }

    /// Where a sensor's configuration is retained: `DISCOVERY/sensor/vitalbridge_HUB/OBJECT/config`.
    public func configTopic(_ personID: Int64?, _ kind: ReadingKind, _ column: ReadingColumn) -> String {
        "\(address.discoveryPrefix)/sensor/vitalbridge_\(hubID)/\(Self.objectID(personID, kind, column))/config"
    }

    /// A sensor's configuration for Home Assistant: its name, identifier, state topic and template, unit, classes,
    /// attributes (when and by which device the reading was measured), availability, and the device of its owner
    /// (`person`'s name; the home's when `personID` is `nil`).
    public func config(_ sensor: Sensor, of kind: ReadingKind, personID: Int64?, person: String?) -> [UInt8] {
        let owner = Self.ownerLevel(personID)
        var members: [(key: String, value: JSON)] = [
            ("name", .string(Self.name(sensor.column, of: kind))),
            ("unique_id", .string("vitalbridge_\(hubID)_\(Self.objectID(personID, kind, sensor.column))")),
            ("state_topic", .string(stateTopic(personID, kind))),
            ("value_template", .string("{{ value_json.\(sensor.column.name) | default(None) }}")),
        ]
        if !sensor.column.unit.isEmpty { members.append(("unit_of_measurement", .string(sensor.column.unit))) }
        if let deviceClass = sensor.deviceClass { members.append(("device_class", .string(deviceClass))) }
        members += [
            ("state_class", .string(sensor.stateClass)),
            ("json_attributes_topic", .string(stateTopic(personID, kind))),
            (
                "json_attributes_template",
                .string("{{ {'measured_at': value_json.measured_at_utc, 'device': value_json.device} | tojson }}")
            ),
            ("availability_topic", .string(MQTTSink.availabilityTopic(address, hubID: hubID))),
            ("payload_available", .string("online")), ("payload_not_available", .string("offline")),
            (
                "device",
                .object([
                    ("identifiers", .array([.string("vitalbridge_\(hubID)_\(owner)")])),
                    ("name", .string(person ?? "Home")), ("manufacturer", .string("VitalBridge")),
                    ("model", .string(personID == nil ? "Readings of the home" : "Readings of a person")),
                ])
            ),
            ("origin", .object([("name", .string("VitalBridge"))])),
        ]
        return JSON.object(members).serialized(pretty: false)
    }

    /// The latest reading as its state topic holds it: `records --format json`'s object.
    public static func state(_ latest: StoredReading) -> [UInt8] {
        RecordsFormatter.jsonObject(RecordRow(device: latest.device, reading: latest.reading)).serialized(pretty: false)
    }

    /// A sensor's name on its owner's device: the field (`Weight`, `Body fat`), after its kind where fields of that
    /// name belong to several kinds (`Blood pressure heart rate`, `Oximetry heart rate`).
    static func name(_ column: ReadingColumn, of kind: ReadingKind) -> String {
        let field = column.field.replacing("_", with: " ")
        let shared = ReadingKind.allCases.filter { $0.fieldsInColumnOrder.contains { $0.column == column } }.count > 1
        let words = shared ? kind.rawValue.replacing("_", with: " ") + " " + field : field
        return words.prefix(1).uppercased() + words.dropFirst()
    }
}
