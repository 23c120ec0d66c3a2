import Foundation
import TestRequirements
import Testing
import VitalCore
import VitalTestSupport

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

    /// One capture of every characteristic `gatt decode` lists, and the document it prints: keys in the SIG's field
    /// order, numbers exact in the resolution of their field.
    static let documents: [(characteristic: String, hex: String, document: String)] = [
        (
            "2A08", "DC07 0C 05 0B 32 1B",
            """
            {
              "year": 2012,
              "month": 12,
              "day": 5,
              "hours": 11,
              "minutes": 50,
              "seconds": 27
            }

            """
        ),
        (
            "2A36", "00 9800 FF07 FF07",
            """
            {
              "unit": "mmHg",
              "current_cuff_pressure": 152
            }

            """
        ),
        (
            "2A49", "3F00",
            """
            {
              "body_movement_detection_support": true,
              "cuff_fit_detection_support": true,
              "irregular_pulse_detection_support": true,
              "pulse_rate_range_detection_support": true,
              "measurement_position_detection_support": true,
              "multiple_bond_support": true,
              "raw": 63
            }

            """
        ),
        (
            "2A18", "1B 0100 E307 02 1B 0B 0A 1E FBFF 1E00 12 0501",
            """
            {
              "sequence_number": 1,
              "base_time": {
                "year": 2019,
                "month": 2,
                "day": 27,
                "hours": 11,
                "minutes": 10,
                "seconds": 30
              },
              "time_offset": -5,
              "unit": "kg/L",
              "glucose_concentration": 30,
              "type": "capillary plasma",
              "sample_location": "finger",
              "sensor_status_annunciation": {
                "device_battery_low": true,
                "sensor_malfunction": false,
                "sample_size_insufficient": true,
                "strip_insertion_error": false,
                "strip_type_incorrect": false,
                "result_too_high": false,
                "result_too_low": false,
                "temperature_too_high": false,
                "temperature_too_low": true,
                "read_interrupted": false,
                "general_device_fault": false,
                "time_fault": false,
                "raw": 261
              },
              "context_information_follows": true,
              "vitalbridge": {
                "status": [
                  "deviceBatteryLow",
                  "sampleSizeInsufficient",
                  "temperatureTooLow"
                ]
              }
            }

            """
        ),
        (
            "2A34", "FF 0000 B3 03 6400 04 12 3C00 32 04 D2F4 59F1",
            """
            {
              "sequence_number": 0,
              "extended_flags": 179,
              "carbohydrate_id": "dinner",
              "carbohydrate": 100,
              "carbohydrate_unit": "g",
              "meal": "casual",
              "tester": "health care professional",
              "health": "minor health issues",
              "exercise_duration": 60,
              "exercise_intensity": 50,
              "medication_id": "long acting insulin",
              "medication": 123.4,
              "medication_unit": "mL",
              "hba1c": 34.5
            }

            """
        ),
        (
            "2A51", "FF07",
            """
            {
              "low_battery_detection": true,
              "sensor_malfunction_detection": true,
              "sensor_sample_size": true,
              "sensor_strip_insertion_error_detection": true,
              "sensor_strip_type_error_detection": true,
              "sensor_result_high_low_detection": true,
              "sensor_temperature_high_low_detection": true,
              "sensor_read_interrupt_detection": true,
              "general_device_fault": true,
              "time_fault": true,
              "multiple_bond": true,
              "raw": 2047
            }

            """
        ),
        (
            "2A52", "01 03 01 3412",
            """
            {
              "op_code": "report stored records",
              "operator": "greater than or equal to",
              "operand": {
                "filter_type": "sequence number",
                "value": 4660
              }
            }

            """
        ),
        (
            "2A52", "06 00 01 06",
            """
            {
              "op_code": "response code",
              "operator": "null",
              "request_op_code": "report stored records",
              "response_code_value": "no records found"
            }

            """
        ),
        (
            "2A9D", "0E B036 E807 03 01 08 00 00 02 E500 D606",
            """
            {
              "unit": "kg",
              "height_unit": "m",
              "weight": 70,
              "time_stamp": {
                "year": 2024,
                "month": 3,
                "day": 1,
                "hours": 8,
                "minutes": 0,
                "seconds": 0
              },
              "user_id": 2,
              "bmi": 22.9,
              "height": 1.75,
              "vitalbridge": {
                "user_index": 2
              }
            }

            """
        ),
        (
            "2A9E", "BF010000",
            """
            {
              "time_stamp_supported": true,
              "multiple_users_supported": true,
              "bmi_supported": true,
              "weight_measurement_resolution": 7,
              "height_measurement_resolution": 3,
              "raw": 447
            }

            """
        ),
        (
            "2A9C", "0604 EB00 E807 03 01 08 00 00 01 B036",
            """
            {
              "unit": "kg",
              "height_unit": "m",
              "body_fat_percentage": 23.5,
              "time_stamp": {
                "year": 2024,
                "month": 3,
                "day": 1,
                "hours": 8,
                "minutes": 0,
                "seconds": 0
              },
              "user_id": 1,
              "weight": 70,
              "multiple_packet_measurement": false,
              "vitalbridge": {
                "user_index": 1
              }
            }

            """
        ),
        (
            "2A1C", "06 B00E00FE DC07 0C 05 0B 32 1B 04",
            """
            {
              "unit": "°C",
              "temperature_measurement_value": 37.6,
              "time_stamp": {
                "year": 2012,
                "month": 12,
                "day": 5,
                "hours": 11,
                "minutes": 50,
                "seconds": 27
              },
              "temperature_type": "finger",
              "vitalbridge": {
                "status": [
                  "finger"
                ]
              }
            }

            """
        ),
        (
            "2A5E", "1F 6200 4800 E807 03 01 08 00 00 2001 200000 1C00",
            """
            {
              "unit": "%, bpm",
              "spo2pr_spot_check": {
                "spo2": 98,
                "pr": 72
              },
              "time_stamp": {
                "year": 2024,
                "month": 3,
                "day": 1,
                "hours": 8,
                "minutes": 0,
                "seconds": 0
              },
              "measurement_status": {
                "measurement_ongoing": true,
                "early_estimated_data": false,
                "validated_data": false,
                "fully_qualified_data": true,
                "data_from_measurement_storage": false,
                "data_for_demonstration": false,
                "data_for_testing": false,
                "calibration_ongoing": false,
                "measurement_unavailable": false,
                "questionable_measurement_detected": false,
                "invalid_measurement_detected": false,
                "raw": 288
              },
              "device_and_sensor_status": {
                "extended_display_update_ongoing": false,
                "equipment_malfunction_detected": false,
                "signal_processing_irregularity_detected": false,
                "inadequate_signal_detected": false,
                "poor_signal_detected": false,
                "low_perfusion_detected": true,
                "erratic_signal_detected": false,
                "nonpulsatile_signal_detected": false,
                "questionable_pulse_detected": false,
                "signal_analysis_ongoing": false,
                "sensor_interference_detected": false,
                "sensor_unconnected_to_user": false,
                "unknown_sensor_connected": false,
                "sensor_displaced": false,
                "sensor_malfunctioning": false,
                "sensor_disconnected": false,
                "raw": 32
              },
              "pulse_amplitude_index": 28,
              "device_clock_not_set": true,
              "vitalbridge": {
                "status": [
                  "measurementOngoing",
                  "fullyQualifiedData",
                  "lowPerfusion",
                  "deviceClockNotSet"
                ]
              }
            }

            """
        ),
        (
            "2A5F", "1F 6200 4800 6100 4900 6300 4700 0000 010000 FF07",
            """
            {
              "unit": "%, bpm",
              "spo2pr_normal": {
                "spo2": 98,
                "pr": 72
              },
              "spo2pr_fast": {
                "spo2": 97,
                "pr": 73
              },
              "spo2pr_slow": {
                "spo2": 99,
                "pr": 71
              },
              "measurement_status": {
                "measurement_ongoing": false,
                "early_estimated_data": false,
                "validated_data": false,
                "fully_qualified_data": false,
                "data_from_measurement_storage": false,
                "data_for_demonstration": false,
                "data_for_testing": false,
                "calibration_ongoing": false,
                "measurement_unavailable": false,
                "questionable_measurement_detected": false,
                "invalid_measurement_detected": false,
                "raw": 0
              },
              "device_and_sensor_status": {
                "extended_display_update_ongoing": true,
                "equipment_malfunction_detected": false,
                "signal_processing_irregularity_detected": false,
                "inadequate_signal_detected": false,
                "poor_signal_detected": false,
                "low_perfusion_detected": false,
                "erratic_signal_detected": false,
                "nonpulsatile_signal_detected": false,
                "questionable_pulse_detected": false,
                "signal_analysis_ongoing": false,
                "sensor_interference_detected": false,
                "sensor_unconnected_to_user": false,
                "unknown_sensor_connected": false,
                "sensor_displaced": false,
                "sensor_malfunctioning": false,
                "sensor_disconnected": false,
                "raw": 1
              },
              "pulse_amplitude_index": "NaN"
            }

            """
        ),
        (
            "2A60", "FF00 E0FF FFFF00",
            """
            {
              "supported_features": 255,
              "measurement_status_support": {
                "measurement_ongoing": true,
                "early_estimated_data": true,
                "validated_data": true,
                "fully_qualified_data": true,
                "data_from_measurement_storage": true,
                "data_for_demonstration": true,
                "data_for_testing": true,
                "calibration_ongoing": true,
                "measurement_unavailable": true,
                "questionable_measurement_detected": true,
                "invalid_measurement_detected": true,
                "raw": 65504
              },
              "device_and_sensor_status_support": {
                "extended_display_update_ongoing": true,
                "equipment_malfunction_detected": true,
                "signal_processing_irregularity_detected": true,
                "inadequate_signal_detected": true,
                "poor_signal_detected": true,
                "low_perfusion_detected": true,
                "erratic_signal_detected": true,
                "nonpulsatile_signal_detected": true,
                "questionable_pulse_detected": true,
                "signal_analysis_ongoing": true,
                "sensor_interference_detected": true,
                "sensor_unconnected_to_user": true,
                "unknown_sensor_connected": true,
                "sensor_displaced": true,
                "sensor_malfunctioning": true,
                "sensor_disconnected": true,
                "raw": 65535
              }
            }

            """
        ),
        (
            "2A37", "1F 0101 3201 0100 0201 FFFF",
            """
            {
              "unit": "bpm",
              "heart_rate_measurement_value": 257,
              "value_format": "uint16",
              "sensor_contact": "detected",
              "energy_expended": 306,
              "energy_unit": "kJ",
              "rr_intervals": [
                1,
                258,
                65535
              ],
              "rr_interval_unit": "1/1024 s"
            }

            """
        ),
        (
            // two fields the cuff could not measure: the hub's list keeps the kind's field order
            "2A35", "00 FF07 0008 FE07",
            """
            {
              "unit": "mmHg",
              "systolic": "NaN",
              "diastolic": "NRes",
              "mean_arterial_pressure": "+INFINITY",
              "vitalbridge": {
                "unavailable": {
                  "systolic": "NaN",
                  "diastolic": "NRes"
                }
              }
            }

            """
        ),
        (
            "2A9F", "02 01 5704",
            """
            {
              "op_code": "consent",
              "user_index": 1,
              "consent_code": 1111
            }

            """
        ),
        (
            "2A9F", "20 01 01 03",
            """
            {
              "op_code": "response code",
              "request_op_code": "register new user",
              "response_value": "success",
              "user_index": 3
            }

            """
        ),
        (
            "2A9F", "20 02 05",
            """
            {
              "op_code": "response code",
              "request_op_code": "consent",
              "response_value": "user not authorized"
            }

            """
        ),
        ("2A9A", "FF", "{\n  \"user_index\": 255,\n  \"unknown_user\": true\n}\n"),
        ("2A99", "2A000000", "{\n  \"database_change_increment\": 42\n}\n"),
        ("2A8A", "41 6E 6E", "{\n  \"first_name\": \"Ann\"\n}\n"),
        ("2A80", "2C", "{\n  \"unit\": \"years\",\n  \"age\": 44\n}\n"),
        ("2A85", "BC07 05 11", "{\n  \"year\": 1980,\n  \"month\": 5,\n  \"day\": 17\n}\n"),
        ("2A8C", "01", "{\n  \"gender\": \"female\"\n}\n"),
        ("2A8E", "AA00", "{\n  \"unit\": \"m\",\n  \"height\": 1.7\n}\n"),
        ("2A98", "B036", "{\n  \"unit\": \"kg\",\n  \"weight\": 70\n}\n"),
    ]

    @Test("decodes every characteristic it lists to its exact document", arguments: documents)
    func every(characteristic: String, hex: String, document: String) throws {
        let output = try vitalbridge("gatt", "decode", characteristic, hex)
        #expect(output.status == 0 && output.stderr.isEmpty, "\(output.stderr)")
        #expect(output.stdout == document)
        #expect(throws: Never.self) { try JSON.parse(Array(output.stdout.utf8)) }
    }

    @Test(
        "every document, and FLOATs at both ends of the exponents, parse with Python's strict parser to their exact value",
        .needs(.python3))
    func strictJSON() throws {
        let captures =
            Self.documents.map { ($0.characteristic, $0.hex) } + [("float", "7201007F"), ("float", "01000080")]
        let printed = try captures.map { characteristic, hex in
            let output = try vitalbridge("gatt", "decode", characteristic, hex)
            #expect(output.status == 0, "\(characteristic) \(hex): \(output.stderr)")
            return output.stdout
        }
        // each document read with NaN and Infinity refused, decimals kept as Decimal; the bare numbers' values back
        let script = """
            import decimal, json, sys
            def refuse(constant): raise ValueError("not strict JSON: " + constant)
            documents = [json.loads(text, parse_float=decimal.Decimal, parse_constant=refuse)
                         for text in open(sys.argv[1]).read().split("\\0")]
            print(json.dumps([str(document.get("value")) for document in documents[-2:]]))
            """
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("gatt-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try printed.joined(separator: "\0").write(to: file, atomically: true, encoding: .utf8)
        let output = try runProgram("/usr/bin/env", ["python3", "-c", script, file.path])
        #expect(output.status == 0, "\(output.stderr)")
        let values = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String])
        #expect(values == ["370" + String(repeating: "0", count: 127), "1E-128"])
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
        let unknown = try vitalbridge("gatt", "decode", "2A00", "00")
        #expect(unknown.status == 2 && unknown.stderr.contains("unknown characteristic '2A00'"))
        let consent = try vitalbridge("gatt", "decode", "2A9F", "02 01 1027")
        #expect(
            consent.status == 1
                && consent.stderr
                    == "cannot decode: User Control Point: parameter.consent_code at byte 2: its value is out of range\n"
        )
    }
}
