import VitalCore
import VitalDevices

// The JSON forms of the fleet file (FleetFile.md) and of a device's saved state, read and written with ``JSON``.

extension Fleet {
    /// Reads a fleet file's JSON.
    ///
    /// - Throws: ``FleetError`` with the path of the first problem: `fleet` for a document that is not JSON,
    ///   else the member at fault (`devices[0].mac is required`, `devices[1].radio.mtu is a string, not a whole
    ///   number`, `devices[0].serail is not a known field`).
    public init(json: [UInt8]) throws(FleetError) {
        var fields = try JSONFields(document: json, name: "fleet", at: "")
        start = try fields.string("start")
        pace = try fields.double("pace")
        user = try fields.object("user", UserScript.init(fields:)) ?? UserScript()
        guard let devices = try fields.objects("devices", FleetDevice.init(fields:)) else {
            throw fields.missing("devices")
        }
        self.devices = devices
        try fields.finish()
    }

    /// The fleet as pretty JSON with sorted keys.
    public var json: [UInt8] {
        var members = JSONMembers()
        members["start"] = start.map(JSON.string)
        members["pace"] = pace.map(JSON.number)
        members["user"] = user.jsonValue
        members["devices"] = .array(devices.map(\.jsonValue))
        return members.object.serialized(pretty: true)
    }
}

extension UserScript {
    init(fields: JSONFields) throws(FleetError) {
        var fields = fields
        cancelAt = try fields.string("cancelAt").map { name throws(FleetError) in
            guard let stage = Stage(fleetName: name) else {
                throw FleetError(path: fields.path(of: "cancelAt"), message: "must be add, sync or measure")
            }
            return stage
        }
        declineConnect = try fields.bool("declineConnect")
        qrCode = try fields.string("qrCode")
        chooseDevice = try fields.string("chooseDevice").map { text throws(FleetError) in
            guard let mac = MACAddress(text) else {
                throw FleetError(path: fields.path(of: "chooseDevice"), message: "must be 12 hexadecimal digits")
            }
            return mac
        }
        try fields.finish()
    }

    var jsonValue: JSON {
        var members = JSONMembers()
        members["cancelAt"] = cancelAt.map { .string("\($0)") }
        members["declineConnect"] = declineConnect.map(JSON.bool)
        members["qrCode"] = qrCode.map(JSON.string)
        members["chooseDevice"] = chooseDevice.map { .string($0.description) }
        return members.object
    }
}

extension FleetDevice {
    init(fields: JSONFields) throws(FleetError) {
        var fields = fields
        guard let model = try fields.string("model") else { throw fields.missing("model") }
        guard let mac = try fields.string("mac") else { throw fields.missing("mac") }
        self.init(
            model: model, mac: mac, serial: try fields.string("serial"), firmware: try fields.string("firmware"),
            battery: try fields.int("battery"), omits: try fields.strings("omits"), paired: try fields.bool("paired"),
            inRange: try fields.bool("inRange"),
            records: try fields.object("records", RecordsScript.init(fields:)),
            nextMeasurements: try fields.objects("nextMeasurements", SimulatedReading.init(fields:)),
            seed: try fields.uint64("seed"), failures: try fields.object("failures", FailureScript.init(fields:)),
            radio: try fields.object("radio", RadioTiming.init(fields:)),
            authenticationResult: try fields.int("authenticationResult"),
            recordingSince: try fields.string("recordingSince"),
            bodyComposition: try fields.string("bodyComposition"), spotCheck: try fields.bool("spotCheck"),
            clock: try fields.bool("clock"), pairing: try fields.object("pairing", PairingScript.init(fields:)),
            abortFirstConnection: try fields.bool("abortFirstConnection"), clockOffset: try fields.int("clockOffset"),
            clockReset: try fields.bool("clockReset"),
            presses: try fields.objects("presses", PressScript.init(fields:)),
            waveSamples: try fields.int("waveSamples"),
            presence: try fields.objects("presence", PresenceScript.init(fields:)),
            clockWritable: try fields.bool("clockWritable"),
            userData: try fields.object("userData", UserDataScript.init(fields:)),
            currentTime: try fields.bool("currentTime")
        )
        try fields.finish()
    }

