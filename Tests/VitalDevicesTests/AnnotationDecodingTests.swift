import HealthGATT
import Testing
import VitalCore
import VitalDevices

/// Bytes from a hex string with optional spaces: `"1C 7800"`.
private func hex(_ text: String) -> [UInt8] {
    let digits = text.filter { !$0.isWhitespace }.map { UInt8(String($0), radix: 16)! }
    return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
}

private let undated = Timestamp(secondsSince1970: 1_763_539_200)

private func decode(_ bytes: String, _ characteristic: UInt16) throws -> Reading {
    try DeviceRecord(decoding: hex(bytes), of: characteristic, undatedAt: undated).reading
}

/// The special values as an SFLOAT sends them (little-endian), and as a FLOAT does.
private let sfloatSpecials: [(bytes: String, value: SpecialValue)] = [
    ("FF07", .nan), ("0008", .nres), ("FE07", .positiveInfinity), ("0208", .negativeInfinity), ("0108", .reserved),
]
private let floatSpecials: [(bytes: String, value: SpecialValue)] = [
    ("FFFF7F00", .nan), ("00008000", .nres), ("FEFF7F00", .positiveInfinity), ("02008000", .negativeInfinity),
    ("01008000", .reserved),
]

@Suite("A special value in a measurement keeps the reading with the field unavailable")
struct SpecialValueDecodingTests {
    /// 120/80 mmHg, mean 93, pulse 64, user 3, no status; `field` (0 systolic, 1 diastolic, 3 pulse) replaced.
    static func bloodPressure(_ special: String, at field: Int) -> String {
        var values = ["7800", "5000", "5D00", "4000"]
        values[field] = special
        return "1C" + values.joined() + "03 0000"
    }

    @Test(
        "a blood pressure keeps the other fields",
        arguments: sfloatSpecials.flatMap { special in [(0, "sys"), (1, "dia"), (3, "hr")].map { (special, $0) } })
    func bloodPressure(special: (bytes: String, value: SpecialValue), field: (index: Int, name: String)) throws {
        let reading = try decode(Self.bloodPressure(special.bytes, at: field.index), BloodPressureMeasurement.uuid)
        let unavailable = reading.unavailableFields
        #expect(unavailable.count == 1)
        #expect(unavailable.first?.field.name == field.name)
        #expect(unavailable.first?.value == special.value)
        let kind = ReadingKind.bloodPressure
        #expect(kind.field(named: field.name)!.value(in: reading) == nil)
        let kept: [(String, FieldValue)] = [("sys", .number(120)), ("dia", .number(80)), ("hr", .integer(64))]
        for (name, value) in kept where name != field.name {
            #expect(kind.field(named: name)!.value(in: reading) == value, "\(name)")
        }
        #expect(reading.annotations.userIndex == 3)
        #expect(reading.annotations.status == [])
    }

    @Test("a glucose concentration", arguments: sfloatSpecials)
    func glucose(special: (bytes: String, value: SpecialValue)) throws {
        // sequence 1, base time 2026-11-19 08:00:00, the concentration and type/location 0x11
        let reading = try decode("02 0100 EA070B13080000" + special.bytes + "11", GlucoseMeasurement.uuid)
        #expect(reading.unavailableFields.map(\.field.name) == ["mgdl"])
        #expect(reading.unavailableFields.first?.value == special.value)
        #expect(ReadingKind.glucose.field(named: "mgdl")!.value(in: reading) == nil)
        #expect(reading.measuredAt == Timestamp(parsing: "2026-11-19 08:00:00"))
    }

    @Test("a temperature", arguments: floatSpecials)
    func temperature(special: (bytes: String, value: SpecialValue)) throws {
        for flags in ["00", "01"] {
            let reading = try decode(flags + special.bytes, TemperatureMeasurement.uuid)
            #expect(reading.unavailableFields.map(\.field.name) == ["c"])
            #expect(reading.unavailableFields.first?.value == special.value)
            #expect(reading.measuredAt == undated)
        }
    }

