import HealthGATT
import VitalCore

/// The JSON shape `vitalbridge gatt decode` prints: snake_case keys after the SIG field names, units in `unit`,
/// time stamps as objects, special float values as strings.
protocol JSONRepresentable {
    var json: JSON { get }
}

extension SFloat: JSONRepresentable {
    var json: JSON { special.map { .string($0.rawValue) } ?? .number(description) }
}

extension MedicalFloat: JSONRepresentable {
    var json: JSON { special.map { .string($0.rawValue) } ?? .number(description) }
}

extension DateTime: JSONRepresentable {
    var json: JSON {
        .object([
            ("year", .number(year)), ("month", .number(month)), ("day", .number(day)), ("hours", .number(hours)),
            ("minutes", .number(minutes)), ("seconds", .number(seconds)),
        ])
    }
}

/// `mantissa × 10^exponent` as an exact JSON number.
private func decimal(_ mantissa: Int, _ exponent: Int) -> JSON {
    .number(decimalString(mantissa: mantissa, exponent: exponent))
}

/// The exact decimal text of `mantissa × 10^exponent`, through the SFLOAT-free path of ``MedicalFloat``.
func decimalString(mantissa: Int, exponent: Int) -> String {
    MedicalFloat(mantissa: mantissa, exponent: exponent)?.description ?? String(Double(mantissa))
}

/// A bit field as flags named after the SIG's bit names, with its raw value.
private func bits<Set: OptionSet>(_ value: Set, _ names: [(String, Set)], raw: some BinaryInteger) -> JSON
where Set.Element == Set {
    .object(names.map { ($0.0, .bool(value.contains($0.1))) } + [("raw", .number(raw))])
}

/// Splits a camelCase case name into lower-case words: `capillaryWholeBlood` → `capillary whole blood`.
private func words(_ value: some Any) -> JSON {
    var text = ""
    for character in String(describing: value) {
        if character.isUppercase {
            text += " " + character.lowercased()
        } else {
            text.append(character)
        }
    }
    return .string(text)
}

extension BloodPressureMeasurementStatus {
    var json: JSON {
        guard
            case .object(var fields) = bits(
                self,
                [
                    ("body_movement_detected", .bodyMovementDetected), ("cuff_fit_too_loose", .cuffTooLoose),
                    ("irregular_pulse_detected", .irregularPulseDetected),
                    ("measurement_position_improper", .improperMeasurementPosition),
                ], raw: rawValue)
        else { return .object([]) }
        fields.insert(("pulse_rate_range", words(pulseRateRange)), at: 3)
        return .object(fields)
    }
}

/// The fields shared by blood pressure measurement and intermediate cuff pressure.
private func pressureTail(
    _ timeStamp: DateTime?, _ pulseRate: SFloat?, _ userID: UInt8?, _ status: BloodPressureMeasurementStatus?
) -> [(String, JSON)] {
    var fields: [(String, JSON)] = []
    if let timeStamp { fields.append(("time_stamp", timeStamp.json)) }
    if let pulseRate { fields.append(("pulse_rate", pulseRate.json)) }
    if let userID { fields.append(("user_id", .number(userID))) }
    if let status { fields.append(("measurement_status", status.json)) }
    return fields
}

extension BloodPressureMeasurement: JSONRepresentable {
    var json: JSON {
        .object(
            [
                ("unit", .string(unit.rawValue)), ("systolic", systolic.json), ("diastolic", diastolic.json),
                ("mean_arterial_pressure", meanArterialPressure.json),
            ] + pressureTail(timeStamp, pulseRate, userID, status))
    }
}

extension IntermediateCuffPressure: JSONRepresentable {
    var json: JSON {
        .object(
            [("unit", .string(unit.rawValue)), ("current_cuff_pressure", cuffPressure.json)]
                + pressureTail(timeStamp, pulseRate, userID, status))
    }
}

extension BloodPressureFeature: JSONRepresentable {
    var json: JSON {
        bits(
            self,
            [
                ("body_movement_detection_support", .bodyMovementDetection),
                ("cuff_fit_detection_support", .cuffFitDetection),
                ("irregular_pulse_detection_support", .irregularPulseDetection),
                ("pulse_rate_range_detection_support", .pulseRateRangeDetection),
                ("measurement_position_detection_support", .measurementPositionDetection),
                ("multiple_bond_support", .multipleBonds),
            ], raw: rawValue)
    }
}

