import Foundation
import LayeredProtocol
import Testing
import VitalCore
import VitalDevices
import VitalTestSupport

@testable import VitalSimulation

/// The fleet file and the saved device states are read and written by the simulation's own JSON code; Foundation's
/// `JSONSerialization` is the oracle for the syntax.
@Suite("Fleet and state JSON")
struct FleetJSONTests {
    typealias Random = SeededGenerator

    // MARK: Syntax

    /// A random JSON value: nested arrays and objects, strings with escapes and non-ASCII, integers and decimals.
    static func randomValue(_ random: inout Random, depth: Int = 0) -> JSON {
        let alphabet = Array("aZ09 \"\\/\n\t\r\u{01}\u{1F}é漢🙂{}[],:")
        switch Int.random(in: depth > 3 ? 0...3 : 0...5, using: &random) {
        case 0: return Bool.random(using: &random) ? .null : .bool(Bool.random(using: &random))
        case 1: return .number(Int.random(in: -1_000_000...1_000_000, using: &random))
        case 2: return .number(Double(Int.random(in: -99_999...99_999, using: &random)) / 100)
        case 3:
            return .string(
                String(
                    (0..<Int.random(in: 0...12, using: &random)).map { _ in alphabet.randomElement(using: &random)! }))
        case 4:
            return .array(
                (0..<Int.random(in: 0...4, using: &random)).map { _ in randomValue(&random, depth: depth + 1) })
        default:
            var members: [(key: String, value: JSON)] = []
            for index in 0..<Int.random(in: 0...4, using: &random) {
                members.append(
                    ("k\(index)\(alphabet.randomElement(using: &random)!)", randomValue(&random, depth: depth + 1)))
            }
            return .object(members)
        }
    }

    /// `value` as Foundation objects, to compare with what `JSONSerialization` reads.
    static func foundation(_ value: JSON) -> NSObject {
        switch value {
        case .null: NSNull()
        case .bool(let flag): NSNumber(value: flag)
        case .number(let text): NSNumber(value: Double(text)!)
        case .string(let text): text as NSString
        case .array(let elements): elements.map(foundation) as NSArray
        case .object(let members):
            NSDictionary(dictionary: Dictionary(uniqueKeysWithValues: members.map { ($0.key, foundation($0.value)) }))
        }
    }

