import SinkSettings
import VitalCore
import VitalExports

/// What the MQTT sink publishes for Home Assistant's MQTT discovery: pure, no I/O.
///
/// One Home Assistant device per owner of readings (each person of the home, and the home itself for devices that do
/// not tell whose a reading is), and on it one sensor per quantity of each kind of reading: `Ann`'s
/// `Blood pressure systolic`, the home's `Temperature`. A sensor's state is its owner's latest reading of the
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
/// {"device":"A4C138000001","kind":"weight","measured_at_utc":"2026-11-28 07:02:11","weight_kg":71.3}
/// ```
public struct HomeAssistantDiscovery: Sendable {
    /// A quantity Home Assistant shows as a sensor, and how.
    public struct Sensor: Hashable, Sendable {
        public var column: ReadingColumn
        /// Home Assistant's device class, only where its class means this very quantity (a body's weight is a
        /// weight; a blood pressure is not Home Assistant's `pressure`, which it would convert to inHg).
        public var deviceClass: String?
        /// `measurement` for an instant reading; `total` for a day's running total (steps, calories, distance),
        /// whose cycle starts with the day: the reading's time, its `last_reset`.
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
            return Sensor(column: column, deviceClass: deviceClass, stateClass: dayTotal ? "total" : "measurement")
        }
    }

    /// The sensors `reading` has a value for, or a value the device could not measure (unknown, not absent): a scale
    /// that measures no body composition gets a weight sensor, not eight that stay unknown.
    public static func sensors(of reading: Reading) -> [Sensor] {
        let measured = Set(ReadingColumn.values(of: reading).map(\.column))
            .union(reading.unavailableFields.compactMap { $0.field.column })
        return sensors(of: reading.kind).filter { measured.contains($0.column) }
    }

    /// How an owner is written in topics and identifiers: `home`, or `person` and the person's number.
    public static func ownerLevel(_ owner: ReadingOwner) -> String {
        switch owner {
        case .home: "home"
        case .person(let id): "person\(id)"
        }
    }

    /// Where the latest reading of `kind` of the owner is retained: `PREFIX/HUB/OWNER/KIND/state`.
    public func stateTopic(_ owner: ReadingOwner, _ kind: ReadingKind) -> String {
        "\(address.prefix)/\(hubID)/\(Self.ownerLevel(owner))/\(kind.rawValue)/state"
    }

    /// The object identifier of a sensor: `OWNER_KIND_FIELD` (`person2_blood_pressure_systolic`).
    static func objectID(_ owner: ReadingOwner, _ kind: ReadingKind, _ column: ReadingColumn) -> String {
        "\(ownerLevel(owner))_\(kind.rawValue)_\(column.field)"
    }

    /// Where a sensor's configuration is retained: `DISCOVERY/sensor/vitalbridge_HUB/OBJECT/config`.
    public func configTopic(_ owner: ReadingOwner, _ kind: ReadingKind, _ column: ReadingColumn) -> String {
        "\(address.discoveryPrefix)/sensor/vitalbridge_\(hubID)/\(Self.objectID(owner, kind, column))/config"
    }

    /// A sensor's configuration for Home Assistant: its name, identifier, state topic and template, unit, classes (a
    /// day's total with its `last_reset`, the day's start), attributes (when and by which device the reading was
    /// measured), the device of its owner (`person`'s name; `Home` for the home) and, when a long-running publisher
    /// keeps it (`available`), the hub's availability: a sensor that only `sink push` publishes would otherwise
    /// stay unavailable, as Home Assistant waits for `online` on an availability topic.
    public func config(
        _ sensor: Sensor, of kind: ReadingKind, owner: ReadingOwner, person: String?, available: Bool
    ) -> [UInt8] {
        let state = stateTopic(owner, kind)
        var members: [(key: String, value: JSON)] = [
            ("name", .string(Self.name(sensor.column, of: kind))),
            ("unique_id", .string("vitalbridge_\(hubID)_\(Self.objectID(owner, kind, sensor.column))")),
            ("state_topic", .string(state)),
            ("value_template", .string("{{ value_json.\(sensor.column.name) | default(None) }}")),
        ]
        if !sensor.column.unit.isEmpty { members.append(("unit_of_measurement", .string(sensor.column.unit))) }
        if let deviceClass = sensor.deviceClass { members.append(("device_class", .string(deviceClass))) }
        members.append(("state_class", .string(sensor.stateClass)))
        if sensor.stateClass == "total" {
            members.append(
                ("last_reset_value_template", .string("{{ value_json.measured_at_utc | replace(' ', 'T') }}+00:00")))
        }
        members += [
            ("json_attributes_topic", .string(state)),
            (
                "json_attributes_template",
                .string("{{ {'measured_at': value_json.measured_at_utc, 'device': value_json.device} | tojson }}")
            ),
        ]
        if available {
            members += [
                ("availability_topic", .string(MQTTSink.availabilityTopic(address, hubID: hubID))),
                ("payload_available", .string("online")), ("payload_not_available", .string("offline")),
            ]
        }
        members += [
            (
                "device",
                .object([
                    ("identifiers", .array([.string("vitalbridge_\(hubID)_\(Self.ownerLevel(owner))")])),
                    ("name", .string(person ?? "Home")), ("manufacturer", .string("VitalBridge")),
                    ("model", .string(owner == .home ? "Readings of the home" : "Readings of a person")),
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
    /// name belong to several kinds (`Blood pressure heart rate`, `Oximetry heart rate`) and the kind is not the
    /// field itself (`Heart rate`).
    public static func name(_ column: ReadingColumn, of kind: ReadingKind) -> String {
        let field = column.field.replacing("_", with: " ")
        let shared =
            kind.rawValue != column.field
            && ReadingKind.allCases.filter { $0.fieldsInColumnOrder.contains { $0.column == column } }.count > 1
        let words = shared ? kind.rawValue.replacing("_", with: " ") + " " + field : field
        return words.prefix(1).uppercased() + words.dropFirst()
    }
}
