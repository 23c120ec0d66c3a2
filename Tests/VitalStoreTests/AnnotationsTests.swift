import GRDB
import Testing
import VitalCore
import VitalTestSupport

@testable import VitalStore

/// What a device says about a reading beyond its values (statuses, unavailable fields, user index, the device's own
/// time) is kept with it in the store (schema 7) and read back exactly.
@Suite("Reading annotations in the store")
struct AnnotationsStoreTests {
    static let device = MACAddress("004D3208D30B")!
    static let time = Timestamp(secondsSince1970: 1_763_700_000)

    /// A blood pressure whose systolic the cuff could not measure (NaN), with a body movement and an irregular pulse,
    /// of user 2, its time corrected from the device's clock an hour behind.
    static var annotated: Reading {
        var reading = Reading.bloodPressure(
            BloodPressureReading(systolic: 0, diastolic: 81, heartRate: 72, arrhythmia: true, measuredAt: time))
        reading.markUnavailable(ReadingKind.bloodPressure.field(named: "sys")!, .nan)
        reading.annotations.status = [.bodyMovement, .irregularPulse]
        reading.annotations.userIndex = 2
        reading.annotations.deviceTime = Timestamp(secondsSince1970: time.secondsSince1970 - 3_600)
        return reading
    }

    @Test("a reading's statuses, unavailable fields, user index and device time are stored and read back")
    func roundTrip() throws {
        let directory = try TemporaryDirectory("annotations")
        defer { directory.remove() }
        let path = directory.file("vitalbridge.sqlite")
        let store = try VitalStore(path: path)
        var oximetry = Reading.oximetry(
            OximetryReading(oxygenSaturation: 0, heartRate: 0, measuredAt: Self.time))
        oximetry.markUnavailable(ReadingKind.oximetry.field(named: "spo2")!, SpecialValue.positiveInfinity)
        oximetry.markUnavailable(ReadingKind.oximetry.field(named: "hr")!, SpecialValue.nres)
        oximetry.annotations.status = ReadingStatus(names: ["lowPerfusion", "deviceClockNotSet"])!
        let plain = Reading.glucose(GlucoseReading(mgPerDeciliter: 99, measuredAt: Self.time))
        try store.readings.store([Self.annotated, oximetry, plain], device: Self.device)
        let back = try VitalStore(path: path).readings.all().map(\.reading)
        #expect(back == [Self.annotated, oximetry, plain])
        #expect(back[0].fieldValues.map { $0.field.name } == ["dia", "hr", "arr"])
        #expect(back[1].unavailableFields.map { "\($0.field.name!)=\($0.value)" } == ["spo2=+INF", "hr=NRes"])
        let row = try DatabaseQueue(path: path).read { db in
            try Row.fetchAll(
                db, sql: "SELECT sys, status, unavailable, user_index, device_time FROM reading ORDER BY id")
        }
        #expect(
            row[0] == [
                "sys": nil, "status": 5, "unavailable": "sys=NaN", "user_index": 2,
                "device_time": Self.time.secondsSince1970 - 3_600,
            ])
        #expect(row[2] == ["sys": nil, "status": nil, "unavailable": nil, "user_index": nil, "device_time": nil])
        // the same reading sent again is the one stored; another status is another reading
        try store.readings.store([Self.annotated], device: Self.device)
        var other = Self.annotated
        other.annotations.status = [.bodyMovement]
        try store.readings.store([other], device: Self.device)
        #expect(try store.readings.all().count == 4)
    }

    @Test(
        "a row whose annotations cannot be read is an error naming it, never a reading without them",
        arguments: [
            "UPDATE reading SET status = 1 << 62", "UPDATE reading SET status = 'bodyMovement'",
            "UPDATE reading SET unavailable = 'mgdl=NaN'", "UPDATE reading SET unavailable = 'sys=2047'",
            "UPDATE reading SET unavailable = 'sys'", "UPDATE reading SET user_index = 256",
            "UPDATE reading SET user_index = -1",
        ])
    func unreadable(_ damage: String) throws {
        let directory = try TemporaryDirectory("annotations-damaged")
        defer { directory.remove() }
        let path = directory.file("vitalbridge.sqlite")
        try VitalStore(path: path).readings.store([Self.annotated], device: Self.device)
        try DatabaseQueue(path: path).write { try $0.execute(sql: damage) }
        #expect(throws: StoreError.self) { try VitalStore(path: path).readings.all() }
    }

    @Test("the status bits are fixed: the store keeps them as a number, so a status never moves")
    func statusBits() {
        #expect(ReadingStatus.names.count == 57)
        #expect(ReadingStatus.bodyMovement.rawValue == 1 << 0)
        #expect(ReadingStatus.improperPosition.rawValue == 1 << 5)
        #expect(ReadingStatus(name: "deviceBatteryLow")!.rawValue == 1 << 6)
        #expect(ReadingStatus(name: "timeFault")!.rawValue == 1 << 17)
        #expect(ReadingStatus(name: "measurementOngoing")!.rawValue == 1 << 18)
        #expect(ReadingStatus(name: "invalidMeasurement")!.rawValue == 1 << 28)
        #expect(ReadingStatus(name: "extendedDisplayUpdateOngoing")!.rawValue == 1 << 29)
        #expect(ReadingStatus(name: "sensorDisconnected")!.rawValue == 1 << 44)
        #expect(ReadingStatus.measurementUnsuccessful.rawValue == 1 << 45)
        #expect(ReadingStatus(name: "armpit")!.rawValue == 1 << 46)
        #expect(ReadingStatus(name: "tympanum")!.rawValue == 1 << 54)
        #expect(ReadingStatus.deviceClockNotSet.rawValue == 1 << 55)
        #expect(ReadingStatus.timeUnverified.rawValue == 1 << 56)
        #expect(Set(ReadingStatus.names).count == ReadingStatus.names.count)
        #expect(ReadingStatus(names: ["bodyMovement", "nonsense"]) == nil)
    }
}
