import LayeredProtocol
import Testing
import VitalCore
import VitalSimulation
import VitalStore

/// Issue 35 end to end in process: a fleet file scripts what each device says beyond its values, the simulated
/// device sends it in its profile's bytes, the engine's sync decodes and stores it, and the store gives it back.
@Suite("Statuses, special values and users from a fleet file to the store")
struct AnnotationsEndToEndTests {
    /// One device of a model, its one scripted record, and what the store must hold.
    struct Case: Sendable, CustomTestStringConvertible {
        var model: DeviceModel
        var mac: String
        var record: String
        var status: [String]
        var unavailable: [String: SpecialValue]
        var user: UInt8?
        var kept: [String: FieldValue]
        var testDescription: String { "\(model.name)" }
    }

    static let cases: [Case] = [
        Case(
            model: .bloodPressureMonitor, mac: "004D3208D314",
            record:
                #""systolic": "NaN", "diastolic": 82, "pulse": 71, "status": ["bodyMovement", "irregularPulse"], "user": 2"#,
            status: ["bodyMovement", "irregularPulse"], unavailable: ["sys": .nan], user: 2,
            kept: ["dia": .number(82), "hr": .integer(71), "arr": .flag(true)]),
        Case(
            model: .bp5, mac: "004D3208D2F4",
            record: #""systolic": 131, "diastolic": 85, "pulse": "+INF", "status": ["pulseRateTooHigh"], "user": 255"#,
            status: ["pulseRateTooHigh"], unavailable: ["hr": .positiveInfinity], user: 255,
            kept: ["sys": .number(131), "dia": .number(85), "arr": .flag(false)]),
        Case(
            model: .bg5, mac: "004D3208D308", record: #""glucose": "NRes", "status": ["stripInsertionError"]"#,
            status: ["stripInsertionError"], unavailable: ["mgdl": .nres], user: nil, kept: [:]),
        Case(
            model: .hs4s, mac: "004D3208D30B", record: #""weight": 71.5, "bodyFat": "NaN", "user": 4"#,
            status: ["measurementUnsuccessful"], unavailable: ["fat": .nan], user: 4, kept: ["kg": .number(71.5)]),
        Case(
            model: .weightScale, mac: "004D3208D316", record: #""weight": "NaN", "user": 0"#,
            status: ["measurementUnsuccessful"], unavailable: ["kg": .nan], user: 0, kept: [:]),
        Case(
            model: .thv3, mac: "004D3208D30D", record: #""temperature": "-INF", "status": ["rectum"]"#,
            status: ["rectum"], unavailable: ["c": .negativeInfinity], user: nil, kept: [:]),
        Case(
            model: .po3, mac: "004D3208D307",
            record: #""spo2": 96, "pulse": 66, "pi": "reserved", "status": ["poorSignal", "deviceClockNotSet"]"#,
            // its history is dated by a clock its protocol cannot read
            status: ["poorSignal", "deviceClockNotSet", "timeUnverified"], unavailable: ["pi": .reserved], user: nil,
            kept: ["spo2": .integer(96), "hr": .integer(66)]),
        Case(
            model: .pulseOximeter, mac: "004D3208D318",
            record: #""spo2": "NaN", "pulse": 64, "status": ["questionableMeasurement", "sensorDisplaced"]"#,
            status: ["questionableMeasurement", "sensorDisplaced"], unavailable: ["spo2": .nan], user: nil,
            kept: ["hr": .integer(64)]),
    ]

    @Test("a sync stores the reading with what its device said", arguments: cases)
    func sync(_ scripted: Case) async throws {
        let json = """
            {"devices": [{"model": "\(scripted.model.name)", "mac": "\(scripted.mac)",
              "records": {"list": [{"measuredAt": "2026-11-19 07:00:00", \(scripted.record)}]}}]}
            """
        let fleet = try Fleet(json: Array(json.utf8))
        let engine = try Engine(fleet.devices)
        let callback = try await engine.callback(request(.sync, scripted.model, scripted.mac))
        #expect(callback.status == ActionStatus(action: .sync, ran: [.success]))
        let stored = try engine.store.readings.all(device: MACAddress(scripted.mac)!).map(\.reading)
        #expect(stored.count == 1)
        let reading = try #require(stored.first)
        #expect(reading.measuredAt == Timestamp(parsing: "2026-11-19 07:00:00"))
        #expect(reading.annotations.status.names == scripted.status)
        #expect(reading.annotations.userIndex == scripted.user)
        let unavailable = Dictionary(uniqueKeysWithValues: reading.unavailableFields.map { ($0.field.name!, $0.value) })
        #expect(unavailable == scripted.unavailable)
        for name in scripted.unavailable.keys {
            // never stored or shown as a number
            #expect(reading.kind.field(named: name)!.value(in: reading) == nil, "\(name)")
        }
        for (name, value) in scripted.kept {
            #expect(reading.kind.field(named: name)!.value(in: reading) == value, "\(name)")
        }
        // the device forgot it only once it was stored
        #expect(await engine.world.storedReadings(of: MACAddress(scripted.mac)!).isEmpty)
    }
}