extension SensorStatusAnnunciation {
    var json: JSON {
        bits(
            self,
            [
                ("device_battery_low", .deviceBatteryLow), ("sensor_malfunction", .sensorMalfunction),
                ("sample_size_insufficient", .sampleSizeInsufficient),
                ("strip_insertion_error", .stripInsertionError), ("strip_type_incorrect", .stripTypeIncorrect),
                ("result_too_high", .resultTooHigh), ("result_too_low", .resultTooLow),
                ("temperature_too_high", .temperatureTooHigh), ("temperature_too_low", .temperatureTooLow),
                ("read_interrupted", .readInterrupted), ("general_device_fault", .generalDeviceFault),
                ("time_fault", .timeFault),
            ], raw: rawValue)
    }
}

extension GlucoseMeasurement: JSONRepresentable {
    var json: JSON {
        var fields: [(String, JSON)] = [("sequence_number", .number(sequenceNumber)), ("base_time", baseTime.json)]
        if let timeOffset { fields.append(("time_offset", .number(timeOffset))) }
        if let concentration {
            fields += [
                ("unit", .string(unit.rawValue)), ("glucose_concentration", concentration.value.json),
                ("type", words(concentration.type)), ("sample_location", words(concentration.location)),
            ]
        }
        if let sensorStatus { fields.append(("sensor_status_annunciation", sensorStatus.json)) }
        fields.append(("context_information_follows", .bool(contextInformationFollows)))
        return .object(fields)
    }
}

extension GlucoseMeasurementContext: JSONRepresentable {
    var json: JSON {
        var fields: [(String, JSON)] = [("sequence_number", .number(sequenceNumber))]
        if let extendedFlags { fields.append(("extended_flags", .number(extendedFlags))) }
        if let carbohydrate {
            fields += [("carbohydrate_id", words(carbohydrate.id)), ("carbohydrate", carbohydrate.amount.json)]
            fields.append(("carbohydrate_unit", .string("g")))
        }
        if let meal { fields.append(("meal", words(meal))) }
        if let testerHealth {
            fields += [("tester", words(testerHealth.tester)), ("health", words(testerHealth.health))]
        }
        if let exercise {
            fields += [
                ("exercise_duration", .number(exercise.duration)), ("exercise_intensity", .number(exercise.intensity)),
            ]
        }
        if let medication {
            fields += [
                ("medication_id", words(medication.id)), ("medication", medication.amount.json),
                ("medication_unit", .string(medicationUnit.rawValue)),
            ]
        }
        if let hbA1c { fields.append(("hba1c", hbA1c.json)) }
        return .object(fields)
    }
}

extension GlucoseFeature: JSONRepresentable {
    var json: JSON {
        bits(
            self,
            [
                ("low_battery_detection", .lowBatteryDetection),
                ("sensor_malfunction_detection", .sensorMalfunctionDetection),
                ("sensor_sample_size", .sensorSampleSize),
                ("sensor_strip_insertion_error_detection", .stripInsertionErrorDetection),
                ("sensor_strip_type_error_detection", .stripTypeErrorDetection),
                ("sensor_result_high_low_detection", .resultHighLowDetection),
                ("sensor_temperature_high_low_detection", .temperatureHighLowDetection),
                ("sensor_read_interrupt_detection", .readInterruptDetection),
                ("general_device_fault", .generalDeviceFault), ("time_fault", .timeFault),
                ("multiple_bond", .multipleBond),
            ], raw: rawValue)
    }
}

extension RecordAccessControlPoint: JSONRepresentable {
    var json: JSON {
        func bound(_ bound: RecordBound) -> JSON {
            switch bound {
            case .sequenceNumber(let number):
                .object([("filter_type", .string("sequence number")), ("value", .number(number))])
            case .userFacingTime(let time):
                .object([("filter_type", .string("user facing time")), ("value", time.json)])
            }
        }
        func request(_ opCode: RACPOpCode, _ filter: RecordFilter) -> JSON {
            var fields: [(String, JSON)] = [("op_code", .string(opCode.description))]
            switch filter {
            case .all: fields.append(("operator", .string("all records")))
            case .first: fields.append(("operator", .string("first record")))
            case .last: fields.append(("operator", .string("last record")))
            case .lessThanOrEqual(let value):
                fields += [("operator", .string("less than or equal to")), ("operand", bound(value))]
            case .greaterThanOrEqual(let value):
                fields += [("operator", .string("greater than or equal to")), ("operand", bound(value))]
            case .sequenceNumbers(let range):
                fields += [
                    ("operator", .string("within range of (inclusive)")),
                    (
                        "operand",
                        .object([
                            ("filter_type", .string("sequence number")), ("minimum", .number(range.lowerBound)),
                            ("maximum", .number(range.upperBound)),
                        ])
                    ),
                ]
            case .userFacingTimes(let from, let through):
                fields += [
                    ("operator", .string("within range of (inclusive)")),
                    (
                        "operand",
                        .object([
                            ("filter_type", .string("user facing time")), ("minimum", from.json),
                            ("maximum", through.json),
                        ])
                    ),
                ]
            }
            return .object(fields)
        }
        switch self {
        case .reportStoredRecords(let filter): return request(.reportStoredRecords, filter)
        case .deleteStoredRecords(let filter): return request(.deleteStoredRecords, filter)
        case .reportNumberOfStoredRecords(let filter): return request(.reportNumberOfStoredRecords, filter)
        case .abortOperation:
            return .object([("op_code", .string(RACPOpCode.abortOperation.description)), ("operator", .string("null"))])
        case .numberOfStoredRecordsResponse(let count):
            return .object([
                ("op_code", .string(RACPOpCode.numberOfStoredRecordsResponse.description)),
                ("operator", .string("null")),
                ("number_of_records", .number(count)),
            ])
        case .responseCode(let request, let response):
            return .object([
                ("op_code", .string(RACPOpCode.responseCode.description)), ("operator", .string("null")),
                ("request_op_code", .string(request.description)),
                ("response_code_value", .string(response.description)),
            ])
        }
    }
}

