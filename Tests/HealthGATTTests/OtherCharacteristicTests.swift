import Testing
import VitalTestSupport

@testable import HealthGATT

@Suite("Date Time")
struct DateTimeTests {
    @Test("decodes the 7 bytes and rejects out-of-range fields at their offset")
    func dateTime() throws {
        // Nordic DateTimeDataCallbackTest layout: year LE, month, day, hours, minutes, seconds.
        let bytes = hex("DC07 0C 05 0B 32 1B")
        #expect(
            try DateTime(bytes: bytes) == DateTime(year: 2012, month: 12, day: 5, hours: 11, minutes: 50, seconds: 27))
        #expect(try DateTime(bytes: bytes).encoded() == bytes)
        expectEveryPrefixShort(DateTime.self, bytes)
        expectTrailingByteRejected(DateTime.self, bytes)
        #expect(try DateTime(bytes: hex("0000 00 00 00 00 00")).year == 0)  // unknown date
        for (bytes, field, offset) in [
            (hex("2D06 01 01 00 00 00"), "date_time.year", 0), (hex("1027 01 01 00 00 00"), "date_time.year", 0),
            (hex("DC07 0D 01 00 00 00"), "date_time.month", 2), (hex("DC07 01 20 00 00 00"), "date_time.day", 3),
            (hex("DC07 01 01 18 00 00"), "date_time.hours", 4), (hex("DC07 01 01 00 3C 00"), "date_time.minutes", 5),
            (hex("DC07 01 01 00 00 3C"), "date_time.seconds", 6),
        ] {
            let error = #expect(throws: GATTError.self) { try DateTime(bytes: bytes) }
            #expect(error?.code == .invalidValue && error?.field == field && error?.offset == offset)
        }
    }
}

@Suite("Record Access Control Point")
struct RecordAccessControlPointTests {
    /// Requests and responses as the Glucose Profile spells them; the report-all bytes `01 01` are also the
    /// UHN BLE demo's `reportAllStoredRecords` (RACPOpCodeStoredRecordsReport, RACPOperatorRecordsAll).
    static let vectors: [(RecordAccessControlPoint, [UInt8])] = [
        (.reportStoredRecords(.all), [0x01, 0x01]),
        (.reportStoredRecords(.greaterThanOrEqual(.sequenceNumber(0x1234))), [0x01, 0x03, 0x01, 0x34, 0x12]),
        (.reportStoredRecords(.lessThanOrEqual(.sequenceNumber(7))), [0x01, 0x02, 0x01, 0x07, 0x00]),
        (.reportStoredRecords(.sequenceNumbers(5...9)), [0x01, 0x04, 0x01, 0x05, 0x00, 0x09, 0x00]),
        (.reportStoredRecords(.first), [0x01, 0x05]), (.reportStoredRecords(.last), [0x01, 0x06]),
        (
            .reportStoredRecords(
                .greaterThanOrEqual(
                    .userFacingTime(DateTime(year: 2024, month: 3, day: 1, hours: 8, minutes: 0, seconds: 0)))),
            hex("01 03 02 E807 03 01 08 00 00")
        ),
        (.deleteStoredRecords(.all), [0x02, 0x01]),
        (.deleteStoredRecords(.lessThanOrEqual(.sequenceNumber(42))), [0x02, 0x02, 0x01, 0x2A, 0x00]),
        (.abortOperation, [0x03, 0x00]),
        (.reportNumberOfStoredRecords(.all), [0x04, 0x01]),
        (.numberOfStoredRecordsResponse(256), [0x05, 0x00, 0x00, 0x01]),
        (.responseCode(request: .reportStoredRecords, response: .success), [0x06, 0x00, 0x01, 0x01]),
        (.responseCode(request: .reportStoredRecords, response: .noRecordsFound), [0x06, 0x00, 0x01, 0x06]),
        (.responseCode(request: .abortOperation, response: .abortUnsuccessful), [0x06, 0x00, 0x03, 0x07]),
        (
            .responseCode(request: .deleteStoredRecords, response: RACPResponseCode(rawValue: 0x80)),
            [0x06, 0x00, 0x02, 0x80]
        ),
        // A server's answer to an op code it does not support echoes that op code (the RACP test suite's case).
        (.responseCode(request: RACPOpCode(rawValue: 0x0C), response: .opCodeNotSupported), [0x06, 0x00, 0x0C, 0x02]),
    ]

