import Testing
import VitalTestSupport

@testable import HealthGATT

@Suite("Blood pressure")
struct BloodPressureTests {
    /// Nordic Android-BLE-Common-Library, BloodPressureMeasurementDataCallbackTest.onBloodPressureMeasurementReceived_full.
    static let nordicFull = hex("1E 8A00 5800 7800 0000 04 11 14 29 3B 3C00 01 2700")
    /// Same source, `_some`: kPa, pulse rate and status.
    static let nordicSome = hex("15 BDF0 0B00 9FF0 3C00 1200")
    /// Same source, `_minimal`.
    static let nordicMinimal = hex("00 BDF0 0B00 9FF0")

    @Test("decodes Nordic's full measurement")
    func full() throws {
        let value = try BloodPressureMeasurement(bytes: Self.nordicFull)
        #expect(value.unit == .mmHg)
        #expect(value.systolic.description == "138" && value.diastolic.description == "88")
        #expect(value.meanArterialPressure.description == "120")
        #expect(value.timeStamp == DateTime(year: 0, month: 4, day: 17, hours: 20, minutes: 41, seconds: 59))
        #expect(value.pulseRate?.doubleValue == 60)
        #expect(value.userID == 1)
        let status = try #require(value.status)
        #expect(status.contains(.bodyMovementDetected) && status.contains(.cuffTooLoose))
        #expect(status.contains(.irregularPulseDetected) && status.contains(.improperMeasurementPosition))
        #expect(status.pulseRateRange == .withinRange)
        #expect(value.encoded() == Self.nordicFull)
    }

    @Test("decodes Nordic's kPa measurement with a pulse below the lower limit")
    func some() throws {
        let value = try BloodPressureMeasurement(bytes: Self.nordicSome)
        #expect(value.unit == .kPa)
        #expect(value.systolic.description == "18.9" && value.diastolic.description == "11")
        #expect(value.meanArterialPressure.description == "15.9")
        #expect(value.timeStamp == nil && value.userID == nil)
        #expect(value.status?.contains(.cuffTooLoose) == true)
        #expect(value.status?.pulseRateRange == .belowLowerLimit)
        #expect(value.encoded() == Self.nordicSome)
        #expect(try BloodPressureMeasurement(bytes: Self.nordicMinimal).encoded() == Self.nordicMinimal)
    }

    @Test("the spec's example: 120/80 mmHg, MAP 93, pulse 72, with a time stamp")
    func specExample() throws {
        // Flags 0x06 (time stamp, pulse rate), SFLOATs 120, 80, 93, 2017-10-10 10:10:10, 72.
        let bytes = hex("06 7800 5000 5D00 E107 0A 0A 0A 0A 0A 4800")
        let value = BloodPressureMeasurement(
            unit: .mmHg, systolic: SFloat(mantissa: 120, exponent: 0)!, diastolic: SFloat(mantissa: 80, exponent: 0)!,
            meanArterialPressure: SFloat(mantissa: 93, exponent: 0)!,
            timeStamp: DateTime(year: 2017, month: 10, day: 10, hours: 10, minutes: 10, seconds: 10),
            pulseRate: SFloat(mantissa: 72, exponent: 0)!)
        #expect(value.encoded() == bytes)
        #expect(try BloodPressureMeasurement(bytes: bytes) == value)
    }

    @Test("every prefix is short; a trailing byte and a bad time are rejected")
    func badBytes() {
        expectEveryPrefixShort(BloodPressureMeasurement.self, Self.nordicFull)
        expectTrailingByteRejected(BloodPressureMeasurement.self, Self.nordicFull)
        // Nordic's onInvalidDataReceived cases
        #expect(throws: GATTError.self) { try BloodPressureMeasurement(bytes: [1, 2, 3, 4, 5, 6]) }
        #expect(throws: GATTError.self) { try BloodPressureMeasurement(bytes: [3, 2, 3, 4, 5, 6, 7]) }
        var badMonth = Self.nordicFull
        badMonth[9] = 13
        let month = #expect(throws: GATTError.self) { try BloodPressureMeasurement(bytes: badMonth) }
        #expect(month?.code == .invalidValue && month?.field == "time_stamp.month" && month?.offset == 9)
        #expect(
            month?.description == "Blood Pressure Measurement: time_stamp.month at byte 9: its value is out of range")
    }

    @Test("reserved status bits are kept", arguments: [UInt16(0xFFC0), 0x0018])
    func reservedStatus(raw: UInt16) throws {
        let value = BloodPressureMeasurement(
            unit: .mmHg, systolic: SFloat(.nan), diastolic: SFloat(.nres), meanArterialPressure: SFloat(.reserved),
            status: BloodPressureMeasurementStatus(rawValue: raw))
        let decoded = try BloodPressureMeasurement(bytes: value.encoded())
        #expect(decoded.status?.rawValue == raw)
        #expect(decoded.systolic.special == .nan)
    }

    @Test("round-trips random measurements", arguments: seeds)
    func roundTrip(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        for _ in 0..<500 {
            let value = BloodPressureMeasurement(
                unit: Bool.random(using: &random) ? .mmHg : .kPa, systolic: random.sfloat(), diastolic: random.sfloat(),
                meanArterialPressure: random.sfloat(), timeStamp: random.maybe { $0.dateTime() },
                pulseRate: random.maybe { $0.sfloat() }, userID: random.maybe { $0.uint8() },
                status: random.maybe { BloodPressureMeasurementStatus(rawValue: $0.uint16()) })
            expectRoundTrip(value)
            let cuff = IntermediateCuffPressure(
                unit: value.unit, cuffPressure: value.systolic, timeStamp: value.timeStamp, pulseRate: value.pulseRate,
                userID: value.userID, status: value.status)
            expectRoundTrip(cuff)
        }
    }

    @Test("intermediate cuff pressure writes NaN in the unused fields and ignores them when read")
    func cuff() throws {
        // Nordic IntermediateCuffPressureDataCallbackTest shape: flags, cuff pressure, two unused SFLOATs.
        let value = IntermediateCuffPressure(unit: .mmHg, cuffPressure: SFloat(mantissa: 152, exponent: 0)!)
        #expect(value.encoded() == hex("00 9800 FF07 FF07"))
        #expect(try IntermediateCuffPressure(bytes: hex("00 9800 0000 1234")) == value)
        expectEveryPrefixShort(IntermediateCuffPressure.self, hex("1E 9800 FF07 FF07 E107 0A 0A 0A 0A 0A 4800 01 0000"))
    }

    @Test("Blood Pressure Feature keeps all 16 bits and needs exactly two bytes")
    func feature() throws {
        let feature = try BloodPressureFeature(bytes: [0x3F, 0x81])
        #expect(feature.contains([.bodyMovementDetection, .multipleBonds]))
        #expect(feature.rawValue == 0x813F)
        #expect(feature.encoded() == [0x3F, 0x81])
        expectEveryPrefixShort(BloodPressureFeature.self, [0x3F, 0x81])
        expectTrailingByteRejected(BloodPressureFeature.self, [0x3F, 0x81])
    }
}
