import Foundation
import SinkSettings
import TestRequirements
import Testing
import VitalCore
import VitalExports
import VitalSinks
import VitalTestSupport

/// The Home Assistant discovery the MQTT sink publishes, checked without a broker: every kind's sensors configured
/// as Home Assistant documents (the oracle `ha_discovery.py`, with Jinja2 rendering the templates against the state).
@Suite("Home Assistant discovery (HomeAssistantDiscovery)")
struct HomeAssistantDiscoveryTests {
    static let discovery = HomeAssistantDiscovery(address: try! MQTTAddress("mqtt://hub@localhost"), hubID: hubA)
    static let mac = MACAddress("004D3208D2F4")!

    static func time(_ hour: Int) -> Timestamp {
        Timestamp(year: 2026, month: 11, day: 19, hour: hour, minute: 0, second: 0)!
    }

    /// A reading of every kind, with every field a sensor shows where the kind has it.
    static let everyKind: [Reading] = [
        .bloodPressure(.init(systolic: 121, diastolic: 79, heartRate: 64, arrhythmia: false, measuredAt: time(7))),
        .glucose(.init(mgPerDeciliter: 98, measuredAt: time(9))),
        .weight(
            .init(
                kilograms: 70.25, measuredAt: time(10),
                bodyComposition: .init(bodyFatPercentage: 21.5, basalMetabolism: 6_500))),
        .oximetry(.init(oxygenSaturation: 97, heartRate: 71, perfusionIndex: 4.2, measuredAt: time(12))),
        .temperature(.init(celsius: 36.6, measuredAt: time(13))),
        .activity(
            .init(
                date: CalendarDate(year: 2026, month: 11, day: 18)!, steps: 8_421, calories: 312, sleepMinutes: 400,
                sleepEfficiency: 88)),
        .band(
            .init(
                date: CalendarDate(year: 2026, month: 11, day: 17)!, steps: 12_000, calories: 480, distance: 8_400,
                sleep: .init(deep: 90, light: 250, awake: 40), heartRate: nil, sports: [])),
        .heartRate(.init(heartRate: 74, rrIntervals: [812, 795], measuredAt: time(14))),
    ]