/// A mass in its fixed resolution: 0.005 kg or 0.01 lb, exactly.
private func massJSON(_ value: MassValue, _ system: MeasurementSystem) -> JSON {
    if value.isUnsuccessful { return .string("measurement unsuccessful") }
    return system == .si ? decimal(Int(value.raw) * 5, -3) : decimal(Int(value.raw), -2)
}

/// A height in 0.001 m or 0.1 in, exactly.
private func heightJSON(_ raw: UInt16, _ system: MeasurementSystem) -> JSON {
    system == .si ? decimal(Int(raw), -3) : decimal(Int(raw), -1)
}

private func massUnits(_ system: MeasurementSystem) -> [(String, JSON)] {
    [("unit", .string(system == .si ? "kg" : "lb")), ("height_unit", .string(system == .si ? "m" : "in"))]
}

extension WeightMeasurement: JSONRepresentable {
    var json: JSON {
        var fields = massUnits(system) + [("weight", massJSON(weight, system))]
        if let timeStamp { fields.append(("time_stamp", timeStamp.json)) }
        if let userID { fields.append(("user_id", .number(userID))) }
        if let bmi { fields.append(("bmi", decimal(Int(bmi), -1))) }
        if let height { fields.append(("height", heightJSON(height, system))) }
        return .object(fields)
    }
}

extension WeightScaleFeature: JSONRepresentable {
    var json: JSON {
        .object([
            ("time_stamp_supported", .bool(timeStampSupported)),
            ("multiple_users_supported", .bool(multipleUsersSupported)), ("bmi_supported", .bool(bmiSupported)),
            ("weight_measurement_resolution", .number(weightResolution)),
            ("height_measurement_resolution", .number(heightResolution)), ("raw", .number(rawValue)),
        ])
    }
}

extension BodyCompositionMeasurement: JSONRepresentable {
    var json: JSON {
        var fields = massUnits(system)
        fields.append(
            (
                "body_fat_percentage",
                bodyFatPercentage == 0xFFFF ? .string("measurement unsuccessful") : decimal(Int(bodyFatPercentage), -1)
            ))
        if let timeStamp { fields.append(("time_stamp", timeStamp.json)) }
        if let userID { fields.append(("user_id", .number(userID))) }
        if let basalMetabolism { fields.append(("basal_metabolism", .number(basalMetabolism))) }
        if let musclePercentage { fields.append(("muscle_percentage", decimal(Int(musclePercentage), -1))) }
        for (name, value) in [
            ("muscle_mass", muscleMass), ("fat_free_mass", fatFreeMass), ("soft_lean_mass", softLeanMass),
            ("body_water_mass", bodyWaterMass),
        ] {
            if let value { fields.append((name, massJSON(value, system))) }
        }
        if let impedance { fields.append(("impedance", decimal(Int(impedance), -1))) }
        if let weight { fields.append(("weight", massJSON(weight, system))) }
        if let height { fields.append(("height", heightJSON(height, system))) }
        fields.append(("multiple_packet_measurement", .bool(multiplePacket)))
        return .object(fields)
    }
}

extension TemperatureMeasurement: JSONRepresentable {
    var json: JSON {
        var fields: [(String, JSON)] = [
            ("unit", .string(unit.rawValue)), ("temperature_measurement_value", temperature.json),
        ]
        if let timeStamp { fields.append(("time_stamp", timeStamp.json)) }
        if let type { fields.append(("temperature_type", words(type))) }
        return .object(fields)
    }
}

