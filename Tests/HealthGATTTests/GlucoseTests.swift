import Testing
import VitalTestSupport

@testable import HealthGATT

@Suite("Glucose")
struct GlucoseTests {
    /// Nordic Android-BLE-Common-Library, GlucoseMeasurementDataCallbackTest.onGlucoseMeasurementReceived.
    static let nordic = hex("1B 0100 E307 02 1B 0B 0A 1E FBFF 1E00 12 0501")

    @Test("decodes Nordic's measurement")
    func nordicVector() throws {
        let value = try GlucoseMeasurement(bytes: Self.nordic)
        #expect(value.sequenceNumber == 1)
        #expect(value.baseTime == DateTime(year: 2019, month: 2, day: 27, hours: 11, minutes: 10, seconds: 30))
        #expect(value.timeOffset == -5)
        let concentration = try #require(value.concentration)
        #expect(concentration.value.description == "30" && value.unit == .kilogramPerLiter)
        #expect(concentration.type == .capillaryPlasma && concentration.location == .finger)
        #expect(value.sensorStatus?.rawValue == 261)
        #expect(value.sensorStatus?.contains(.deviceBatteryLow) == true)
        #expect(value.sensorStatus?.contains(.generalDeviceFault) == false)
        #expect(value.contextInformationFollows)
        #expect(value.encoded() == Self.nordic)
        // Nordic's invalid vector: the time offset is missing, so the bytes after it are misplaced
        #expect(throws: GATTError.self) {
            try GlucoseMeasurement(bytes: hex("1B 0000 E207 04 1A 0B 09 1E 1E00 12 0501"))
        }
    }

    @Test("the spec's layout: 5.6 mmol/L in mol/L, capillary whole blood from a finger")
    func specExample() throws {
        // flags 0x06 (concentration, mol/L), seq 7, 2024-03-01 08:30:00, 56 × 10^-4 mol/L, type 1, location 1.
        let bytes = hex("06 0700 E807 03 01 08 1E 00 38C0 11")
        let value = try GlucoseMeasurement(bytes: bytes)
        let concentration = try #require(value.concentration)
        #expect(concentration.value.description == "0.0056" && value.unit == .molePerLiter)
        #expect(abs(value.milligramsPerDeciliter! - 100.8896) < 1e-9)
        #expect(value.encoded() == bytes)
    }

    @Test("every prefix is short; a trailing byte, reserved types and locations are rejected")
    func badBytes() {
        expectEveryPrefixShort(GlucoseMeasurement.self, Self.nordic)
        expectTrailingByteRejected(GlucoseMeasurement.self, Self.nordic)
        for (bytes, field, offset) in [
            (hex("02 0100 E307 02 1B 0B 0A 1E 1E00 10"), "type_sample_location.type", 12),
            (hex("02 0100 E307 02 1B 0B 0A 1E 1E00 1B"), "type_sample_location.type", 12),
            (hex("02 0100 E307 02 1B 0B 0A 1E 1E00 51"), "type_sample_location.sample_location", 12),
            (hex("00 0100 E307 02 20 0B 0A 1E"), "base_time.day", 6),
        ] {
            let error = #expect(throws: GATTError.self) { try GlucoseMeasurement(bytes: bytes) }
            #expect(error?.field == field && error?.offset == offset, "\(field)")
        }
    }

    @Test("round-trips random measurements", arguments: seeds)
    func roundTrip(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        for _ in 0..<500 {
            let concentration = random.maybe { random in
                GlucoseMeasurement.Concentration(
                    value: random.sfloat(), type: GlucoseSampleType.allCases.randomElement(using: &random)!,
                    location: GlucoseSampleLocation.allCases.randomElement(using: &random)!)
            }
            let value = GlucoseMeasurement(
                sequenceNumber: random.uint16(), baseTime: random.dateTime(),
                timeOffset: random.maybe { Int16(bitPattern: $0.uint16()) }, concentration: concentration,
                unit: Bool.random(using: &random) ? .kilogramPerLiter : .molePerLiter,
                sensorStatus: random.maybe { SensorStatusAnnunciation(rawValue: $0.uint16()) },
                contextInformationFollows: Bool.random(using: &random))
            expectRoundTrip(value)
        }
    }

    /// Built from the field values of Nordic's GlucoseMeasurementContextDataCallbackTest (full), with the SFLOATs
    /// written by hand: carbohydrate 100, medication 123.4 (1234 × 10^-1), HbA1c 34.5.
    static let context = hex("FF 0000 B3 03 6400 04 12 3C00 32 04 D2F4 59F1")

    @Test("decodes a full context, keeping the extended flags")
    func context() throws {
        let value = try GlucoseMeasurementContext(bytes: Self.context)
        #expect(value.sequenceNumber == 0 && value.extendedFlags == 0xB3)
        #expect(value.carbohydrate == .init(id: .dinner, amount: SFloat(mantissa: 100, exponent: 0)!))
        #expect(value.meal == .casual)
        #expect(value.testerHealth == .init(tester: .healthCareProfessional, health: .minorHealthIssues))
        #expect(value.exercise == .init(duration: 60, intensity: 50))
        #expect(value.medication?.id == .longActingInsulin && value.medicationUnit == .milliliters)
        #expect(value.medication?.amount.description == "123.4")
        #expect(value.hbA1c?.description == "34.5")
        #expect(value.encoded() == Self.context)
        #expect(try GlucoseMeasurementContext(bytes: hex("00 0100")).encoded() == hex("00 0100"))
    }

    @Test("medication is in milligrams (kg × 10⁻⁶) or millilitres (L × 10⁻³), as the flag says")
    func medicationUnits() throws {
        // flags 0x10: medication, bit 5 clear; rapid-acting insulin, 5 (SFLOAT 0x0005).
        let milligrams = try GlucoseMeasurementContext(bytes: hex("10 0700 01 0500"))
        #expect(milligrams.medicationUnit == .milligrams && milligrams.medicationUnit.rawValue == "mg")
        #expect(milligrams.medication?.amount.doubleValue == 5)
        let milliliters = try GlucoseMeasurementContext(bytes: hex("30 0700 01 0500"))
        #expect(milliliters.medicationUnit == .milliliters && milliliters.medicationUnit.rawValue == "mL")
    }

    @Test("every context prefix is short; reserved values are rejected")
    func badContext() {
        expectEveryPrefixShort(GlucoseMeasurementContext.self, Self.context)
        expectTrailingByteRejected(GlucoseMeasurementContext.self, Self.context)
        for (bytes, field) in [
            (hex("01 0000 08 6400"), "carbohydrate_id"), (hex("02 0000 06"), "meal"),
            (hex("04 0000 14"), "tester_health.tester"), (hex("04 0000 61"), "tester_health.health"),
            (hex("10 0000 06 6400"), "medication_id"),
        ] {
            let error = #expect(throws: GATTError.self) { try GlucoseMeasurementContext(bytes: bytes) }
            #expect(error?.code == .reservedValue && error?.field == field && error?.offset == 3)
        }
    }

    @Test("round-trips random contexts", arguments: seeds)
    func contextRoundTrip(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        for _ in 0..<500 {
            let value = GlucoseMeasurementContext(
                sequenceNumber: random.uint16(), extendedFlags: random.maybe { $0.uint8() },
                carbohydrate: random.maybe {
                    .init(
                        id: GlucoseMeasurementContext.CarbohydrateID.allCases.randomElement(using: &$0)!,
                        amount: $0.sfloat())
                },
                meal: random.maybe { GlucoseMeasurementContext.Meal.allCases.randomElement(using: &$0)! },
                testerHealth: random.maybe {
                    .init(
                        tester: GlucoseMeasurementContext.Tester.allCases.randomElement(using: &$0)!,
                        health: GlucoseMeasurementContext.Health.allCases.randomElement(using: &$0)!)
                },
                exercise: random.maybe { .init(duration: $0.uint16(), intensity: $0.uint8()) },
                medication: random.maybe {
                    .init(
                        id: GlucoseMeasurementContext.MedicationID.allCases.randomElement(using: &$0)!,
                        amount: $0.sfloat())
                },
                medicationUnit: Bool.random(using: &random) ? .milligrams : .milliliters,
                hbA1c: random.maybe { $0.sfloat() })
            expectRoundTrip(value)
        }
    }

    @Test("Glucose Feature keeps all 16 bits")
    func feature() throws {
        let feature = try GlucoseFeature(bytes: [0xFF, 0x07])
        #expect(feature.contains([.lowBatteryDetection, .multipleBond]))
        #expect(feature.encoded() == [0xFF, 0x07])
        expectEveryPrefixShort(GlucoseFeature.self, [0xFF, 0x07])
        expectTrailingByteRejected(GlucoseFeature.self, [0xFF, 0x07])
    }
}
