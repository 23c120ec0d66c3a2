import VitalCore

/// The person every Observation of an export is about: the `subject` the vital-signs profile requires.
public enum FHIRSubject: Hashable, Sendable {
    /// A `Patient` the bundle holds, named `name`. Its id is the same at every export of this hub for this name,
    /// and differs from every other hub's, so that two homes exporting "Jane Doe" never merge two people.
    case named(String)
    /// A `Patient` that already exists on the server, by its resource id: Observations reference
    /// `Patient/<id>`, and the bundle holds no Patient.
    case existing(id: String)
}

extension FHIRSubject {
    /// Throws unless FHIR can hold the subject: a name that is not empty and has no control characters, or a
    /// resource id of 1 to 64 letters, digits, `-` and `.`.
    public func check() throws(FHIRExportError) {
        switch self {
        case .named(let name):
            guard !name.allSatisfy(\.isWhitespace) else {
                throw FHIRExportError(message: "the patient's name is empty")
            }
            guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw FHIRExportError(message: "the patient's name has control characters")
            }
        case .existing(let id):
            guard FHIRBundleWriter.isResourceID(id) else {
                throw FHIRExportError(
                    message: "the patient id \(id.debugDescription) is not a FHIR id (1 to 64 of A-Z a-z 0-9 - .)")
            }
        }
    }
}

/// A device as the FHIR export describes it: its Bluetooth address, and what the hub knows of it.
public struct FHIRDevice: Hashable, Sendable {
    public var mac: MACAddress
    public var model: DeviceModel?
    public var serialNumber: String?
    public var firmwareRevision: String?

    public init(mac: MACAddress, model: DeviceModel?, serialNumber: String? = nil, firmwareRevision: String? = nil) {
        self.mac = mac
        self.model = model
        self.serialNumber = serialNumber
        self.firmwareRevision = firmwareRevision
    }
}

/// Why an export cannot be written, naming the option that is wrong.
public struct FHIRExportError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// Writes the readings of one person as a FHIR R4 `Bundle`, one entry at a time, so that any number of readings
/// takes the same memory.
///
/// The bundle is a `collection`, or a `transaction` a server ingests in one POST: every entry is then a
/// conditional create (`ifNoneExist` on the entry's identifier), so that posting the same export twice, or two
/// overlapping ones, stores each resource once. In both, each entry's `fullUrl` is a `urn:uuid:` and
/// Observations reference their Patient and Device by it.
///
/// - Each reading gives one vital-signs `Observation` per quantity (``FHIRObservationKind``): category
///   `vital-signs`, its LOINC code, a UCUM quantity, `status` `final`, `effectiveDateTime` with the offset
///   `utcOffset` gives (a day's steps: the date alone), the `subject`, and the `Device` that measured it.
/// - Each device is a `Device` resource, written before its first Observation: its model, serial number, firmware
///   and its Bluetooth address as a `BTMAC` identifier (`http://hl7.org/fhir/sid/eui-48/bluetooth`,
///   `00-4D-32-08-D2-F4`).
/// - Ids are stable: exporting the same readings again gives the same bytes. An Observation's identifier is the
///   device, the reading's kind and time and the quantity (`004D3208D2F4-blood_pressure-1763540000-bp`; a second
///   reading of the same device, kind and second adds `-2`), in the system `urn:uuid:<hub>`; its id is the version-5
///   UUID of that identifier in the hub's namespace. Every resource's `meta.source` is `urn:uuid:<hub>`.
public struct FHIRBundleWriter {
    public enum BundleType: String, Sendable {
        case collection, transaction
    }

    private let type: BundleType
    /// The Patient the bundle holds (its UUID and name), for a named subject.
    private let patient: (uuid: String, name: String)?
    private let hubSystem: String
    private let hubNamespace: [UInt8]
    private let glucose: FHIRObservationKind
    private let devices: [MACAddress: FHIRDevice]
    private let utcOffset: (Timestamp) -> Int
    private let subjectReference: String
    /// The `urn:uuid:` of each device whose `Device` is written.
    private var deviceReferences: [MACAddress: String] = [:]
    private var entries = 0
    /// The readings already written at the current time, by device, kind and time: a second one gets `-2`.
    private var atTime: (time: Timestamp, seen: [String: Int])?