extension PLXMeasurementStatus {
    var json: JSON {
        bits(
            self,
            [
                ("measurement_ongoing", .measurementOngoing), ("early_estimated_data", .earlyEstimatedData),
                ("validated_data", .validatedData), ("fully_qualified_data", .fullyQualifiedData),
                ("data_from_measurement_storage", .dataFromMeasurementStorage),
                ("data_for_demonstration", .dataForDemonstration), ("data_for_testing", .dataForTesting),
                ("calibration_ongoing", .calibrationOngoing), ("measurement_unavailable", .measurementUnavailable),
                ("questionable_measurement_detected", .questionableMeasurementDetected),
                ("invalid_measurement_detected", .invalidMeasurementDetected),
            ], raw: rawValue)
    }
}

extension PLXDeviceAndSensorStatus {
    var json: JSON {
        bits(
            self,
            [
                ("extended_display_update_ongoing", .extendedDisplayUpdateOngoing),
                ("equipment_malfunction_detected", .equipmentMalfunctionDetected),
                ("signal_processing_irregularity_detected", .signalProcessingIrregularityDetected),
                ("inadequate_signal_detected", .inadequateSignalDetected),
                ("poor_signal_detected", .poorSignalDetected),
                ("low_perfusion_detected", .lowPerfusionDetected), ("erratic_signal_detected", .erraticSignalDetected),
                ("nonpulsatile_signal_detected", .nonpulsatileSignalDetected),
                ("questionable_pulse_detected", .questionablePulseDetected),
                ("signal_analysis_ongoing", .signalAnalysisOngoing),
                ("sensor_interference_detected", .sensorInterferenceDetected),
                ("sensor_unconnected_to_user", .sensorUnconnectedToUser),
                ("unknown_sensor_connected", .unknownSensorConnected), ("sensor_displaced", .sensorDisplaced),
                ("sensor_malfunctioning", .sensorMalfunctioning), ("sensor_disconnected", .sensorDisconnected),
            ], raw: rawValue)
    }
}

extension SpO2PulseRate {
    var json: JSON { .object([("spo2", spO2.json), ("pr", pulseRate.json)]) }
}

extension PLXSpotCheckMeasurement: JSONRepresentable {
    var json: JSON {
        var fields: [(String, JSON)] = [("unit", .string("%, bpm")), ("spo2pr_spot_check", spO2PulseRate.json)]
        if let timeStamp { fields.append(("time_stamp", timeStamp.json)) }
        if let measurementStatus { fields.append(("measurement_status", measurementStatus.json)) }
        if let deviceAndSensorStatus { fields.append(("device_and_sensor_status", deviceAndSensorStatus.json)) }
        if let pulseAmplitudeIndex { fields.append(("pulse_amplitude_index", pulseAmplitudeIndex.json)) }
        fields.append(("device_clock_not_set", .bool(deviceClockNotSet)))
        return .object(fields)
    }
}

extension PLXContinuousMeasurement: JSONRepresentable {
    var json: JSON {
        var fields: [(String, JSON)] = [("unit", .string("%, bpm")), ("spo2pr_normal", normal.json)]
        if let fast { fields.append(("spo2pr_fast", fast.json)) }
        if let slow { fields.append(("spo2pr_slow", slow.json)) }
        if let measurementStatus { fields.append(("measurement_status", measurementStatus.json)) }
        if let deviceAndSensorStatus { fields.append(("device_and_sensor_status", deviceAndSensorStatus.json)) }
        if let pulseAmplitudeIndex { fields.append(("pulse_amplitude_index", pulseAmplitudeIndex.json)) }
        return .object(fields)
    }
}

extension PLXFeatures: JSONRepresentable {
    var json: JSON {
        var fields: [(String, JSON)] = [("supported_features", .number(supportedFeaturesField))]
        if let measurementStatusSupport { fields.append(("measurement_status_support", measurementStatusSupport.json)) }
        if let deviceAndSensorStatusSupport {
            fields.append(("device_and_sensor_status_support", deviceAndSensorStatusSupport.json))
        }
        return .object(fields)
    }
}

extension HeartRateMeasurement: JSONRepresentable {
    var json: JSON {
        var fields: [(String, JSON)] = [
            ("unit", .string("bpm")), ("heart_rate_measurement_value", .number(heartRate)),
            ("value_format", .string(valueFormat == .uint8 ? "uint8" : "uint16")),
            ("sensor_contact", .string(sensorContact.rawValue)),
        ]
        if let energyExpended {
            fields += [("energy_expended", .number(energyExpended)), ("energy_unit", .string("kJ"))]
        }
        if !rrIntervals.isEmpty {
            fields += [
                ("rr_intervals", .array(rrIntervals.map { .number($0) })), ("rr_interval_unit", .string("1/1024 s")),
            ]
        }
        return .object(fields)
    }
}