    var jsonValue: JSON {
        var members = JSONMembers()
        members["model"] = .string(model)
        members["mac"] = .string(mac)
        members["serial"] = serial.map(JSON.string)
        members["firmware"] = firmware.map(JSON.string)
        members["battery"] = battery.map(JSON.number)
        members["omits"] = omits.map { .array($0.map(JSON.string)) }
        members["paired"] = paired.map(JSON.bool)
        members["inRange"] = inRange.map(JSON.bool)
        members["records"] = records?.jsonValue
        members["nextMeasurements"] = nextMeasurements.map { .array($0.map(\.jsonValue)) }
        members["seed"] = seed.map(JSON.number)
        members["failures"] = failures?.jsonValue
        members["radio"] = radio?.jsonValue
        members["authenticationResult"] = authenticationResult.map(JSON.number)
        members["recordingSince"] = recordingSince.map(JSON.string)
        members["bodyComposition"] = bodyComposition.map(JSON.string)
        members["spotCheck"] = spotCheck.map(JSON.bool)
        members["clock"] = clock.map(JSON.bool)
        members["pairing"] = pairing?.jsonValue
        members["abortFirstConnection"] = abortFirstConnection.map(JSON.bool)
        members["clockOffset"] = clockOffset.map(JSON.number)
        members["clockReset"] = clockReset.map(JSON.bool)
        members["presses"] = presses.map { .array($0.map(\.jsonValue)) }
        members["presence"] = presence.map { .array($0.map(\.jsonValue)) }
        members["clockWritable"] = clockWritable.map(JSON.bool)
        members["waveSamples"] = waveSamples.map(JSON.number)
        members["userData"] = userData?.jsonValue
        members["currentTime"] = currentTime.map(JSON.bool)
        return members.object
    }
}

extension PresenceScript {
    init(fields: JSONFields) throws(FleetError) {
        var fields = fields
        guard let at = try fields.string("at") else { throw fields.missing("at") }
        guard let seconds = try fields.int("seconds") else { throw fields.missing("seconds") }
        self.init(at: at, seconds: seconds, connects: try fields.bool("connects"))
        try fields.finish()
    }

    var jsonValue: JSON {
        var members = JSONMembers()
        members["at"] = .string(at)
        members["seconds"] = .number(seconds)
        members["connects"] = connects.map(JSON.bool)
        return members.object
    }
}

extension PressScript {
    init(fields: JSONFields) throws(FleetError) {
        var fields = fields
        guard let at = try fields.string("at") else { throw fields.missing("at") }
        guard let button = try fields.string("button") else { throw fields.missing("button") }
        self.init(at: at, button: button)
        try fields.finish()
    }

    var jsonValue: JSON {
        var members = JSONMembers()
        members["at"] = .string(at)
        members["button"] = .string(button)
        return members.object
    }
}

extension PairingScript {
    init(fields: JSONFields) throws(FleetError) {
        var fields = fields
        guard let method = try fields.string("method") else { throw fields.missing("method") }
        self.init(
            method: method, passkey: try fields.int("passkey"), typed: try fields.int("typed"),
            pinCode: try fields.string("pinCode"), required: try fields.bool("required"))
        try fields.finish()
    }

    var jsonValue: JSON {
        var members = JSONMembers()
        members["method"] = .string(method)
        members["passkey"] = passkey.map(JSON.number)
        members["typed"] = typed.map(JSON.number)
        members["pinCode"] = pinCode.map(JSON.string)
        members["required"] = required.map(JSON.bool)
        return members.object
    }
}

extension RecordsScript {
    init(fields: JSONFields) throws(FleetError) {
        var fields = fields
        list = try fields.objects("list", SimulatedReading.init(fields:))
        generate = try fields.object("generate", GeneratedRecords.init(fields:))
        try fields.finish()
    }

    var jsonValue: JSON {
        var members = JSONMembers()
        members["list"] = list.map { .array($0.map(\.jsonValue)) }
        members["generate"] = generate?.jsonValue
        return members.object
    }
}

extension GeneratedRecords {
    init(fields: JSONFields) throws(FleetError) {
        var fields = fields
        guard let count = try fields.int("count") else { throw fields.missing("count") }
        let seed = try fields.uint64("seed")
        guard let from = try fields.string("from") else { throw fields.missing("from") }
        guard let to = try fields.string("to") else { throw fields.missing("to") }
        self.init(count: count, seed: seed, from: from, to: to)
        try fields.finish()
    }