    @Test(
        "a spot-check keeps the other fields",
        arguments: sfloatSpecials.flatMap { special in [(0, "spo2"), (1, "hr"), (2, "pi")].map { (special, $0) } })
    func spotCheck(special: (bytes: String, value: SpecialValue), field: (index: Int, name: String)) throws {
        // flags: pulse amplitude index; SpO2 97 %, pulse 70 bpm, index 5.0 %
        var values = ["6100", "4600", "32F0"]
        values[field.index] = special.bytes
        let reading = try decode("08" + values.joined(), PLXSpotCheckMeasurement.uuid)
        #expect(reading.unavailableFields.map(\.field.name) == [field.name])
        #expect(reading.unavailableFields.first?.value == special.value)
        let kept: [(String, FieldValue)] = [("spo2", .integer(97)), ("hr", .integer(70)), ("pi", .number(5))]
        for (name, value) in kept where name != field.name {
            #expect(ReadingKind.oximetry.field(named: name)!.value(in: reading) == value, "\(name)")
        }
    }

    @Test("an unsuccessful weight is kept as NaN with its status and user")
    func unsuccessfulWeight() throws {
        let reading = try decode("04 FFFF 02", WeightMeasurement.uuid)
        #expect(reading.unavailableFields.map(\.field.name) == ["kg"])
        #expect(reading.unavailableFields.first?.value == .nan)
        #expect(reading.annotations.status == .measurementUnsuccessful)
        #expect(reading.annotations.userIndex == 2)
        #expect(ReadingKind.weight.field(named: "kg")!.value(in: reading) == nil)
    }

    @Test("a successful weight carries its user index, 255 the unknown user")
    func weightUser() throws {
        // 70 kg = 14000 × 0.005 kg
        let known = try decode("04 B036 00", WeightMeasurement.uuid)
        #expect(known.annotations == ReadingAnnotations(userIndex: 0))
        let unknown = try decode("04 B036 FF", WeightMeasurement.uuid)
        #expect(unknown.annotations.userIndex == ReadingAnnotations.unknownUser)
        #expect(try decode("00 B036", WeightMeasurement.uuid).annotations.isEmpty)
    }

    @Test("a body composition with unsuccessful body fat keeps the weight and the other fields")
    func unsuccessfulBodyFat() throws {
        // flags: user ID, muscle percentage, weight; fat 0xFFFF, user 1, muscle 40.0 %, weight 70 kg
        let reading = try decode("1404 FFFF 01 9001 B036", BodyCompositionMeasurement.uuid)
        guard case .weight(let weight) = reading else {
            Issue.record("not a weight: \(reading)")
            return
        }
        #expect(weight.kilograms == 70)
        #expect(weight.bodyComposition?.musclePercentage == 40)
        #expect(reading.unavailableFields.map(\.field.name) == ["fat"])
        #expect(reading.unavailableFields.first?.value == .nan)
        #expect(ReadingKind.weight.field(named: "fat")!.value(in: reading) == nil)
        #expect(ReadingKind.weight.field(named: "musclepct")!.value(in: reading) == .number(40))
        #expect(reading.annotations.status == .measurementUnsuccessful)
        #expect(reading.annotations.userIndex == 1)
    }

    @Test("a body composition with an unsuccessful weight and a mass is kept with both unavailable")
    func unsuccessfulWeightInComposition() throws {
        // flags: muscle mass, weight; fat 20.5 %, muscle mass 0xFFFF, weight 0xFFFF
        let reading = try decode("2004 CD00 FFFF FFFF", BodyCompositionMeasurement.uuid)
        #expect(reading.unavailableFields.map(\.field.name) == ["kg", "muscle"])
        #expect(ReadingKind.weight.field(named: "fat")!.value(in: reading) == .number(20.5))
        #expect(reading.annotations.status == .measurementUnsuccessful)
        #expect(reading.annotations.userIndex == nil)
    }
}

@Suite("Every status bit of a measurement is kept by name")
struct StatusDecodingTests {
    @Test(
        "blood pressure measurement status",
        arguments: [
            ("0100", ["bodyMovement"], false), ("0200", ["cuffTooLoose"], false), ("0400", ["irregularPulse"], true),
            ("0800", ["pulseRateTooHigh"], false), ("1000", ["pulseRateTooLow"], false),
            ("2000", ["improperPosition"], false), ("0000", [], false),
            // the reserved pulse rate range (3) names neither; reserved bits 6-15 name nothing
            ("1800", [], false), ("C0FF", [], false),
            ("3F00", ["bodyMovement", "cuffTooLoose", "irregularPulse", "improperPosition"], true),
        ])
    func bloodPressure(bits: String, names: [String], irregular: Bool) throws {
        let reading = try decode("1C 7800 5000 5D00 4000 FF" + bits, BloodPressureMeasurement.uuid)
        #expect(reading.annotations.status.names == names)
        #expect(reading.annotations.userIndex == ReadingAnnotations.unknownUser)
        guard case .bloodPressure(let bp) = reading else { return }
        #expect(bp.arrhythmia == irregular)
    }