    /// A writer of a bundle of `type` about `subject`, for the hub `hub` (its UUID), with glucose in `glucoseUnit`
    /// (mg/dL or mmol/L), the devices the hub knows, and the offset from UTC, in seconds, at each time.
    ///
    /// - Throws: ``FHIRExportError`` for a hub that is not a UUID, a glucose unit other than mg/dL or mmol/L, or a
    ///   subject FHIR cannot hold (``FHIRSubject/check()``).
    public init(
        type: BundleType, subject: FHIRSubject, hub: String, glucoseUnit: VitalUnit = .mgPerDeciliter,
        devices: [FHIRDevice], utcOffset: @escaping (Timestamp) -> Int
    ) throws(FHIRExportError) {
        guard let namespace = NameBasedUUID.bytes(of: hub) else {
            throw FHIRExportError(message: "the hub's identity \(hub) is not a UUID")
        }
        switch glucoseUnit {
        case .mgPerDeciliter: glucose = .glucoseMass
        case .mmolPerLiter: glucose = .glucoseMolar
        default: throw FHIRExportError(message: "FHIR glucose is in mg/dL or mmol/L, not \(glucoseUnit)")
        }
        let hubText = NameBasedUUID.text(of: namespace)
        try subject.check()
        switch subject {
        case .named(let name):
            let uuid = NameBasedUUID.v5(namespace: namespace, name: "Patient/" + name)
            patient = (uuid, name)
            subjectReference = "urn:uuid:" + uuid
        case .existing(let id):
            patient = nil
            subjectReference = "Patient/" + id
        }
        self.type = type
        self.hubSystem = "urn:uuid:" + hubText
        self.hubNamespace = namespace
        self.devices = Dictionary(devices.map { ($0.mac, $0) }, uniquingKeysWith: { first, _ in first })
        self.utcOffset = utcOffset
    }