    var jsonValue: JSON {
        var members = JSONMembers()
        members["count"] = .number(count)
        members["seed"] = seed.map(JSON.number)
        members["from"] = .string(from)
        members["to"] = .string(to)
        return members.object
    }
}

extension FailureScript {
    init(fields: JSONFields) throws(FleetError) {
        var fields = fields
        atConnect = try fields.bool("atConnect")
        connectUnanswered = try fields.bool("connectUnanswered")
        duringMeasurement = try fields.int("duringMeasurement")
        duringSync = try fields.object("duringSync", SyncFailure.init(fields:))
        disconnectAfter = try fields.int("disconnectAfter")
        linkDrops = try fields.double("linkDrops")
        try fields.finish()
    }

    var jsonValue: JSON {
        var members = JSONMembers()
        members["atConnect"] = atConnect.map(JSON.bool)
        members["connectUnanswered"] = connectUnanswered.map(JSON.bool)
        members["duringMeasurement"] = duringMeasurement.map(JSON.number)
        members["duringSync"] = duringSync?.jsonValue
        members["disconnectAfter"] = disconnectAfter.map(JSON.number)
        members["linkDrops"] = linkDrops.map(JSON.number)
        return members.object
    }
}

extension SyncFailure {
    init(fields: JSONFields) throws(FleetError) {
        var fields = fields
        guard let afterRecords = try fields.int("afterRecords") else { throw fields.missing("afterRecords") }
        guard let code = try fields.int("code") else { throw fields.missing("code") }
        self.init(afterRecords: afterRecords, code: code)
        try fields.finish()
    }

    var jsonValue: JSON {
        var members = JSONMembers()
        members["afterRecords"] = .number(afterRecords)
        members["code"] = .number(code)
        return members.object
    }
}

extension RadioTiming {
    init(fields: JSONFields) throws(FleetError) {
        var fields = fields
        guard let interval = try fields.double("connectionIntervalMilliseconds") else {
            throw fields.missing("connectionIntervalMilliseconds")
        }
        guard let perEvent = try fields.int("notificationsPerEvent") else {
            throw fields.missing("notificationsPerEvent")
        }
        self.init(connectionIntervalMilliseconds: interval, notificationsPerEvent: perEvent, mtu: try fields.int("mtu"))
        try fields.finish()
    }

    var jsonValue: JSON {
        var members = JSONMembers()
        members["connectionIntervalMilliseconds"] = .number(connectionIntervalMilliseconds)
        members["notificationsPerEvent"] = .number(notificationsPerEvent)
        members["mtu"] = mtu.map(JSON.number)
        return members.object
    }
}

extension SimulatedReading {
    /// Reads `measuredAt`, `date` and the fleet keys of every reading kind (``keys``), each as its device rule
    /// says or as the name of a special value (`"NaN"`, `"NRes"`, `"+INF"`, `"-INF"`, `"reserved"`), then `status`
    /// (names of `ReadingStatus`) and `user` (0–255). The members are taken in the document's order: a reading has
    /// a few of the keys, which are not looked for one by one. Whether the device can send them is checked with
    /// its family (``reading(for:at:)``).
    init(fields: JSONFields) throws(FleetError) {
        var fields = fields
        self.init(measuredAt: try fields.string("measuredAt"), date: try fields.string("date"))
        for (key, value) in fields.members {
            guard let slot = Self.slotOfKey[key] else { continue }
            if case .string(let name) = value, SpecialValue(name: name) != nil || Self.rules[slot].isMeasured {
                _ = fields.value(key)
                guard let special = SpecialValue(name: name) else {
                    throw FleetError(
                        path: fields.path(of: key),
                        message: "is \"\(name)\": a value is a number or one of "
                            + SpecialValue.allCases.map { "\"\($0)\"" }.joined(separator: ", "))
                }
                specials[slot] = special
                continue
            }
            slots[slot] = try Self.rules[slot].read(key, from: &fields)
        }
        let names = try fields.array("status") { element, path throws(FleetError) -> ReadingStatus in
            guard case .string(let name) = element else {
                throw FleetError(path: path, message: "is \(element.kind), not the name of a status")
            }
            guard let status = ReadingStatus(name: name) else {
                throw FleetError(path: path, message: "is \"\(name)\", which is not the name of a status")
            }
            return status
        }
        status = names?.reduce(into: []) { $0.formUnion($1) } ?? []
        user = try fields.int("user").map { number throws(FleetError) in
            guard let user = UInt8(exactly: number) else {
                throw FleetError(path: fields.path(of: "user"), message: "must be a user ID from 0 to 255")
            }
            return user
        }
        try fields.finish()
    }