    @Test("a blood pressure without a status field has none and no arrhythmia flag")
    func bloodPressureWithoutStatus() throws {
        let reading = try decode("00 7800 5000 5D00", BloodPressureMeasurement.uuid)
        #expect(reading.annotations.isEmpty)
        guard case .bloodPressure(let bp) = reading else { return }
        #expect(bp.arrhythmia == nil)
    }

    @Test("glucose sensor status annunciation", arguments: 0..<12)
    func glucose(bit: Int) throws {
        let bits = UInt16(1) << UInt16(bit)
        let status = String(format16(bits))
        let reading = try decode("0A 0100 EA070B13080000 78B0 11" + status, GlucoseMeasurement.uuid)
        #expect(reading.annotations.status.names == [ReadingStatus.names[6 + bit]])
        #expect(ReadingKind.glucose.field(named: "mgdl")!.value(in: reading) == .number(120))
    }

    @Test("glucose annunciation names in order; reserved bits 12-15 name nothing")
    func glucoseNames() throws {
        let reading = try decode("0A 0100 EA070B13080000 78B0 11 21F0", GlucoseMeasurement.uuid)
        #expect(reading.annotations.status.names == ["deviceBatteryLow", "resultTooHigh"])
        let names = (0..<12).map { ReadingStatus.names[6 + $0] }
        #expect(
            names == [
                "deviceBatteryLow", "sensorMalfunction", "sampleSizeInsufficient", "stripInsertionError",
                "stripTypeIncorrect", "resultTooHigh", "resultTooLow", "temperatureTooHigh", "temperatureTooLow",
                "readInterrupted", "generalDeviceFault", "timeFault",
            ])
    }

    @Test(
        "temperature type is the site",
        arguments: [
            (1, "armpit"), (2, "body"), (3, "ear"), (4, "finger"), (5, "gastrointestinalTract"), (6, "mouth"),
            (7, "rectum"), (8, "toe"), (9, "tympanum"),
        ])
    func temperature(type: UInt8, name: String) throws {
        // 36.6 °C
        let reading = try decode("04 6E0100FF" + String(format16(UInt16(type))).prefix(2), TemperatureMeasurement.uuid)
        #expect(reading.annotations.status.names == [name])
        #expect(ReadingKind.temperature.field(named: "c")!.value(in: reading) == .number(36.6))
    }

    @Test("PLX measurement status bits 5-15", arguments: 5..<16)
    func plxMeasurement(bit: Int) throws {
        let reading = try decode("02 6100 4600" + format16(UInt16(1) << UInt16(bit)), PLXSpotCheckMeasurement.uuid)
        #expect(reading.annotations.status.names == [ReadingStatus.names[18 + bit - 5]])
    }

    @Test("PLX measurement status bits 0-4 are reserved and name nothing")
    func plxMeasurementReserved() throws {
        let reading = try decode("02 6100 4600 1F00", PLXSpotCheckMeasurement.uuid)
        #expect(reading.annotations.status.names == [])
    }

    @Test("PLX device and sensor status bits 0-15", arguments: 0..<16)
    func plxDevice(bit: Int) throws {
        let reading = try decode(
            "04 6100 4600" + format16(UInt16(1) << UInt16(bit)) + "00", PLXSpotCheckMeasurement.uuid)
        #expect(reading.annotations.status.names == [ReadingStatus.names[29 + bit]])
    }

    @Test("PLX device clock not set, with both status fields")
    func plxClock() throws {
        let reading = try decode("16 6100 4600 0004 200000", PLXSpotCheckMeasurement.uuid)
        #expect(
            reading.annotations.status.names == ["dataForDemonstration", "lowPerfusion", "deviceClockNotSet"])
        #expect(ReadingKind.oximetry.field(named: "spo2")!.value(in: reading) == .integer(97))
    }
}

/// `value` as little-endian hex: 0x0120 is `2001`.
private func format16(_ value: UInt16) -> String {
    let digits = Array("0123456789ABCDEF")
    return [value & 0xFF, value >> 8].map { "\(digits[Int($0 >> 4)])\(digits[Int($0 & 0xF)])" }.joined()
}