    @Test("what the writer writes, Foundation reads as the same value, and the parser reads back to the same text")
    func writerAndParserAgreeWithFoundation() throws {
        var random = Random(seed: 0x150_0001)
        for _ in 0..<500 {
            let value = Self.randomValue(&random)
            for pretty in [false, true] {
                let bytes = value.serialized(pretty: pretty)
                let read =
                    try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) as! NSObject
                #expect(read == Self.foundation(value), "\(String(decoding: bytes, as: UTF8.self))")
                #expect(try JSON.parse(bytes).serialized(pretty: pretty) == bytes)
            }
            // and what Foundation writes, the parser reads as the same value
            let foundationBytes = try JSONSerialization.data(
                withJSONObject: Self.foundation(value), options: [.fragmentsAllowed])
            #expect(Self.foundation(try JSON.parse(Array(foundationBytes))) == Self.foundation(value))
        }
    }

    @Test(
        "a document that is not JSON is refused with what is wrong and where",
        arguments: [
            ("", "ends where a value is expected (byte 0)"),
            ("{\"devices\": [],}", "has an object key that is not a string (byte 15)"),
            ("{\"devices\": [1,]}", "has an unknown word (byte 15)"),
            ("{\"devices\": [01]}", "has a number with a leading zero (byte 14)"),
            ("{\"devices\": [1.]}", "has a malformed number (byte 15)"),
            ("{\"devices\": [+1]}", "has an unknown word (byte 13)"),
            ("{\"devices\": [NaN]}", "has an unknown word (byte 13)"),
            ("{\"devices\": [tru]}", "has an unknown word (byte 16)"),
            ("{\"a\": \"\\x\"}", "has an unknown escape in a string (byte 8)"),
            ("{\"a\": \"\\ud800\"}", "has half of a surrogate pair (byte 13)"),
            ("{\"a\": \"\\udc00\"}", "has half of a surrogate pair (byte 13)"),
            ("{\"a\": \"\\u12\"}", "has a \\u escape without 4 hexadecimal digits (byte 9)"),
            ("{\"a\": \"line\nbreak\"}", "has a control character in a string (escape it) (byte 11)"),
            ("{\"a\": \"open}", "has a string that does not end (byte 12)"),
            ("{\"a\": 1, \"a\": 2}", "repeats the key \"a\" (byte 9)"),
            ("{\"a\" 1}", "misses a : after an object key (byte 5)"),
            ("{\"a\": 1 \"b\": 2}", "misses a , or } in an object (byte 8)"),
            ("[1 2]", "misses a , or ] in an array (byte 3)"),
            ("{} {}", "has more after the value (byte 3)"),
            ("// comment\n{}", "has an unknown word (byte 0)"),
            (
                String(repeating: "[", count: 70) + String(repeating: "]", count: 70),
                "nests deeper than 64 levels (byte 64)"
            ),
        ])
    func syntaxErrors(document: String, message: String) {
        #expect(throws: FleetError(path: "fleet", message: "is not valid JSON: it \(message)")) {
            try Fleet(json: Array(document.utf8))
        }
    }

    @Test("bytes that are not UTF-8 are refused")
    func notUTF8() {
        let bytes = Array("{\"devices\": [], \"start\": \"".utf8) + [0xC3, 0x28] + Array("\"}".utf8)
        #expect(throws: FleetError(path: "fleet", message: "is not valid JSON: it is not UTF-8 (byte 0)")) {
            try Fleet(json: bytes)
        }
    }

    @Test(
        "a value of the wrong kind, a missing field or a field nobody knows names its path",
        arguments: [
            ("[]", "", "is an array, not an object"),
            ("{}", "devices", "is required"),
            ("{\"devices\": null}", "devices", "is required"),
            ("{\"devices\": {}}", "devices", "is an object, not an array"),
            ("{\"devices\": [42]}", "devices[0]", "is a number, not an object"),
            ("{\"devices\": [{\"mac\": \"004D3208D2F4\"}]}", "devices[0].model", "is required"),
            ("{\"devices\": [{\"model\": \"BP5\", \"mac\": 42}]}", "devices[0].mac", "is a number, not a string"),
            (
                "{\"devices\": [{\"model\": \"BP5\", \"mac\": \"004D3208D2F4\", \"battery\": \"full\"}]}",
                "devices[0].battery", "is a string, not a whole number"
            ),
            (
                "{\"devices\": [{\"model\": \"BP5\", \"mac\": \"004D3208D2F4\", \"battery\": 99.5}]}",
                "devices[0].battery", "is a number, not a whole number"
            ),
            (
                "{\"devices\": [{\"model\": \"BP5\", \"mac\": \"004D3208D2F4\", \"paired\": 1}]}", "devices[0].paired",
                "is a number, not true or false"
            ),
            (
                "{\"devices\": [{\"model\": \"BP5\", \"mac\": \"004D3208D2F4\", \"seed\": -1}]}", "devices[0].seed",
                "is a number, not a whole number from 0 to 18446744073709551615"
            ),
            (
                "{\"devices\": [{\"model\": \"BP5\", \"mac\": \"004D3208D2F4\", \"seed\": 18446744073709551616}]}",
                "devices[0].seed", "is a number, not a whole number from 0 to 18446744073709551615"
            ),
            (
                "{\"devices\": [{\"model\": \"BP5\", \"mac\": \"004D3208D2F4\", \"serail\": \"x\"}]}",
                "devices[0].serail", "is not a known field"
            ),
            ("{\"devices\": [], \"users\": {}}", "users", "is not a known field"),
            (
                "{\"devices\": [{\"model\": \"BP5\", \"mac\": \"004D3208D2F4\", \"omits\": \"battery\"}]}",
                "devices[0].omits", "is a string, not an array"
            ),
            (
                "{\"devices\": [{\"model\": \"BP5\", \"mac\": \"004D3208D2F4\", \"omits\": [\"serial\", 7]}]}",
                "devices[0].omits[1]", "is a number, not a string"
            ),
            (
                "{\"devices\": [{\"model\": \"BP5\", \"mac\": \"004D3208D2F4\", \"radio\": {\"notificationsPerEvent\": 1}}]}",
                "devices[0].radio.connectionIntervalMilliseconds", "is required"
            ),
            (
                "{\"devices\": [{\"model\": \"BP5\", \"mac\": \"004D3208D2F4\", \"radio\": {\"connectionIntervalMilliseconds\": 1e999, \"notificationsPerEvent\": 1}}]}",
                "devices[0].radio.connectionIntervalMilliseconds", "is a number, not a number"
            ),
            (
                "{\"devices\": [{\"model\": \"BP5\", \"mac\": \"004D3208D2F4\", \"records\": {\"list\": [{\"systolic\": \"high\"}]}}]}",
                // a measured value may be a special value's name: the message says which
                "devices[0].records.list[0].systolic",
                #"is "high": a value is a number or one of "NaN", "NRes", "+INF", "-INF", "reserved""#
            ),
            (
                "{\"devices\": [{\"model\": \"BP5\", \"mac\": \"004D3208D2F4\", \"records\": {\"generate\": {\"count\": 3, \"from\": \"2026-11-01 00:00:00\"}}}]}",
                "devices[0].records.generate.to", "is required"
            ),
            (
                "{\"devices\": [{\"model\": \"BP5\", \"mac\": \"004D3208D2F4\", \"failures\": {\"duringSync\": {\"code\": 3}}}]}",
                "devices[0].failures.duringSync.afterRecords", "is required"
            ),
            ("{\"user\": {\"qrCode\": 5}, \"devices\": []}", "user.qrCode", "is a number, not a string"),
        ])
    func fieldErrors(document: String, path: String, message: String) {
        #expect(throws: FleetError(path: path, message: message)) { try Fleet(json: Array(document.utf8)) }
    }

    /// A reading of every kind a fleet scripts, with every field its fleet keys name, in values a device sends.
    static let everyFleetKey: [Reading] = {
        let time = Timestamp(secondsSince1970: 1_763_700_000)
        return [
            .bloodPressure(
                BloodPressureReading(systolic: 120, diastolic: 80, heartRate: 70, arrhythmia: false, measuredAt: time)),
            .glucose(GlucoseReading(mgPerDeciliter: 90, measuredAt: time)),
            .weight(
                WeightReading(kilograms: 70, measuredAt: time, bodyComposition: BodyComposition(bodyFatPercentage: 20))),
            .temperature(TemperatureReading(celsius: 36.6, measuredAt: time)),
            .oximetry(OximetryReading(oxygenSaturation: 97, heartRate: 70, perfusionIndex: 3.2, measuredAt: time)),
            .activity(
                ActivityDay(
                    date: time.day, steps: 1, calories: 2, sleepMinutes: 3, sleepEfficiency: 4, swimMinutes: 5,
                    swimCalories: 6)),
        ]
    }()

    @Test("a scripted reading's keys are the fleet keys its kind's fields name (ReadingField.fleetKey)")
    func fleetKeys() throws {
        for reading in Self.everyFleetKey {
            guard case .object(let members) = SimulatedReading(reading).jsonValue else {
                Issue.record("\(reading.kind) is not an object")
                continue
            }
            let keys = Set(members.map(\.key)).subtracting(["measuredAt", "date"])
            let named = Set(reading.fieldValues.compactMap(\.field.fleetKey))
            #expect(keys == named, "\(reading.kind)")
        }
    }

    @Test(
        "every fleet key of every kind round-trips through the fleet file: written, read and sent as the same reading")
    func everyFleetKeyRoundTrips() throws {
        let allKeys = Set(ReadingKind.allCases.flatMap(\.fields).compactMap(\.fleetKey))
        #expect(Set(SimulatedReading.keys) == allKeys && SimulatedReading.keys.count == allKeys.count)
        #expect(Set(DeviceRule.byFleetKey.keys) == allKeys)
        #expect(Set(Self.everyFleetKey.flatMap { $0.fieldValues.compactMap(\.field.fleetKey) }) == allKeys)
        let fleet = Fleet(devices: [
            FleetDevice(
                model: "BP5", mac: "004D3208D2F4",
                records: RecordsScript(list: Self.everyFleetKey.map(SimulatedReading.init)))
        ])
        let read = try Fleet(json: fleet.json)
        #expect(read == fleet)
        let scripted = read.devices.first?.records?.list ?? []
        #expect(scripted.count == Self.everyFleetKey.count)
        for (index, (reading, scripted)) in zip(Self.everyFleetKey, scripted).enumerated() {
            let family = DeviceFamily(of: reading)
            #expect(scripted.impliedFamily == family)
            #expect(try scripted.reading(for: family, at: "list[\(index)]") == reading)
        }
    }

    @Test(
        "a key of another family's kind in a scripted reading is refused, with its path",
        arguments: [
            (
                "BP5",
                #""records": {"list": [{"measuredAt": "2026-11-19 07:00:00", "systolic": 120, "diastolic": 80, "glucose": 90}]}"#,
                "records.list[0].glucose"
            ),
            (
                "BG5", #""records": {"list": [{"measuredAt": "2026-11-19 07:00:00", "glucose": 90, "pulse": 70}]}"#,
                "records.list[0].pulse"
            ),
            (
                "PO3", #""nextMeasurements": [{"spo2": 97, "pulse": 70, "arrhythmia": true}]"#,
                "nextMeasurements[0].arrhythmia"
            ),
            (
                "AM4",
                #""records": {"list": [{"date": "2026-11-19", "steps": 1, "calories": 2, "sleepMinutes": 3, "sleepEfficiency": 4, "weight": 70}]}"#,
                "records.list[0].weight"
            ),
        ])
    func otherFamilysKey(model: String, member: String, path: String) throws {
        let json = #"{"devices": [{"model": "\#(model)", "mac": "004D3208D2F4", \#(member)}]}"#
        let fleet = try Fleet(json: Array(json.utf8))
        #expect(throws: FleetError(path: "devices[0]." + path, message: "is not for this device")) {
            try SimulatedWorld(fleet: fleet, start: start)
        }
    }

    @Test(
        "what a device omits of its information is serial, firmware or battery, once, and not also given",
        arguments: [
            (#""omits": ["model"]"#, "omits[0]", "must be serial, firmware or battery"),
            (#""omits": ["battery", "battery"]"#, "omits[1]", "repeats battery"),
            (#""battery": 50, "omits": ["battery"]"#, "omits[0]", "omits the battery the device also gives"),
            (#""serial": "S", "omits": ["firmware", "serial"]"#, "omits[1]", "omits the serial the device also gives"),
        ])
    func omitsErrors(member: String, path: String, message: String) throws {
        let json = #"{"devices": [{"model": "BP5", "mac": "004D3208D2F4", \#(member)}]}"#
        let fleet = try Fleet(json: Array(json.utf8))
        #expect(throws: FleetError(path: "devices[0]." + path, message: message)) {
            try SimulatedWorld(fleet: fleet, start: start)
        }
    }

    @Test("a saved record with a key of another family's kind is refused, with its path")
    func savedOtherFamilysKey() {
        let saved = """
            {"battery":90,"generator":{"state":7},"measurementsTaken":0,"nextSequenceNumber":2,"recordCount":1,\
            "spentFailures":[],"swim":false}
            {"reading":{"diastolic":80,"glucose":101,"measuredAt":"2026-11-19 07:00:00","systolic":120},\
            "sequenceNumber":1}

            """
        #expect(throws: FleetError(path: "state.records[0].reading.glucose", message: "is not for this device")) {
            try DeviceState(json: Array(saved.utf8))
        }
    }

    // MARK: Round trips

    static func randomReading(_ random: inout Random) -> SimulatedReading {
        func maybe<T>(_ make: () -> T) -> T? { Bool.random(using: &random) ? make() : nil }
        var reading = SimulatedReading()
        reading.measuredAt = maybe { "2026-11-\(Int.random(in: 10...28, using: &random)) 07:00:00" }
        reading["systolic"] = maybe { .number(Double(Int.random(in: 80...200, using: &random))) }
        reading["diastolic"] = maybe { .number(Double(Int.random(in: 40...120, using: &random)) + 0.5) }
        reading["pulse"] = maybe { .number(Double.random(in: 40...120, using: &random)) }
        reading["arrhythmia"] = maybe { .flag(Bool.random(using: &random)) }
        reading["glucose"] = maybe { .number(Double.random(in: 10...600, using: &random)) }
        reading["weight"] = maybe { .number(Double(Int.random(in: 10_000...22_000, using: &random)) * 0.005) }
        reading["temperature"] = maybe { .number(Double(Int.random(in: 300...450, using: &random)) / 10) }
        reading["spo2"] = maybe { .number(98) }
        reading["pi"] = maybe { .number(1e-7) }
        reading.date = maybe { "2026-11-19" }
        reading["steps"] = maybe { .integer(Int.random(in: 0...100_000, using: &random)) }
        reading["calories"] = maybe { .integer(-1) }
        reading["sleepMinutes"] = maybe { .integer(Int.max) }
        reading["sleepEfficiency"] = maybe { .integer(Int.min) }
        reading["swimMinutes"] = maybe { .integer(0) }
        reading["swimCalories"] = maybe { .integer(8) }
        // what the device says beyond the values: any status, special value and user, valid for a family or not
        reading.status = maybe { ReadingStatus(rawValue: 1 << UInt64.random(in: 0..<57, using: &random)) } ?? []
        reading.user = maybe { UInt8.random(in: .min ... .max, using: &random) }
        if let special = maybe({ SpecialValue.allCases.randomElement(using: &random)! }) {
            let keys = ["systolic", "pulse", "glucose", "weight", "temperature", "spo2", "steps"]
            reading.setSpecial(keys.randomElement(using: &random)!, special)
        }
        return reading
    }

    static func randomFleet(_ random: inout Random) -> Fleet {
        func maybe<T>(_ make: () -> T) -> T? { Bool.random(using: &random) ? make() : nil }
        var devices = (0..<Int.random(in: 0...5, using: &random)).map { index in
            FleetDevice(
                model: ["BP5", "BG5", "PO3", "AM4"].randomElement(using: &random)!, mac: "A0B1C2D3E4F\(index)",
                serial: maybe { "S\"\\\n-\(index)" }, firmware: maybe { "1.0" }, battery: maybe { 50 },
                paired: maybe { false }, inRange: maybe { true },
                records: maybe {
                    RecordsScript(
                        list: maybe { (0..<3).map { _ in randomReading(&random) } },
                        generate: maybe {
                            GeneratedRecords(count: 4, seed: maybe { UInt64.max }, from: "2026-01-01 00:00:00", to: "x")
                        })
                },
                nextMeasurements: maybe { [randomReading(&random)] }, seed: maybe { random.next() },
                failures: maybe {
                    FailureScript(
                        atConnect: maybe { true }, duringMeasurement: maybe { 3 },
                        duringSync: maybe { SyncFailure(afterRecords: 2, code: 13) }, disconnectAfter: maybe { 4 })
                },
                radio: maybe {
                    RadioTiming(connectionIntervalMilliseconds: 7.5, notificationsPerEvent: 2, mtu: maybe { 185 })
                },
                authenticationResult: maybe { 2 }, clockOffset: maybe { -172_800 }, clockReset: maybe { true })
        }
        // presence windows on every third device, drawn from no generator (the draws above stay as they were)
        for index in devices.indices where index % 3 == 1 {
            devices[index].presence = [
                PresenceScript(at: "07:00", seconds: 60), PresenceScript(at: "23:59:30", seconds: 86_400),
            ]
        }
        // users on every fourth device, the same way
        for index in devices.indices where index % 4 == 2 {
            devices[index].userData = UserDataScript(
                slots: 4,
                users: [
                    UserDataUserScript(
                        index: 1, consent: 1111, firstName: "A\"n\\n", born: "1980-05-17", height: 168, sex: "female",
                        changeIncrement: 3),
                    UserDataUserScript(index: 3, consent: 0),
                ])
        }
        return Fleet(
            start: maybe { "2026-11-20 08:00:00" },
            user: UserScript(
                cancelAt: maybe { .sync }, declineConnect: Bool.random(using: &random), qrCode: maybe { "BP5:🙂" }),
            devices: devices)
    }

    @Test("any fleet is read back exactly from the JSON it writes")
    func fleetRoundTrip() throws {
        var random = Random(seed: 0xF1EE7)
        for _ in 0..<300 {
            let fleet = Self.randomFleet(&random)
            #expect(try Fleet(json: fleet.json) == fleet)
        }
        #expect(try Fleet(json: Fleet.default.json) == Fleet.default)
    }

    /// A device's state with a few records of any kind, and a band's items half the time.
    static func randomState(_ random: inout Random) -> DeviceState {
        DeviceState(
            records: DeviceMemory(
                (0..<Int.random(in: 0...6, using: &random)).map { index in
                    var seeded = SeededGenerator(seed: random.next())
                    let model = DeviceModel.allCases.filter { !$0.isSmartband && $0 != .heartRateSensor }
                        .randomElement(
                            using: &random)!
                    let entry = DeviceCatalog.entry(for: model)
                    let time = Timestamp(
                        secondsSince1970: Int64.random(in: 0...4_000_000_000, using: &random))
                    return StoredRecord(
                        sequenceNumber: UInt16(index * 1000),
                        reading: SimulatedPerson(seed: seeded.next()).reading(
                            for: entry, at: time, swim: Bool.random(using: &random),
                            composition: Bool.random(using: &random), using: &seeded))
                }),
            nextSequenceNumber: UInt16.random(in: 0...UInt16.max, using: &random),
            battery: Int.random(in: 0...100, using: &random),
            generator: SeededGenerator(seed: random.next()),
            measurementsTaken: Int.random(in: 0...9, using: &random),
            spentFailures: Bool.random(using: &random) ? ["atConnect", "duringSync"] : [],
            boundUserID: Bool.random(using: &random) ? Int32.min : nil, swim: Bool.random(using: &random),
            band: Bool.random(using: &random) ? nil : Self.randomBand(using: &random))
    }

    /// `state` with the users of a device with a User Data Service, as a device keeps them after a host wrote.
    static func withUsers(_ state: DeviceState) -> DeviceState {
        var state = state
        state.users = [
            SimulatedUser(index: 0, consentCode: 9999, firstName: "Zoë \"Z\"", age: 255, changeIncrement: .max),
            SimulatedUser(
                index: 254, consentCode: 0,
                profile: PersonProfile(
                    born: CalendarDate(year: 1582, month: 1, day: 1), heightCentimetres: 65_535, sex: .unspecified)),
        ]
        return state
    }

    @Test("any device state is read back exactly from the JSON it writes")
    func stateRoundTrip() throws {
        var random = Random(seed: 0x57A7E)
        for _ in 0..<300 {
            let state = Self.randomState(&random)
            #expect(try DeviceState(json: state.json) == state)
            #expect(try DeviceState(json: Self.withUsers(state).json) == Self.withUsers(state))
        }
    }

    /// A band's state with a few of every kind of item (today's totals dated as the codec reads them back: not at
    /// all) and a schedule.
    static func randomBand(using random: inout Random) -> BandState {
        let date = CalendarDate(daysSince1970: Int64.random(in: 0...40_000, using: &random))
        let totals = BandTotals(steps: Int.random(in: 0...99_999, using: &random), calories: 10, distance: 70)
        let items: [BandItem] = [
            .todayTotals(totals), .dayTotals(date, totals),
            .sport(
                BandSportSession(
                    date: date, sport: BandSport(rawValue: 0x88), start: MinuteOfDay(60)!, end: MinuteOfDay(90)!,
                    steps: 0, calories: 200, distance: 0)),
            .sleep(BandSleepSegment(date: date, type: .deepSleep, start: MinuteOfDay(1_400)!, end: MinuteOfDay(20)!)),
            .heartRate(
                BandHeartRateHour(
                    date: date, hour: 23, minutes: (0..<60).map { $0 % 7 == 0 ? nil : 40 + $0 })!),
        ]
        let first = UInt32.random(in: 1...1_000_000, using: &random)
        return BandState(
            pending: items.shuffled(using: &random).prefix(Int.random(in: 0...5, using: &random)).enumerated().map {
                BandState.Numbered(sequence: first + UInt32($0.offset), item: $0.element)
            },
            nextSequence: first + 5, recordedThrough: Timestamp(secondsSince1970: 1_800_000_000),
            sportData: Bool.random(using: &random), hourlyHeartRate: true, boundUserID: 7,
            schedules: [try! BandSchedule(date: date, hour: 9, minute: 30, title: "Physio", subtitle: "room 4")])
    }

    @Test("a saved state is one line of members, then one record a line; a line too many or too few is refused")
    func stateLines() throws {
        let saved = """
            {"battery":90,"generator":{"state":7},"measurementsTaken":0,"nextSequenceNumber":3,"recordCount":2,\
            "spentFailures":[],"swim":false}
            {"reading":{"glucose":101,"measuredAt":"2026-11-19 07:00:00"},"sequenceNumber":1}
            {"reading":{"glucose":99,"measuredAt":"2026-11-19 21:00:00"},"sequenceNumber":2}

            """
        let state = try DeviceState(json: Array(saved.utf8))
        #expect(state.records.map(\.sequenceNumber) == [1, 2] && state.json == Array(saved.utf8))
        #expect(throws: FleetError(path: "state.records", message: "has 2 lines where recordCount says 3")) {
            try DeviceState(
                json: Array(saved.replacingOccurrences(of: "\"recordCount\":2", with: "\"recordCount\":3").utf8))
        }
        #expect(throws: FleetError(path: "state.records[1].reading", message: "has none of the fields of a reading")) {
            try DeviceState(json: Array(saved.replacingOccurrences(of: "\"glucose\":99,", with: "").utf8))
        }
    }

    @Test(
        "a device memory forgets its oldest records in any pattern and stays equal to the array it models; its generated history is the records made one after the other with one generator",
        arguments: [false, true])
    func deviceMemory(generatedHistory: Bool) {
        var random = Random(seed: 0xDE71CE)
        var memory = DeviceMemory([])
        var model: [StoredRecord] = []
        let reading = Reading.glucose(GlucoseReading(mgPerDeciliter: 90, measuredAt: .init(secondsSince1970: 0)))
        if generatedHistory {
            // 70 scripted records (the forgotten front is dropped past 64), then 700 generated, numbered on past
            // 65535; each draws 1 to 3 numbers
            let make: @Sendable (Int, inout SeededGenerator) -> Reading = { index, random in
                let extra = (0..<index % 3).map { _ in Int.random(in: 0...9, using: &random) }.reduce(0, +)
                return .glucose(
                    GlucoseReading(
                        mgPerDeciliter: Double(70 + Int.random(in: 0...100, using: &random) + extra),
                        measuredAt: .init(secondsSince1970: Int64(index) * 60)))
            }
            for number in 64_000..<64_070 as Range<UInt16> {
                memory.append(StoredRecord(sequenceNumber: number, reading: reading))
                model.append(StoredRecord(sequenceNumber: number, reading: reading))
            }
            memory.append(GeneratedRun(count: 700, seed: 42, firstSequenceNumber: 65_002, make: make))
            var generator = SeededGenerator(seed: 42)
            for index in 0..<700 {
                model.append(
                    StoredRecord(sequenceNumber: 65_002 &+ UInt16(index), reading: make(index, &generator)))
            }
            #expect(Array(memory) == model)
            #expect(model.last?.sequenceNumber == 165)
        }
        for step in 0..<5_000 {
            switch Int.random(in: 0...10, using: &random) {
            case 0...4:
                let record = StoredRecord(sequenceNumber: UInt16(step % 65_536), reading: reading)
                memory.append(record)
                model.append(record)
            case 5...7 where !model.isEmpty:
                memory.removeFirst()
                model.removeFirst()
            case 8 where !model.isEmpty:
                let count = Int.random(in: 0...min(model.count, 50), using: &random)
                memory.removeFirst(count)
                model.removeFirst(count)
            case 9 where step % 40 == 0:
                // reaches into a generated run, which is then made
                memory.removeAll { $0.sequenceNumber % 7 == 0 }
                model.removeAll { $0.sequenceNumber % 7 == 0 }
            default:
                // the scripted and appended records only: a generated run stays one
                memory.removeAll { $0.reading == reading && $0.sequenceNumber % 3 == 0 }
                model.removeAll { $0.reading == reading && $0.sequenceNumber % 3 == 0 }
            }
            #expect(Array(memory) == model)
            #expect(memory == DeviceMemory(model) && memory.hashValue == DeviceMemory(model).hashValue)
        }
    }

    @Test("a state saved by the Codable-based version before this one still reads")
    func earlierStateFormat() throws {
        let saved = """
            {"battery":90,"generator":{"state":16045690984833335023},"measurementsTaken":1,"nextSequenceNumber":6,\
            "records":[{"reading":{"diastolic":80,"measuredAt":"2026-11-19 07:00:00","pulse":60,"systolic":120},\
            "sequenceNumber":5}],"spentFailures":["atConnect"],"swim":false}
            """
        let state = try DeviceState(json: Array(saved.utf8))
        #expect(
            state.generator.state == 16_045_690_984_833_335_023
                && state.records.first?.reading
                    == .bloodPressure(
                        BloodPressureReading(
                            systolic: 120, diastolic: 80, heartRate: 60,
                            measuredAt: Timestamp(parsing: "2026-11-19 07:00:00")!))
        )
        #expect(state.spentFailures == ["atConnect"] && state.nextSequenceNumber == 6 && state.boundUserID == nil)
        #expect(throws: FleetError(path: "state.nextSequenceNumber", message: "is required, from 0 to 65535")) {
            try DeviceState(json: Array(saved.replacingOccurrences(of: ":6,", with: ":65536,").utf8))
        }
    }

    @Test("random damage to a fleet file is either read or refused with a FleetError, never a crash")
    func mutations() {
        var random = Random(seed: 0xDA3A6E)
        let original = Fleet.default.json
        for _ in 0..<3000 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let position = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0...2, using: &random) {
                case 0: bytes[position] = UInt8.random(in: 0...255, using: &random)
                case 1: bytes.remove(at: position)
                default: bytes.insert(Array("{}[],:\"\\0-e".utf8).randomElement(using: &random)!, at: position)
                }
            }
            do throws(FleetError) {
                let fleet = try Fleet(json: bytes)
                #expect(try Fleet(json: fleet.json) == fleet)
            } catch {
                #expect(!error.path.isEmpty && !error.message.isEmpty)
            }
        }
    }
}