    /// Whether `id` is a FHIR resource id: 1 to 64 letters, digits, `-` and `.`.
    static func isResourceID(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count)
            && id.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."):
                    true
                default: false
                }
            }
    }

    // MARK: Writing

    /// Appends the bundle's opening, and the Patient when the subject is named.
    public mutating func begin(into output: inout [UInt8]) {
        output += Array("{\"resourceType\":\"Bundle\",\"type\":\"\(type.rawValue)\"".utf8)
        guard let patient else { return }
        let identifier = identifier(system: hubSystem, value: patient.uuid)
        append(
            resource: "Patient", uuid: patient.uuid, identifier: (hubSystem, patient.uuid),
            members: [
                ("identifier", .array([identifier])), ("name", .array([.object([("text", .string(patient.name))])])),
            ],
            to: &output)
    }

    /// Appends the Observations of `reading`, measured by `device`, after the device's `Device` if it is the
    /// device's first. Readings come oldest first, as the store gives them.
    public mutating func append(_ reading: Reading, device mac: MACAddress, to output: inout [UInt8]) {
        let key = readingKey(reading, device: mac)
        let deviceReference = deviceEntry(mac, to: &output)
        let effective: JSON
        switch reading {
        case .activity(let day): effective = .string(day.date.description)
        case .band(let day): effective = .string(day.date.description)
        default: effective = .string(dateTime(reading.measuredAt))
        }
        for (kind, value) in Self.quantities(of: reading, glucose: glucose) {
            let identifierValue = key + "-" + (kind == .glucoseMolar ? FHIRObservationKind.glucoseMass : kind).id
            let uuid = NameBasedUUID.v5(namespace: hubNamespace, name: "Observation/" + identifierValue)
            var members: [(key: String, value: JSON)] = [
                ("identifier", .array([identifier(system: hubSystem, value: identifierValue)])),
                ("status", .string("final")), ("category", Self.vitalSigns), ("code", Self.concept(kind)),
                ("subject", .object([("reference", .string(subjectReference))])), ("effectiveDateTime", effective),
            ]
            members += value
            members += Self.annotationMembers(reading.annotations, of: kind)
            members.append(("device", .object([("reference", .string(deviceReference))])))
            append(
                resource: "Observation", uuid: uuid, identifier: (hubSystem, identifierValue), profile: kind.profile,
                members: members, to: &output)
        }
    }

    /// Appends the bundle's end. A bundle without entries has no `entry` (FHIR JSON has no empty arrays).
    public func finish(into output: inout [UInt8]) {
        output += Array((entries == 0 ? "}\n" : "\n]}\n").utf8)
    }

    // MARK: Resources

    /// Appends one entry: `resource` of type `type`, with its id (in a collection), `meta`, and in a transaction
    /// its conditional create.
    private mutating func append(
        resource type: String, uuid: String, identifier: (system: String, value: String), profile: String? = nil,
        members: [(key: String, value: JSON)], to output: inout [UInt8]
    ) {
        var meta: [(key: String, value: JSON)] = [("source", .string(hubSystem))]
        if let profile { meta.append(("profile", .array([.string(profile)]))) }
        var resource: [(key: String, value: JSON)] = [("resourceType", .string(type))]
        if self.type == .collection { resource.append(("id", .string(uuid))) }
        resource.append(("meta", .object(meta)))
        resource += members
        var entry: [(key: String, value: JSON)] = [
            ("fullUrl", .string("urn:uuid:" + uuid)), ("resource", .object(resource)),
        ]
        if self.type == .transaction {
            entry.append(
                (
                    "request",
                    .object([
                        ("method", .string("POST")), ("url", .string(type)),
                        ("ifNoneExist", .string("identifier=\(identifier.system)|\(identifier.value)")),
                    ])
                ))
        }
        output += Array((entries == 0 ? ",\"entry\":[\n" : ",\n").utf8)
        output += JSON.object(entry).serialized(pretty: false)
        entries += 1
    }

    /// The `urn:uuid:` of device `mac`'s `Device`, appending the resource first if it is not written yet (its
    /// reference is then kept, so that a reading costs no hash for its device).
    private mutating func deviceEntry(_ mac: MACAddress, to output: inout [UInt8]) -> String {
        if let reference = deviceReferences[mac] { return reference }
        let uuid = NameBasedUUID.v5(namespace: NameBasedUUID.vitalBridge, name: "Device/\(mac)")
        deviceReferences[mac] = "urn:uuid:" + uuid
        let digits = Array(mac.description)
        let address = stride(from: 0, to: 12, by: 2).map { String(digits[$0..<$0 + 2]) }.joined(separator: "-")
        let identifier = JSON.object([
            ("type", Self.bluetoothType), ("system", .string(Self.bluetoothSystem)), ("value", .string(address)),
        ])
        var members: [(key: String, value: JSON)] = [("identifier", .array([identifier]))]
        let device = devices[mac]
        if let serial = device?.serialNumber.flatMap(Self.text) { members.append(("serialNumber", .string(serial))) }
        if let model = device?.model {
            members.append(
                ("deviceName", .array([.object([("name", .string(model.name)), ("type", .string("model-name"))])])))
            members.append(("modelNumber", .string(model.name)))
        }
        if let firmware = device?.firmwareRevision.flatMap(Self.text) {
            members.append(("version", .array([.object([("value", .string(firmware))])])))
        }
        append(
            resource: "Device", uuid: uuid, identifier: (Self.bluetoothSystem, address), members: members, to: &output)
        return "urn:uuid:" + uuid
    }

    /// The identifier of `reading` without its quantity: device, kind, time, and `-2`, `-3`… for a second and third
    /// reading of the same device, kind and second.
    private mutating func readingKey(_ reading: Reading, device mac: MACAddress) -> String {
        let time = reading.measuredAt
        let key = "\(mac)-\(reading.kind)-\(time.secondsSince1970)"
        if atTime?.time != time { atTime = (time, [:]) }
        let count = (atTime!.seen[key] ?? 0) + 1
        atTime!.seen[key] = count
        return count == 1 ? key : key + "-\(count)"
    }

    /// `time` as a FHIR `dateTime` with its offset from UTC, whole minutes: `2026-11-19T08:30:00+01:00`.
    private func dateTime(_ time: Timestamp) -> String {
        let offset = utcOffset(time) / 60 * 60
        let local = Timestamp(secondsSince1970: time.secondsSince1970 + Int64(offset)).description
        let minutes = abs(offset) / 60
        func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return local.prefix(10) + "T" + local.suffix(8) + (offset < 0 ? "-" : "+")
            + twoDigits(minutes / 60) + ":" + twoDigits(minutes % 60)
    }

    // MARK: Values

    /// The Observations `reading` gives, one for each of its fields with a LOINC code (`ReadingField.loinc`):
    /// each kind with its value members (`valueQuantity`, or the blood-pressure panel's `component`s, which comes
    /// first). A field the device sent a special value for has a `dataAbsentReason` instead of its
    /// `valueQuantity` (on its component, for the panel's), as the vital-signs profile requires.
    static func quantities(of reading: Reading, glucose: FHIRObservationKind)
        -> [(FHIRObservationKind, [(key: String, value: JSON)])]
    {
        var observations: [(FHIRObservationKind, [(key: String, value: JSON)])] = []
        var components: [JSON] = []
        let unavailable = reading.annotations.unavailable
        for (position, field) in reading.kind.fields.enumerated() {
            guard let code = field.loinc else { continue }
            let absent = unavailable[position]
            let value = absent == nil ? field.value(in: reading) : nil
            guard absent != nil || value != nil else { continue }
            if let component = FHIRObservationKind.bloodPressureComponents.first(where: { $0.code == code }) {
                let coding: (key: String, value: JSON) = (
                    "code", .object([("coding", .array([loinc(component.code, component.display)]))])
                )
                if let absent {
                    components.append(.object([coding, ("dataAbsentReason", dataAbsentReason(absent))]))
                    continue
                }
                guard case .number(let pressure)? = value else { continue }
                components.append(.object([coding, ("valueQuantity", quantity(.bloodPressure, .number(pressure)))]))
                continue
            }
            guard let fieldKind = FHIRObservationKind(loinc: code) else { continue }
            let kind = fieldKind == .glucoseMass ? glucose : fieldKind
            if let absent {
                observations.append((kind, [("dataAbsentReason", dataAbsentReason(absent))]))
                continue
            }
            // the field's own kind: glucose is converted to the unit `glucose` names from its canonical mg/dL
            guard let value, let number = number(value, of: fieldKind, glucose: glucose) else { continue }
            observations.append((kind, [("valueQuantity", quantity(kind, number))]))
        }
        if !components.isEmpty { observations.insert((.bloodPressure, [("component", .array(components))]), at: 0) }
        if case .oximetry(let oximetry) = reading, let wave = oximetry.wave,
            let spO2 = observations.firstIndex(where: { $0.0 == .oxygenSaturation })
        {
            observations[spO2].1.append(("component", .array([waveComponent(wave)])))
        }
        return observations
    }

    /// The pulse wave an oximeter sent with a reading, as a `component` of its oxygen saturation Observation: coded
    /// MDC_PULS_OXIM_PLETH (ISO/IEEE 11073-10101 150452, the plethysmogram), its `valueSampledData` one dimension
    /// of the samples (0–100, percent of the device's full scale) from an origin of 0 %, one every
    /// `OximetryReading.waveSamplePeriodMilliseconds` ms, space-separated in `data` as FHIR R4 SampledData says.
    static func waveComponent(_ samples: [Int]) -> JSON {
        let coding: JSON = .object([
            ("system", .string("urn:iso:std:iso:11073:10101")), ("code", .string("150452")),
            ("display", .string("MDC_PULS_OXIM_PLETH")),
        ])
        let code: JSON = .object([("coding", .array([coding])), ("text", .string("Pulse wave (plethysmogram)"))])
        let origin: JSON = .object([
            ("value", .number("0")), ("unit", .string("%")), ("system", .string("http://unitsofmeasure.org")),
            ("code", .string("%")),
        ])
        let range = OximetryReading.waveRange
        let sampled: JSON = .object([
            ("origin", origin), ("period", .number(String(OximetryReading.waveSamplePeriodMilliseconds))),
            ("lowerLimit", .number(String(range.lowerBound))), ("upperLimit", .number(String(range.upperBound))),
            ("dimensions", .number("1")), ("data", .string(samples.map(String.init).joined(separator: " "))),
        ])
        return .object([("code", code), ("valueSampledData", sampled)])
    }

    /// The Observation value of a field's `value`: glucose in the unit `glucose` names, the SDNN of RR intervals;
    /// `nil` when there is none (fewer than two accepted intervals).
    private static func number(_ value: FieldValue, of kind: FHIRObservationKind, glucose: FHIRObservationKind)
        -> JSON?
    {
        switch value {
        case .number(let number) where kind == .glucoseMass && glucose == .glucoseMolar:
            VitalUnit.mmolPerLiter.resultValue(canonical: number).map { .number($0.description) } ?? .null
        case .number(let number): .number(number)
        case .integer(let integer): .number(integer)
        case .intervals(let intervals):
            HRVFigures(rr: intervals).sdnn.flatMap { FixedDecimal(rounding: $0, scale: 1) }
                .map { .number($0.description) }
        // a band day's sessions, sport totals and sleep segments have no Observation: the bundle leaves them out
        case .flag, .sports, .sportTotals, .sleepSegments, .samples: nil
        }
    }

    /// The `dataAbsentReason` of a value the device sent `special` for: `not-a-number`, `positive-infinity`,
    /// `negative-infinity`, or `error` for NRes and a reserved value; its text is the special value's name.
    static func dataAbsentReason(_ special: SpecialValue) -> JSON {
        let reason = FHIRAnnotations.dataAbsentReason(special)
        return .object([
            (
                "coding",
                .array([
                    .object([
                        ("system", .string(FHIRAnnotations.dataAbsentReasonSystem)), ("code", .string(reason.code)),
                        ("display", .string(reason.display)),
                    ])
                ])
            ),
            ("text", .string(special.description)),
        ])
    }

    /// What the device said about a reading, as members of each of its Observations of `kind`: `interpretation`
    /// for the statuses a standard code says (off scale high and low), a `note` naming every other status, and
    /// the thermometer's site as the body temperature's `bodySite`. None for a reading without statuses.
    static func annotationMembers(_ annotations: ReadingAnnotations, of kind: FHIRObservationKind)
        -> [(key: String, value: JSON)]
    {
        guard !annotations.status.isEmpty else { return [] }
        var members: [(key: String, value: JSON)] = []
        let status = annotations.status
        let interpretations = FHIRAnnotations.interpretations.filter { status.contains($0.status) }
        if !interpretations.isEmpty {
            members.append(
                (
                    "interpretation",
                    .array(
                        interpretations.map { interpretation in
                            .object([
                                (
                                    "coding",
                                    .array([
                                        .object([
                                            ("system", .string(FHIRAnnotations.interpretationSystem)),
                                            ("code", .string(interpretation.code)),
                                            ("display", .string(interpretation.display)),
                                        ])
                                    ])
                                ),
                                ("text", .string(interpretation.status.description)),
                            ])
                        })
                ))
        }
        let site = FHIRAnnotations.sites.first { status.contains($0.status) }
        let noted = status.subtracting(FHIRAnnotations.sitesAndInterpretations)
        if !noted.isEmpty {
            members.append(
                (
                    "note",
                    .array([.object([("text", .string("Device status: " + noted.names.joined(separator: ", ")))])])
                )
            )
        }
        if let site, kind == .bodyTemperature {
            var concept: [(key: String, value: JSON)] = []
            if let code = site.snomed {
                concept.append(
                    (
                        "coding",
                        .array([
                            .object([
                                ("system", .string("http://snomed.info/sct")), ("code", .string(code.code)),
                                ("display", .string(code.display)),
                            ])
                        ])
                    ))
            }
            concept.append(("text", .string(site.text)))
            members.append(("bodySite", .object(concept)))
        }
        return members
    }

    static func quantity(_ kind: FHIRObservationKind, _ number: JSON) -> JSON {
        .object([
            ("value", number), ("unit", .string(kind.unit.display)), ("system", .string("http://unitsofmeasure.org")),
            ("code", .string(kind.unit.ucum)),
        ])
    }

    static func loinc(_ code: String, _ display: String) -> JSON {
        .object([("system", .string("http://loinc.org")), ("code", .string(code)), ("display", .string(display))])
    }

    static func concept(_ kind: FHIRObservationKind) -> JSON {
        .object([("coding", .array(kind.loinc.map { loinc($0.code, $0.display) })), ("text", .string(kind.text))])
    }

    private func identifier(system: String, value: String) -> JSON {
        .object([("system", .string(system)), ("value", .string(value))])
    }

    static let vitalSigns = JSON.array([
        .object([
            (
                "coding",
                .array([
                    .object([
                        ("system", .string("http://terminology.hl7.org/CodeSystem/observation-category")),
                        ("code", .string("vital-signs")), ("display", .string("Vital Signs")),
                    ])
                ])
            ),
            ("text", .string("Vital Signs")),
        ])
    ])

    static let bluetoothSystem = "http://hl7.org/fhir/sid/eui-48/bluetooth"

    static let bluetoothType = JSON.object([
        (
            "coding",
            .array([
                .object([
                    ("system", .string("http://terminology.hl7.org/CodeSystem/ContinuaDeviceIdentifiers")),
                    ("code", .string("BTMAC")), ("display", .string("Bluetooth MAC address")),
                ])
            ])
        )
    ])

    /// A device's text as a FHIR string: control characters dropped, `nil` if nothing but white space is left.
    static func text(_ text: String) -> String? {
        let kept = String(
            String.UnicodeScalarView(text.unicodeScalars.filter { $0.properties.generalCategory != .control }))
        return kept.allSatisfy(\.isWhitespace) ? nil : kept
    }
}