    @Test("encodes and decodes every op code and operator", arguments: vectors)
    func vector(value: RecordAccessControlPoint, bytes: [UInt8]) throws {
        #expect(value.encoded() == bytes)
        #expect(try RecordAccessControlPoint(bytes: bytes) == value)
        expectEveryPrefixShort(RecordAccessControlPoint.self, bytes)
        expectTrailingByteRejected(RecordAccessControlPoint.self, bytes)
    }

    @Test("rejects unknown op codes, operators and filter types, and inverted ranges")
    func bad() {
        for (bytes, code, field) in [
            ([0x00, 0x01], GATTError.Code.reservedValue, "op_code"), ([0x09, 0x01], .reservedValue, "op_code"),
            ([0x01, 0x00], .invalidValue, "operator"), ([0x01, 0x07], .reservedValue, "operator"),
            ([0x01, 0x03, 0x03, 0x00, 0x00], .reservedValue, "operand.filter_type"),
            ([0x01, 0x04, 0x01, 0x09, 0x00, 0x05, 0x00], .invalidValue, "operand.maximum"),
            ([0x03, 0x01], .invalidValue, "operator"),
        ] as [([UInt8], GATTError.Code, String)] {
            let error = #expect(throws: GATTError.self) { try RecordAccessControlPoint(bytes: bytes) }
            #expect(error?.code == code && error?.field == field, "\(bytes)")
        }
        #expect(RACPResponseCode.noRecordsFound.description == "no records found")
        #expect(RACPOpCode(rawValue: 0x0C).description == "op code 12")
        #expect(RACPOpCode.reportStoredRecords.description == "report stored records")
    }
}

@Suite("Weight scale")
struct WeightTests {
    @Test("the spec's fixed resolutions: 70 kg is 14000 × 0.005 kg, 1.750 m, BMI 22.9")
    func weight() throws {
        let bytes = hex("0E B036 E807 03 01 08 00 00 02 E500 D606")
        let value = try WeightMeasurement(bytes: bytes)
        #expect(value.system == .si && value.weight.raw == 14000)
        #expect(value.kilograms == 70)
        #expect(value.userID == 2 && value.bmi == 229 && value.height == 1750)
        #expect(value.heightInMeters == 1.75)
        #expect(value.encoded() == bytes)
        expectEveryPrefixShort(WeightMeasurement.self, bytes)
        expectTrailingByteRejected(WeightMeasurement.self, bytes)
        // imperial: 154.32 lb in 0.01 lb
        let pounds = try WeightMeasurement(bytes: hex("01 483C"))
        #expect(pounds.weight.value(in: .imperial) == 154.32)
        #expect(abs(pounds.kilograms! - 69.9986) < 1e-3)
        #expect(try WeightMeasurement(bytes: hex("00 FFFF")).kilograms == nil)  // unsuccessful
        #expect(MassValue(70, in: .si)?.raw == 14000)
        #expect(MassValue(400, in: .si) == nil)
    }

    @Test("round-trips random weights", arguments: seeds)
    func roundTrip(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        for _ in 0..<500 {
            expectRoundTrip(
                WeightMeasurement(
                    system: Bool.random(using: &random) ? .si : .imperial, weight: MassValue(raw: random.uint16()),
                    timeStamp: random.maybe { $0.dateTime() }, userID: random.maybe { $0.uint8() },
                    bmiAndHeight: random.maybe { (bmi: $0.uint16(), height: $0.uint16()) }))
        }
    }