    /// The oracle's verdict on `messages` (topic, payload): each sensor's line, or its errors.
    static func oracle(_ messages: [(topic: String, payload: [UInt8])]) throws -> (status: Int32, lines: [String]) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("retained-\(UUID()).jsonl")
        var lines: [UInt8] = []
        for (topic, payload) in messages {
            lines +=
                JSON.object([("topic", .string(topic)), ("payload", .string(String(decoding: payload, as: UTF8.self)))])
                .serialized(pretty: false) + [UInt8(ascii: "\n")]
        }
        try Data(lines).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let output = try runProgram(Oracles.python(), [Oracles.script("ha_discovery.py"), file.path])
        return (output.status, output.stdout.split(separator: "\n").dropFirst().map(String.init))
    }

    @Test(
        "every kind's sensors are configured as Home Assistant documents them, and render the reading's values",
        .needs(Requirement.oracles))
    func everyKindRenders() throws {
        var messages: [(topic: String, payload: [UInt8])] = []
        var expected: [String] = []
        for (index, reading) in Self.everyKind.enumerated() {
            let owner: ReadingOwner = index.isMultiple(of: 2) ? .person(3) : .home
            let stored = StoredReading(id: Int64(index + 1), device: Self.mac, reading: reading)
            messages.append((Self.discovery.stateTopic(owner, reading.kind), HomeAssistantDiscovery.state(stored)))
            let values = Dictionary(
                uniqueKeysWithValues: ReadingColumn.values(of: reading).map { ($0.column, $0.value.text) })
            for sensor in HomeAssistantDiscovery.sensors(of: reading) {
                messages.append(
                    (
                        Self.discovery.configTopic(owner, reading.kind, sensor.column),
                        Self.discovery.config(
                            sensor, of: reading.kind, owner: owner, person: owner == .home ? nil : "Ann",
                            available: true)
                    ))
                let level = owner == .home ? "home" : "person3"
                let time = RecordRow(device: Self.mac, reading: reading).time
                let reset =
                    sensor.stateClass == "total" ? " last_reset=\("\(time)".replacing(" ", with: "T"))+00:00" : ""
                expected.append(
                    "vitalbridge_\(hubA)_\(level)_\(reading.kind.rawValue)_\(sensor.column.field)\t\(owner == .home ? "Home" : "Ann")\t"
                        + "\(values[sensor.column] ?? "None")\t"
                        + #"{"device": "004D3208D2F4", "measured_at": "\#(time)"}"# + reset
                )
            }
        }
        let verdict = try Self.oracle(messages)
        #expect(verdict.status == 0, "\(verdict.lines.filter { $0.hasPrefix("error") })")
        #expect(verdict.lines == expected.sorted())
        // a scale that measured no muscle mass has no sensor of it; the heart rate sensor's is one "heart rate"
        #expect(!verdict.lines.contains { $0.contains("_weight_muscle_mass") })
        #expect(verdict.lines.contains { $0.hasPrefix("vitalbridge_\(hubA)_person3_weight_body_fat\tAnn\t21.5\t") })
        #expect(HomeAssistantDiscovery.name(.heartRate, of: .heartRate) == "Heart rate")
        #expect(HomeAssistantDiscovery.name(.heartRate, of: .oximetry) == "Oximetry heart rate")
    }

    @Test("a device class only where Home Assistant's means the same quantity; a day's totals are totals")
    func classes() {
        let bloodPressure = HomeAssistantDiscovery.sensors(of: .bloodPressure)
        #expect(bloodPressure.map(\.column) == [.systolic, .diastolic, .heartRate])
        #expect(bloodPressure.allSatisfy { $0.deviceClass == nil && $0.stateClass == "measurement" })
        let classes = ReadingKind.allCases.flatMap { kind in
            HomeAssistantDiscovery.sensors(of: kind).compactMap { sensor in
                sensor.deviceClass.map { "\(sensor.column.unit) \($0)" }
            }
        }
        #expect(
            Set(classes) == [
                "kg weight", "°C temperature", "mg/dL blood_glucose_concentration", "m distance", "min duration",
            ])
        let band = HomeAssistantDiscovery.sensors(of: .bandDay)
        #expect(band.filter { $0.stateClass == "total" }.map(\.column) == [.steps, .calories, .distance])
        #expect(HomeAssistantDiscovery.sensors(of: .heartRate).map(\.column) == [.heartRate])
    }

    @Test("topics and identifiers carry the hub's identity and a person's number, never the name a person typed")
    func noTypedNames() throws {
        let name = "Ann/+#\"x"
        let sensor = HomeAssistantDiscovery.sensors(of: .weight)[0]
        let config = Self.discovery.config(sensor, of: .weight, owner: .person(12), person: name, available: false)
        let topic = Self.discovery.configTopic(.person(12), .weight, sensor.column)
        #expect(topic == "homeassistant/sensor/vitalbridge_\(hubA)/person12_weight_weight/config")
        #expect(Self.discovery.stateTopic(.person(12), .weight) == "vitalbridge/\(hubA)/person12/weight/state")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(config)) as? [String: Any])
        #expect(document["unique_id"] as? String == "vitalbridge_\(hubA)_person12_weight_weight")
        #expect((document["device"] as? [String: Any])?["name"] as? String == name)
        // only a long-running publisher keeps the availability a sensor then waits for
        #expect(document["availability_topic"] == nil)
        let kept = Self.discovery.config(sensor, of: .weight, owner: .home, person: nil, available: true)
        let keptDocument = try #require(try JSONSerialization.jsonObject(with: Data(kept)) as? [String: Any])
        #expect(keptDocument["availability_topic"] as? String == "vitalbridge/\(hubA)/availability")
    }
}