    var jsonValue: JSON {
        var members = JSONMembers()
        members["measuredAt"] = measuredAt.map(JSON.string)
        members["date"] = date.map(JSON.string)
        for (slot, value) in slots.enumerated() {
            guard let value else { continue }
            members[Self.keys[slot]] =
                switch value {
                case .number(let number): .number(number)
                case .integer(let whole): .number(whole)
                case .flag(let flag): .bool(flag)
                case .sports, .intervals, .sportTotals, .sleepSegments, .samples:
                    preconditionFailure("a fleet file scripts no \(value)")
                }
        }
        for (slot, special) in specials { members[Self.keys[slot]] = .string(special.description) }
        members["status"] = status.names.isEmpty ? nil : .array(status.names.map(JSON.string))
        members["user"] = user.map { .number(Int($0)) }
        return members.object
    }
}

extension DeviceRule {
    /// Whether the rule is a measured quantity's, which a device may send as a special value instead.
    var isMeasured: Bool {
        if case .measured = self { true } else { false }
    }

    /// The value of `key` in `fields`: any number for a measured quantity, a whole number for a count, `true` or
    /// `false` for a flag; `nil` when absent.
    func read(_ key: String, from fields: inout JSONFields) throws(FleetError) -> FieldValue? {
        switch self {
        case .measured: try fields.double(key).map(FieldValue.number)
        case .count, .whole: try fields.int(key).map(FieldValue.integer)
        case .flag: try fields.bool(key).map(FieldValue.flag)
        }
    }
}