    @Test("Weight Scale Feature reads its resolutions and rejects reserved ones")
    func feature() throws {
        // time stamp, multiple users, BMI; weight resolution 7 (0.005 kg); height resolution 3 (0.001 m)
        let raw: UInt32 = 0b111 | 7 << 3 | 3 << 7
        let feature = try WeightScaleFeature(bytes: [UInt8(raw & 0xFF), UInt8(raw >> 8), 0, 0])
        #expect(feature.timeStampSupported && feature.multipleUsersSupported && feature.bmiSupported)
        #expect(feature.weightResolution == 7 && feature.weightResolutionKilograms == 0.005)
        #expect(feature.heightResolution == 3)
        expectEveryPrefixShort(WeightScaleFeature.self, feature.encoded())
        expectTrailingByteRejected(WeightScaleFeature.self, feature.encoded())
        for bad in [UInt32(8 << 3), 4 << 7] {
            #expect(throws: GATTError.self) {
                try WeightScaleFeature(bytes: WeightScaleFeature(rawValue: bad).encoded())
            }
        }
        #expect(
            try WeightScaleFeature(bytes: WeightScaleFeature(rawValue: 0xFFFF_FC00).encoded()).rawValue == 0xFFFF_FC00)
    }

    @Test("body composition: fat 23.5 %, with every optional field")
    func bodyComposition() throws {
        let full = BodyCompositionMeasurement(
            system: .si, bodyFatPercentage: 235,
            timeStamp: DateTime(year: 2024, month: 3, day: 1, hours: 8, minutes: 0, seconds: 0), userID: 1,
            basalMetabolism: 6500, musclePercentage: 400, muscleMass: MassValue(raw: 6000),
            fatFreeMass: MassValue(raw: 10700),
            softLeanMass: MassValue(raw: 10000), bodyWaterMass: MassValue(raw: 8000), impedance: 5000,
            weight: MassValue(raw: 14000), height: 1750, multiplePacket: true)
        let bytes = full.encoded()
        #expect(bytes.prefix(4) == [0xFE, 0x1F, 0xEB, 0x00])
        #expect(bytes.count == 2 + 2 + 7 + 1 + 2 * 9)
        #expect(try BodyCompositionMeasurement(bytes: bytes) == full)
        expectEveryPrefixShort(BodyCompositionMeasurement.self, bytes)
        expectTrailingByteRejected(BodyCompositionMeasurement.self, bytes)
        #expect(try BodyCompositionMeasurement(bytes: hex("0000 EB00")).bodyFatPercentage == 235)
    }

    @Test("round-trips random body compositions", arguments: seeds)
    func bodyRoundTrip(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        for _ in 0..<300 {
            expectRoundTrip(
                BodyCompositionMeasurement(
                    system: Bool.random(using: &random) ? .si : .imperial, bodyFatPercentage: random.uint16(),
                    timeStamp: random.maybe { $0.dateTime() }, userID: random.maybe { $0.uint8() },
                    basalMetabolism: random.maybe { $0.uint16() }, musclePercentage: random.maybe { $0.uint16() },
                    muscleMass: random.maybe { MassValue(raw: $0.uint16()) },
                    fatFreeMass: random.maybe { MassValue(raw: $0.uint16()) },
                    softLeanMass: random.maybe { MassValue(raw: $0.uint16()) },
                    bodyWaterMass: random.maybe { MassValue(raw: $0.uint16()) },
                    impedance: random.maybe { $0.uint16() },
                    weight: random.maybe { MassValue(raw: $0.uint16()) }, height: random.maybe { $0.uint16() },
                    multiplePacket: Bool.random(using: &random)))
        }
    }
}

@Suite("Health thermometer")
struct TemperatureTests {
    /// Nordic Android-BLE-Common-Library, TemperatureMeasurementDataCallbackTest.onTemperatureMeasurementReceived.
    static let nordic = hex("06 B00E00FE DC07 0C 05 0B 32 1B 04")

    @Test("decodes Nordic's 37.60 °C finger reading")
    func nordicVector() throws {
        let value = try TemperatureMeasurement(bytes: Self.nordic)
        #expect(value.unit == .celsius && value.temperature.description == "37.60")
        #expect(value.timeStamp == DateTime(year: 2012, month: 12, day: 5, hours: 11, minutes: 50, seconds: 27))
        #expect(value.type == .finger)
        #expect(value.encoded() == Self.nordic)
        expectEveryPrefixShort(TemperatureMeasurement.self, Self.nordic)
        expectTrailingByteRejected(TemperatureMeasurement.self, Self.nordic)
    }

