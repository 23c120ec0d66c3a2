import Foundation
import HealthGATT
import Testing
import VitalCore
import VitalDevices

@testable import VitalSimulation

/// A fleet of one device `model` whose member `member` (JSON) scripts it.
private func fleet(_ model: String, _ member: String) throws -> Fleet {
    let json = #"{"devices": [{"model": "\#(model)", "mac": "004D3208D2F4", \#(member)}]}"#
    return try Fleet(json: Array(json.utf8))
}

private func records(_ reading: String) -> String {
    #""records": {"list": [{"measuredAt": "2026-11-19 07:00:00", \#(reading)}]}"#
}

@Suite("Statuses, special values and user IDs scripted in a fleet file")
struct ScriptedAnnotationsTests {
    /// A reading scripted for each profile, and what the hub must decode from the device's bytes.
    static let scripts: [(model: String, reading: String, status: [String], unavailable: [String], user: UInt8?)] = [
        (
            "BP5",
            #""systolic": "NaN", "diastolic": 80, "pulse": 70, "status": ["bodyMovement", "cuffTooLoose"], "user": 2"#,
            ["bodyMovement", "cuffTooLoose"], ["sys"], 2
        ),
        (
            "BPS",
            #""systolic": 120, "diastolic": 80, "pulse": "+INF", "status": ["pulseRateTooHigh", "improperPosition"], "user": 255"#,
            ["pulseRateTooHigh", "improperPosition"], ["hr"], 255
        ),
        (
            "BP7", #""systolic": 120, "diastolic": 80, "pulse": 50, "arrhythmia": true, "status": ["pulseRateTooLow"]"#,
            ["irregularPulse", "pulseRateTooLow"], [], nil
        ),
        (
            "BG5", #""glucose": "NRes", "status": ["deviceBatteryLow", "timeFault"]"#,
            ["deviceBatteryLow", "timeFault"], ["mgdl"], nil
        ),
        ("GLS", #""glucose": "-INF", "status": ["resultTooLow"]"#, ["resultTooLow"], ["mgdl"], nil),
        ("HS4", #""weight": "NaN", "user": 1"#, ["measurementUnsuccessful"], ["kg"], 1),
        (
            "HS4S", #""weight": 70, "bodyFat": "NaN", "status": ["measurementUnsuccessful"], "user": 3"#,
            ["measurementUnsuccessful"], ["fat"], 3
        ),
        ("THV3", #""temperature": "reserved", "status": ["tympanum"]"#, ["tympanum"], ["c"], nil),
        ("HTS", #""temperature": 37.2, "status": ["armpit"]"#, ["armpit"], [], nil),
        (
            "PO3",
            #""spo2": 97, "pulse": "NaN", "pi": "-INF", "status": ["validatedData", "lowPerfusion", "sensorDisconnected", "deviceClockNotSet"]"#,
            ["validatedData", "lowPerfusion", "sensorDisconnected", "deviceClockNotSet"], ["hr", "pi"], nil
        ),
        (
            "PLXS", #""spo2": "+INF", "pulse": 70, "status": ["invalidMeasurement", "measurementOngoing"]"#,
            ["measurementOngoing", "invalidMeasurement"], ["spo2"], nil
        ),
    ]

    @Test("a scripted record is sent in the profile's bytes and synced with its annotations", arguments: scripts)
    func synced(
        model: String, reading: String, status: [String], unavailable: [String], user: UInt8?
    ) async throws {
        let world = try SimulatedWorld(fleet: fleet(model, records(reading)), start: start)
        let mac = "004D3208D2F4"
        let expected = await world.storedReadings(of: MACAddress(mac)!)
        let sink = MemorySink()
        if model == "PO3" {
            // the PO3 answers only an authenticated user
            let po3 = PulseOximeterDriver(
                entry: DeviceCatalog.entry(for: .po3), connection: try await world.connect(to: MACAddress(mac)!))
            try await po3.authenticate(userID: "user@example.com")
            _ = try await po3.sync(into: sink) { _ in }
        } else {
            _ = try await driver(world, mac).sync(into: sink) { _ in }
        }
        #expect(sink.readings == expected)
        #expect(sink.readings.count == 1)
        guard let synced = sink.readings.first else { return }
        #expect(synced.annotations.status.names == status)
        #expect(synced.unavailableFields.map(\.field.name) == unavailable)
        #expect(synced.annotations.userIndex == user)
        for field in unavailable { #expect(synced.kind.field(named: field)!.value(in: synced) == nil, "\(field)") }
    }

    @Test("a special value's kind is sent as such", arguments: SpecialValue.allCases)
    func everySpecialValue(special: SpecialValue) async throws {
        let world = try SimulatedWorld(
            fleet: fleet("BPS", records(#""systolic": 120, "diastolic": "\#(special)""#)),
            start: start)
        let sink = MemorySink()
        _ = try await driver(world, "004D3208D2F4").sync(into: sink) { _ in }
        #expect(sink.readings.first?.unavailableFields.map(\.value) == [special])
    }

    @Test("a live measurement scripted with a status and a special value is measured with them")
    func liveMeasurement() async throws {
        let world = try SimulatedWorld(
            fleet: fleet(
                "BP5", #""nextMeasurements": [{"systolic": 130, "diastolic": "NaN", "status": ["bodyMovement"]}]"#),
            start: start)
        let sink = MemorySink()
        let record = try await driver(world, "004D3208D2F4").measure(MeasureOptions(), into: sink) { _ in }
        #expect(record.reading.annotations.status == .bodyMovement)
        #expect(record.reading.unavailableFields.map(\.field.name) == ["dia"])
        #expect(sink.readings == [record.reading])
    }

    @Test(
        "what the device cannot send is refused, naming the device, the reading and the value",
        arguments: [
            (
                "BP5", records(#""systolic": 120, "diastolic": 80, "status": ["resultTooHigh"]"#),
                "records.list[0].status",
                "has \"resultTooHigh\", which a blood pressure monitor cannot send: its Blood Pressure Measurement "
                    + "Status has bodyMovement, cuffTooLoose, irregularPulse, pulseRateTooHigh, pulseRateTooLow, "
                    + "improperPosition"
            ),
            (
                "BP5", records(#""systolic": 120, "diastolic": 80, "status": ["timeUnverified"]"#),
                "records.list[0].status",
                "has \"timeUnverified\", which a blood pressure monitor cannot send: its Blood Pressure Measurement "
                    + "Status has bodyMovement, cuffTooLoose, irregularPulse, pulseRateTooHigh, pulseRateTooLow, "
                    + "improperPosition"
            ),
            (
                "BP5", records(#""systolic": 120, "diastolic": 80, "status": ["pulseRateTooHigh", "pulseRateTooLow"]"#),
                "records.list[0].status",
                "has both pulseRateTooHigh and pulseRateTooLow: the pulse rate range is one of them"
            ),
            (
                "BP5", records(#""systolic": 120, "diastolic": 80, "arrhythmia": false, "status": ["irregularPulse"]"#),
                "records.list[0].arrhythmia", "is false, but the status has irregularPulse, the same bit"
            ),
            (
                "BP5", records(#""systolic": 120, "diastolic": 80, "arrhythmia": "NaN""#),
                "records.list[0].arrhythmia",
                "is \"NaN\": a blood pressure monitor sends its arrhythmia as a flag, which has no special values"
            ),
            (
                "BG5", records(#""glucose": 90, "user": 1"#), "records.list[0].user",
                "is for a blood pressure monitor or a scale: a glucose meter sends no user ID"
            ),
            (
                "PO3", records(#""spo2": 97, "pulse": 70, "status": ["bodyMovement"]"#), "records.list[0].status",
                "has \"bodyMovement\", which a pulse oximeter cannot send: its PLX measurement, device and sensor "
                    + "statuses and flags has measurementOngoing, earlyEstimatedData, validatedData, "
                    + "fullyQualifiedData, dataFromMeasurementStorage, dataForDemonstration, dataForTesting, "
                    + "calibrationOngoing, measurementUnavailable, questionableMeasurement, invalidMeasurement, "
                    + "extendedDisplayUpdateOngoing, equipmentMalfunction, signalProcessingIrregularity, "
                    + "inadequateSignal, poorSignal, lowPerfusion, erraticSignal, nonpulsatileSignal, "
                    + "questionablePulse, signalAnalysisOngoing, sensorInterference, sensorUnconnectedToUser, "
                    + "unknownSensorConnected, sensorDisplaced, sensorMalfunctioning, sensorDisconnected, "
                    + "deviceClockNotSet"
            ),
            (
                "HS4", records(#""weight": "+INF""#), "records.list[0].weight",
                "is \"+INF\": a scale sends only \"NaN\" (65535, measurement unsuccessful) in place of its weight"
            ),
            (
                "HS4", records(#""weight": 70, "status": ["measurementUnsuccessful"]"#), "records.list[0].status",
                "has \"measurementUnsuccessful\", which a scale sends as a weight or bodyFat of \"NaN\""
            ),
            (
                "THV3", records(#""temperature": 37, "status": ["ear", "mouth"]"#), "records.list[0].status",
                "has ear and mouth: a temperature has one site"
            ),
            (
                "THV3", records(#""temperature": 37, "user": 0"#), "records.list[0].user",
                "is for a blood pressure monitor or a scale: a thermometer sends no user ID"
            ),
            (
                "AM4",
                #""records": {"list": [{"date": "2026-11-19", "steps": "NaN", "calories": 2, "sleepMinutes": 3, "sleepEfficiency": 4}]}"#,
                "records.list[0].steps",
                "is \"NaN\": an activity monitor sends its steps as an integer of a vendor protocol, which has no "
                    + "special values"
            ),
            (
                "AM4",
                #""records": {"list": [{"date": "2026-11-19", "steps": 1, "calories": 2, "sleepMinutes": 3, "sleepEfficiency": 4, "status": ["body"]}]}"#,
                "records.list[0].status",
                "has \"body\", which an activity monitor cannot send: its vendor protocol has no statuses"
            ),
            (
                "HS4", records(#""weight": 70, "bodyFat": "NaN""#), "records.list[0].bodyFat",
                "is \"NaN\", but HS4 sends no body composition (HS4S, or WSS with bodyComposition)"
            ),
            (
                "PLXS", #""spotCheck": false, "nextMeasurements": [{"spo2": "NaN", "pulse": 70}]"#,
                "nextMeasurements[0]",
                "has a status or a special value, which a pulse oximeter without spot-checks cannot send: its "
                    + "measurement is the median of its continuous ones"
            ),
        ])
    func refused(model: String, member: String, path: String, message: String) throws {
        let fleet = try fleet(model, member)
        #expect(throws: FleetError(path: "devices[0]." + path, message: message)) {
            try SimulatedWorld(fleet: fleet, start: start)
        }
    }

    @Test(
        "a name that is not a status, a value that is no special value's name or a user out of range is refused",
        arguments: [
            (
                #""status": ["bodymovement"]"#, "status[0]", "is \"bodymovement\", which is not the name of a status"
            ),
            (#""status": [3]"#, "status[0]", "is a number, not the name of a status"),
            (#""status": "bodyMovement""#, "status", "is a string, not an array"),
            (
                #""systolic": "INF""#, "systolic",
                #"is "INF": a value is a number or one of "NaN", "NRes", "+INF", "-INF", "reserved""#
            ),
            (#""user": 256"#, "user", "must be a user ID from 0 to 255"),
            (#""user": -1"#, "user", "must be a user ID from 0 to 255"),
        ])
    func badName(member: String, path: String, message: String) {
        #expect(throws: FleetError(path: "devices[0].records.list[0]." + path, message: message)) {
            try fleet("BP5", records(#""diastolic": 80, "#.appending(member)))
        }
    }

    @Test("statuses, special values and users round-trip through the fleet file and the saved state")
    func roundTrip() async throws {
        let fleet = try fleet(
            "BP5",
            records(#""systolic": "NaN", "diastolic": 80, "pulse": "-INF", "status": ["bodyMovement"], "user": 7"#))
        #expect(try Fleet(json: fleet.json) == fleet)
        let world = try SimulatedWorld(fleet: fleet, start: start)
        let stored = await world.storedReadings(of: MACAddress("004D3208D2F4")!)
        let record = StoredRecord(sequenceNumber: 1, reading: try #require(stored.first))
        let json = record.jsonValue.serialized(pretty: false)
        let read = try StoredRecord(fields: JSONFields(document: json, name: "record", at: "record"))
        #expect(read.reading == record.reading)
        #expect(stored.first?.annotations.userIndex == 7)
    }
}
