import Foundation
import Testing

/// `vitalbridge gatt decode`'s `vitalbridge` object for a capture: what the hub keeps beyond the values.
private func kept(_ characteristic: String, _ hex: String) throws -> [String: Any]? {
    try decodeJSON(characteristic, hex)["vitalbridge"] as? [String: Any]
}

@Suite("vitalbridge gatt decode names what the hub keeps: statuses, special values, user")
struct GATTAnnotationsTests {
    @Test(
        "every blood pressure status bit by name, with the user ID",
        arguments: [
            ("0100", ["bodyMovement"]), ("0200", ["cuffTooLoose"]), ("0400", ["irregularPulse"]),
            ("0800", ["pulseRateTooHigh"]), ("1000", ["pulseRateTooLow"]), ("2000", ["improperPosition"]),
        ])
    func bloodPressure(bits: String, names: [String]) throws {
        let json = try #require(try kept("2A35", "18 7800 5000 5D00 05 " + bits))
        #expect(json["status"] as? [String] == names)
        #expect(json["user_index"] as? Int == 5)
        #expect(json["unavailable"] == nil)
    }

    @Test("every glucose annunciation bit by name", arguments: 0..<12)
    func glucose(bit: Int) throws {
        let value = 1 << bit
        let hex = String(format: "%02X%02X", value & 0xFF, value >> 8)
        let json = try #require(try kept("2A18", "0A 0100 EA070B13080000 78B0 11 " + hex))
        let names = [
            "deviceBatteryLow", "sensorMalfunction", "sampleSizeInsufficient", "stripInsertionError",
            "stripTypeIncorrect", "resultTooHigh", "resultTooLow", "temperatureTooHigh", "temperatureTooLow",
            "readInterrupted", "generalDeviceFault", "timeFault",
        ]
        #expect(json["status"] as? [String] == [names[bit]])
    }

    @Test("every PLX status bit and the clock flag by name")
    func plx() throws {
        let measurement = [
            "measurementOngoing", "earlyEstimatedData", "validatedData", "fullyQualifiedData",
            "dataFromMeasurementStorage", "dataForDemonstration", "dataForTesting", "calibrationOngoing",
            "measurementUnavailable", "questionableMeasurement", "invalidMeasurement",
        ]
        for (offset, name) in measurement.enumerated() {
            let value = 1 << (offset + 5)
            let hex = String(format: "%02X%02X", value & 0xFF, value >> 8)
            #expect(try kept("2A5E", "02 6100 4600 " + hex)?["status"] as? [String] == [name])
        }
        let device = [
            "extendedDisplayUpdateOngoing", "equipmentMalfunction", "signalProcessingIrregularity", "inadequateSignal",
            "poorSignal", "lowPerfusion", "erraticSignal", "nonpulsatileSignal", "questionablePulse",
            "signalAnalysisOngoing", "sensorInterference", "sensorUnconnectedToUser", "unknownSensorConnected",
            "sensorDisplaced", "sensorMalfunctioning", "sensorDisconnected",
        ]
        for (bit, name) in device.enumerated() {
            let value = 1 << bit
            let hex = String(format: "%02X%02X00", value & 0xFF, value >> 8)
            #expect(try kept("2A5E", "04 6100 4600 " + hex)?["status"] as? [String] == [name])
        }
        #expect(try kept("2A5E", "10 6100 4600")?["status"] as? [String] == ["deviceClockNotSet"])
    }

    @Test(
        "every temperature site by name",
        arguments: [
            "armpit", "body", "ear", "finger", "gastrointestinalTract", "mouth", "rectum", "toe", "tympanum",
        ].enumerated().map { ($0.offset + 1, $0.element) })
    func temperature(type: Int, name: String) throws {
        let json = try #require(try kept("2A1C", String(format: "04 6E0100FF %02X", type)))
        #expect(json["status"] as? [String] == [name])
    }

    @Test(
        "every special value by the hub's name, in SFLOAT and FLOAT fields",
        arguments: [
            ("FF07", "FFFF7F00", "NaN"), ("0008", "00008000", "NRes"), ("FE07", "FEFF7F00", "+INF"),
            ("0208", "02008000", "-INF"), ("0108", "01008000", "reserved"),
        ])
    func specials(sfloat: String, float: String, name: String) throws {
        let pressure = try #require(try kept("2A35", "04 7800 \(sfloat) 5D00 \(sfloat)"))
        #expect(pressure["unavailable"] as? [String: String] == ["diastolic": name, "heart_rate": name])
        let glucose = try #require(try kept("2A18", "02 0100 EA070B13080000 \(sfloat) 11"))
        #expect(glucose["unavailable"] as? [String: String] == ["blood_glucose": name])
        let temperature = try #require(try kept("2A1C", "00 \(float)"))
        #expect(temperature["unavailable"] as? [String: String] == ["temperature": name])
        let spotCheck = try #require(try kept("2A5E", "08 \(sfloat) 4600 \(sfloat)"))
        #expect(spotCheck["unavailable"] as? [String: String] == ["oxygen_saturation": name, "perfusion_index": name])
    }

    @Test("a scale's unsuccessful measurement is its status, its field NaN")
    func scale() throws {
        let weight = try #require(try kept("2A9D", "04 FFFF FF"))
        #expect(weight["status"] as? [String] == ["measurementUnsuccessful"])
        #expect(weight["unavailable"] as? [String: String] == ["weight": "NaN"])
        #expect(weight["user_index"] as? Int == 255)
        let composition = try #require(try kept("2A9C", "0400 FFFF 03"))
        #expect(composition["status"] as? [String] == ["measurementUnsuccessful"])
        #expect(composition["unavailable"] as? [String: String] == ["body_fat": "NaN"])
        #expect(composition["user_index"] as? Int == 3)
    }

    @Test("a measurement with nothing beyond its values has no vitalbridge key")
    func nothing() throws {
        #expect(try decodeJSON("2A35", "00 7800 5000 5D00")["vitalbridge"] == nil)
        #expect(try decodeJSON("2A9D", "00 B036")["vitalbridge"] == nil)
    }
}