    @Test("rejects reserved types; keeps special values")
    func bad() throws {
        for type in [0, 10, 255] as [UInt8] {
            let error = #expect(throws: GATTError.self) {
                try TemperatureMeasurement(bytes: hex("04 6E0100FF") + [type])
            }
            #expect(error?.field == "temperature_type" && error?.offset == 5)
        }
        let nan = try TemperatureMeasurement(bytes: hex("01 FFFF7F00"))
        #expect(nan.unit == .fahrenheit && nan.temperature.special == .nan)
    }

    @Test("round-trips random readings", arguments: seeds)
    func roundTrip(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        for _ in 0..<500 {
            expectRoundTrip(
                TemperatureMeasurement(
                    unit: Bool.random(using: &random) ? .celsius : .fahrenheit,
                    temperature: MedicalFloat(bits: UInt32.random(in: .min ... .max, using: &random)),
                    timeStamp: random.maybe { $0.dateTime() },
                    type: random.maybe { TemperatureType.allCases.randomElement(using: &$0)! }))
        }
    }
}

@Suite("Pulse oximeter")
struct PulseOximeterTests {
    static let spotCheck = hex("1F 6200 4800 E807 03 01 08 00 00 2001 200000 1C00")

    @Test("the spot-check layout: SpO2 98 %, pulse 72, every optional field")
    func spot() throws {
        let value = try PLXSpotCheckMeasurement(bytes: Self.spotCheck)
        #expect(value.spO2PulseRate.spO2.description == "98" && value.spO2PulseRate.pulseRate.description == "72")
        #expect(value.measurementStatus == [.measurementOngoing, .fullyQualifiedData])
        #expect(value.deviceAndSensorStatus == .lowPerfusionDetected)
        #expect(value.pulseAmplitudeIndex?.description == "28")
        #expect(value.deviceClockNotSet)
        #expect(value.encoded() == Self.spotCheck)
        expectEveryPrefixShort(PLXSpotCheckMeasurement.self, Self.spotCheck)
        expectTrailingByteRejected(PLXSpotCheckMeasurement.self, Self.spotCheck)
        #expect(try PLXSpotCheckMeasurement(bytes: hex("00 6200 4800")).timeStamp == nil)
    }

    @Test("continuous: normal, fast and slow pairs")
    func continuous() throws {
        let bytes = hex("1F 6200 4800 6100 4900 6300 4700 0000 010000 FF07")
        let value = try PLXContinuousMeasurement(bytes: bytes)
        #expect(value.fast?.spO2.description == "97" && value.slow?.pulseRate.description == "71")
        #expect(value.deviceAndSensorStatus == .extendedDisplayUpdateOngoing)
        #expect(value.pulseAmplitudeIndex?.special == .nan)
        #expect(value.encoded() == bytes)
        expectEveryPrefixShort(PLXContinuousMeasurement.self, bytes)
        expectTrailingByteRejected(PLXContinuousMeasurement.self, bytes)
    }

    @Test("features announce their support fields")
    func features() throws {
        let bytes = hex("FF00 E0FF FFFF00")
        let value = try PLXFeatures(bytes: bytes)
        #expect(value.supportedFeatures == 0xFC)
        #expect(value.measurementStatusSupport?.rawValue == 0xFFE0)
        #expect(value.deviceAndSensorStatusSupport?.rawValue == 0xFFFF)
        #expect(value.encoded() == bytes)
        expectEveryPrefixShort(PLXFeatures.self, bytes)
        expectTrailingByteRejected(PLXFeatures.self, bytes)
        #expect(try PLXFeatures(bytes: hex("0400")).encoded() == hex("0400"))
    }

    @Test("round-trips random spot-checks and continuous readings", arguments: seeds)
    func roundTrip(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        func pair(_ random: inout SeededGenerator) -> SpO2PulseRate {
            .init(spO2: random.sfloat(), pulseRate: random.sfloat())
        }
        for _ in 0..<300 {
            expectRoundTrip(
                PLXSpotCheckMeasurement(
                    spO2PulseRate: pair(&random), timeStamp: random.maybe { $0.dateTime() },
                    measurementStatus: random.maybe { PLXMeasurementStatus(rawValue: $0.uint16()) },
                    deviceAndSensorStatus: random.maybe {
                        PLXDeviceAndSensorStatus(rawValue: UInt32($0.uint16()) << 8)
                    },
                    pulseAmplitudeIndex: random.maybe { $0.sfloat() }, deviceClockNotSet: Bool.random(using: &random)))
            expectRoundTrip(
                PLXContinuousMeasurement(
                    normal: pair(&random), fast: random.maybe(pair), slow: random.maybe(pair),
                    measurementStatus: random.maybe { PLXMeasurementStatus(rawValue: $0.uint16()) },
                    deviceAndSensorStatus: random.maybe { PLXDeviceAndSensorStatus(rawValue: UInt32($0.uint16())) },
                    pulseAmplitudeIndex: random.maybe { $0.sfloat() }))
        }
    }
}

