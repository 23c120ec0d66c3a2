import Foundation
import Testing

/// The JSON object `vitalbridge gatt decode` printed.
func decodeJSON(_ characteristic: String, _ hex: String) throws -> [String: Any] {
    let output = try vitalbridge("gatt", "decode", characteristic, hex)
    #expect(output.status == 0, "\(characteristic) \(hex): \(output.stderr)")
    let object = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8))
    return try #require(object as? [String: Any])
}

@Suite("vitalbridge gatt decode")
struct GATTDecodeTests {
    @Test("prints a blood pressure capture with SIG field names, unit and time stamp object")
    func bloodPressure() throws {
        // Nordic Android-BLE-Common-Library BloodPressureMeasurementDataCallbackTest (full).
        let json = try decodeJSON("2A35", "1E 8A00 5800 7800 0000 04 11 14 29 3B 3C00 01 2700")
        #expect(json["unit"] as? String == "mmHg")
        #expect(json["systolic"] as? Int == 138)
        #expect(json["mean_arterial_pressure"] as? Int == 120)
        let time = try #require(json["time_stamp"] as? [String: Int])
        #expect(time == ["year": 0, "month": 4, "day": 17, "hours": 20, "minutes": 41, "seconds": 59])
        let status = try #require(json["measurement_status"] as? [String: Any])
        #expect(status["pulse_rate_range"] as? String == "within range")
        #expect(status["cuff_fit_too_loose"] as? Bool == true)
    }

    @Test("prints special float values as strings")
    func specials() throws {
        #expect(try decodeJSON("sfloat", "FF07")["value"] as? String == "NaN")
        #expect(try decodeJSON("sfloat", "0008")["value"] as? String == "NRes")
        #expect(try decodeJSON("sfloat", "FE07")["value"] as? String == "+INFINITY")
        #expect(try decodeJSON("sfloat", "0208")["value"] as? String == "-INFINITY")
        #expect(try decodeJSON("float", "010080 00")["value"] as? String == "reserved")
        let number = try decodeJSON("float", "B00E00FE")
        #expect((number["value"] as? NSNumber)?.doubleValue == 37.6)
        #expect(number["exponent"] as? Int == -2)
        let bpm = try decodeJSON("0x2a35", "00 FF07 0008 FE07")
        #expect(bpm["systolic"] as? String == "NaN" && bpm["diastolic"] as? String == "NRes")
    }

    @Test(
        "decodes every characteristic it lists",
        arguments: [
            ("2A08", "DC07 0C 05 0B 32 1B"), ("2A36", "00 9800 FF07 FF07"), ("2A49", "3F00"),
            ("2A18", "1B 0100 E307 02 1B 0B 0A 1E FBFF 1E00 12 0501"),
            ("2A34", "FF 0000 B3 03 6400 04 12 3C00 32 04 D2F4 59F1"), ("2A51", "FF07"), ("2A52", "01 03 01 3412"),
            ("2A52", "06 00 01 06"), ("2A9D", "0E B036 E807 03 01 08 00 00 02 E500 D606"), ("2A9E", "BF010000"),
            ("2A9C", "0604 EB00 E807 03 01 08 00 00 01 B036"), ("2A1C", "06 B00E00FE DC07 0C 05 0B 32 1B 04"),
            ("2A5E", "1F 6200 4800 E807 03 01 08 00 00 2001 200000 1C00"),
            ("2A5F", "1F 6200 4800 6100 4900 6300 4700 0000 010000 FF07"), ("2A60", "FF00 E0FF FFFF00"),
            ("2A37", "1F 0101 3201 0100 0201 FFFF"),
        ])
    func every(characteristic: String, hex: String) throws {
        let json = try decodeJSON(characteristic, hex)
        #expect(!json.isEmpty)
    }

    @Test("a glucose context's carbohydrate is in grams and its medication in milligrams or millilitres")
    func glucoseContextUnits() throws {
        let full = try decodeJSON("2A34", "FF 0000 B3 03 6400 04 12 3C00 32 04 D2F4 59F1")
        #expect(full["carbohydrate_unit"] as? String == "g" && (full["carbohydrate"] as? NSNumber)?.intValue == 100)
        #expect(full["medication_unit"] as? String == "mL")
        #expect(try decodeJSON("2A34", "10 0700 01 0500")["medication_unit"] as? String == "mg")
    }

    @Test("a reserved flag bit is ignored, with the bytes of the field it announces")
    func reservedFlag() throws {
        let json = try decodeJSON("2A37", "20 3C ABCD")
        #expect(json["heart_rate_measurement_value"] as? Int == 60)
    }

    @Test("an answer to an op code the device does not support decodes, naming the op code")
    func racpUnsupported() throws {
        let json = try decodeJSON("2A52", "06 00 0C 02")
        #expect(json["request_op_code"] as? String == "op code 12")
        #expect(json["response_code_value"] as? String == "op code not supported")
    }

    @Test("weights are exact in their fixed resolution")
    func weight() throws {
        let json = try decodeJSON("2A9D", "0E B036 E807 03 01 08 00 00 02 E500 D606")
        #expect(json["unit"] as? String == "kg" && json["height_unit"] as? String == "m")
        #expect((json["weight"] as? NSNumber)?.doubleValue == 70)
        #expect((json["bmi"] as? NSNumber)?.doubleValue == 22.9)
        #expect((json["height"] as? NSNumber)?.doubleValue == 1.75)
    }

    @Test("bytes that do not decode exit 1 with one line naming the field and offset")
    func bad() throws {
        let short = try vitalbridge("gatt", "decode", "2A35", "1E8A")
        #expect(short.status == 1 && short.stdout.isEmpty)
        #expect(
            short.stderr == "cannot decode: Blood Pressure Measurement: systolic at byte 1: the bytes end before it\n")
        let reserved = try vitalbridge("gatt", "decode", "2A37", "30 3C 0004")
        #expect(reserved.status == 1)
        #expect(reserved.stderr.contains("flags at byte 0: it has a value reserved for future use"))
        let long = try vitalbridge("gatt", "decode", "sfloat", "BDF000")
        #expect(long.status == 1 && long.stderr.contains("end at byte 2"))
        for hex in ["1E8", "ZZ", "1E 8A 0"] {
            let output = try vitalbridge("gatt", "decode", "2A35", hex)
            #expect(output.status == 1 && output.stderr.hasPrefix("invalid hex"))
        }
        let unknown = try vitalbridge("gatt", "decode", "2A99", "00")
        #expect(unknown.status == 2 && unknown.stderr.contains("unknown characteristic '2A99'"))
    }
}