extension DeviceState {
    /// Reads a saved state: the form ``json`` writes (the state's members with `recordCount` on the first line,
    /// then one record a line), or the single document of earlier versions (the records in a `records` array). A
    /// line is parsed at a time, so a state of 65,000 records never exists as one JSON tree.
    ///
    /// - Throws: ``FleetError`` with the path (from `state`) of the first problem.
    public init(json: [UInt8]) throws(FleetError) {
        var lines = json.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)[...]
        var fields = try JSONFields(document: Array(lines.popFirst() ?? []), name: "state", at: "state")
        if lines.last?.isEmpty == true { lines.removeLast() }
        // a band's items follow the records, one a line
        let saved = try fields.object("band", BandState.saved(fields:))
        var band = saved?.state
        let itemCount = saved?.itemCount ?? 0
        var records = DeviceMemory([])
        if let legacy = try fields.objects("records", StoredRecord.init(fields:)) {
            records = DeviceMemory(legacy)
        } else {
            guard let count = try fields.int("recordCount"), count >= 0, count <= 65_535 else {
                throw FleetError(path: fields.path(of: "recordCount"), message: "is required, from 0 to 65535")
            }
            guard lines.count == count + itemCount else {
                throw FleetError(
                    path: "state.records",
                    message: "has \(lines.count) lines where "
                        + (itemCount > 0 ? "recordCount and band.itemCount say" : "recordCount says")
                        + " \(count + itemCount)")
            }
            for (index, line) in lines.prefix(count).enumerated() {
                let path = "state.records[\(index)]"
                records.append(try StoredRecord(fields: JSONFields(document: Array(line), name: path, at: path)))
            }
        }
        for (index, line) in lines.suffix(itemCount).enumerated() {
            band?.pending.append(try BandState.item(line: Array(line), at: "state.band.items[\(index)]"))
        }
        guard let next = try fields.int("nextSequenceNumber"), let sequence = UInt16(exactly: next) else {
            throw FleetError(path: fields.path(of: "nextSequenceNumber"), message: "is required, from 0 to 65535")
        }
        guard let battery = try fields.int("battery") else { throw fields.missing("battery") }
        guard let generator = try fields.object("generator", SeededGenerator.init(fields:)) else {
            throw fields.missing("generator")
        }
        guard let taken = try fields.int("measurementsTaken") else { throw fields.missing("measurementsTaken") }
        guard let spent = try fields.array("spentFailures", Self.string(json:at:)) else {
            throw fields.missing("spentFailures")
        }
        let bound = try fields.int("boundUserID")
        guard bound.map({ Int32(exactly: $0) != nil }) ?? true else {
            throw FleetError(path: fields.path(of: "boundUserID"), message: "is not a 32-bit user id")
        }
        guard let swim = try fields.bool("swim") else { throw fields.missing("swim") }
        let clockSetAt = try fields.string("clockSetAt")
        let clockSetOffset = try fields.int("clockSetOffset")
        // a state saved before devices kept users has none: the world takes the fleet's
        let users = try fields.objects("users", SimulatedUser.init(savedFields:))
        try fields.finish()
        self.init(
            records: records, nextSequenceNumber: sequence, battery: battery, generator: generator,
            measurementsTaken: taken, spentFailures: Set(spent), boundUserID: bound.map { Int32($0) }, swim: swim,
            users: users, band: band)
        if let clockSetAt {
            guard let at = Timestamp(parsing: clockSetAt) else {
                throw FleetError(path: fields.path(of: "clockSetAt"), message: "is not yyyy-MM-dd HH:mm:ss")
            }
            clockSet = (at, Int64(clockSetOffset ?? 0))
        }
    }

    private static func string(json: JSON, at path: String) throws(FleetError) -> String {
        guard case .string(let text) = json else { throw FleetError(path: path, message: "is not a string") }
        return text
    }

    /// The state as compact JSON with sorted keys: its members and `recordCount` on the first line, then each
    /// record on a line of its own, oldest first, then a band's items, each its notification in hexadecimal.
    public var json: [UInt8] {
        var members = JSONMembers()
        members["recordCount"] = .number(records.count)
        members["nextSequenceNumber"] = .number(Int(nextSequenceNumber))
        members["battery"] = .number(battery)
        members["generator"] = generator.jsonValue
        members["measurementsTaken"] = .number(measurementsTaken)
        members["spentFailures"] = .array(spentFailures.sorted().map(JSON.string))
        members["boundUserID"] = boundUserID.map { .number(Int($0)) }
        members["swim"] = .bool(swim)
        members["band"] = band?.jsonValue
        members["users"] = users.map { .array($0.map(\.jsonValue)) }
        members["clockSetAt"] = clockSet.map { .string($0.at.description) }
        members["clockSetOffset"] = clockSet.map { .number(Int($0.offset)) }
        var output = members.object.serialized(pretty: false)
        output.reserveCapacity(output.count + records.count * 100 + (band?.pending.count ?? 0) * 150)
        for record in records {
            output.append(UInt8(ascii: "\n"))
            output += record.jsonValue.serialized(pretty: false)
        }
        for item in band?.pending ?? [] {
            output.append(UInt8(ascii: "\n"))
            output += JSON.string(BandState.hex(item)).serialized(pretty: false)
        }
        output.append(UInt8(ascii: "\n"))
        return output
    }
}

extension StoredRecord {
    /// A record of a saved state; its reading's family follows from its fields (``SimulatedReading/impliedFamily``).
    init(fields: JSONFields) throws(FleetError) {
        var fields = fields
        guard let number = try fields.int("sequenceNumber"), let sequenceNumber = UInt16(exactly: number) else {
            throw FleetError(path: fields.path(of: "sequenceNumber"), message: "is required, from 0 to 65535")
        }
        guard let reading = try fields.object("reading", SimulatedReading.init(fields:)) else {
            throw fields.missing("reading")
        }
        guard let family = reading.impliedFamily else {
            throw FleetError(path: fields.path(of: "reading"), message: "has none of the fields of a reading")
        }
        self.init(
            sequenceNumber: sequenceNumber, reading: try reading.reading(for: family, at: fields.path(of: "reading")))
        try fields.finish()
    }

    var jsonValue: JSON {
        var members = JSONMembers()
        members["sequenceNumber"] = .number(Int(sequenceNumber))
        members["reading"] = SimulatedReading(reading).jsonValue
        return members.object
    }
}

extension SeededGenerator {
    init(fields: JSONFields) throws(FleetError) {
        var fields = fields
        guard let state = try fields.uint64("state") else { throw fields.missing("state") }
        self.init(seed: state)
        try fields.finish()
    }

    var jsonValue: JSON {
        var members = JSONMembers()
        members["state"] = .number(state)
        return members.object
    }
}