@Suite("Heart rate")
struct HeartRateTests {
    /// The vectors of Nordic Android-BLE-Common-Library, HeartRateMeasurementDataCallbackTest.
    @Test("decodes Nordic's vectors")
    func nordic() throws {
        let simple = try HeartRateMeasurement(bytes: [0, 85])
        #expect(simple.heartRate == 85 && simple.sensorContact == .notSupported && simple.energyExpended == nil)
        #expect(simple.rrIntervals.isEmpty)
        let noContact = try HeartRateMeasurement(bytes: [0x4, 0xFF])
        #expect(noContact.heartRate == 255 && noContact.sensorContact == .notDetected)
        let uint8 = try HeartRateMeasurement(bytes: [0b11110, 85, 50, 0, 33, 0])
        #expect(uint8.sensorContact == .detected && uint8.energyExpended == 50 && uint8.rrIntervals == [33])
        let uint16 = try HeartRateMeasurement(bytes: [0b11111, 1, 1, 50, 1, 1, 0, 2, 1, 0xFF, 0xFF])
        #expect(uint16.heartRate == 257 && uint16.energyExpended == 306 && uint16.rrIntervals == [1, 258, 65535])
        #expect(uint16.valueFormat == .uint16)
        #expect(uint16.encoded() == [0b11111, 1, 1, 50, 1, 1, 0, 2, 1, 0xFF, 0xFF])
        let invalid = #expect(throws: GATTError.self) { try HeartRateMeasurement(bytes: [0b10111, 1, 1]) }
        #expect(invalid?.code == .short && invalid?.field == "rr_interval")
    }

    @Test("contact pattern 01 also means not supported, and is written back as 00")
    func contactNotSupported() throws {
        let value = try HeartRateMeasurement(bytes: [0b010, 70])
        #expect(value.sensorContact == .notSupported)
        #expect(value.encoded() == [0, 70])
    }

    @Test("prefixes are short until the RR intervals; an odd byte, and reserved flags with RR intervals, are rejected")
    func badBytes() throws {
        let bytes: [UInt8] = [0b11001, 1, 1, 50, 1, 0x00, 0x04]
        expectEveryPrefixShort(HeartRateMeasurement.self, Array(bytes.prefix(5)))
        let odd = #expect(throws: GATTError.self) { try HeartRateMeasurement(bytes: bytes + [7]) }
        #expect(odd?.code == .short && odd?.offset == 7)
        let reserved = #expect(throws: GATTError.self) { try HeartRateMeasurement(bytes: [0x30, 60, 0x00, 0x04]) }
        #expect(reserved?.code == .reservedValue && reserved?.field == "flags" && reserved?.offset == 0)
        #expect(try HeartRateMeasurement(bytes: bytes).rrIntervalsInSeconds == [1.0])
    }

    @Test("round-trips random measurements; a rate above 255 is always sent as 16 bits", arguments: seeds)
    func roundTrip(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        for _ in 0..<500 {
            let contacts: [HeartRateMeasurement.SensorContact] = [.notSupported, .notDetected, .detected]
            expectRoundTrip(
                HeartRateMeasurement(
                    heartRate: random.uint16(), valueFormat: Bool.random(using: &random) ? .uint8 : .uint16,
                    sensorContact: contacts.randomElement(using: &random)!,
                    energyExpended: random.maybe { $0.uint16() },
                    rrIntervals: (0..<Int.random(in: 0...5, using: &random)).map { _ in random.uint16() }
                ).normalized)
        }
        #expect(HeartRateMeasurement(heartRate: 300, valueFormat: .uint8).encoded() == [1, 0x2C, 0x01])
    }
}

extension HeartRateMeasurement {
    /// The value as it reads back: a rate above 255 is sent as 16 bits.
    var normalized: HeartRateMeasurement {
        var copy = self
        if heartRate > 255 { copy.valueFormat = .uint16 }
        return copy
    }
}
