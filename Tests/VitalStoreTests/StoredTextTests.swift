import Foundation
import GRDB
import Testing
import VitalCore
import VitalTestSupport

@testable import VitalStore

/// The text a reading is stored as never changes with a release: a re-sent reading is recognized by it.
@Suite("Stored text")
struct StoredTextTests {
    static let device = MACAddress("004D3208D30B")!
    static let weight = LayeredReading.weight(
        WeightReading(
            kilograms: 80, measuredAt: LayeredTimestamp(secondsSince1970: 1_763_700_000),
            bodyComposition: BodyComposition(
                bodyFatPercentage: 22.5, basalMetabolism: 6_500, musclePercentage: 35, impedance: 480)))

    static func payloads(_ path: String) throws -> [String] {
        try DatabaseQueue(path: path).read { db in try String.fetchAll(db, sql: "SELECT payload FROM reading") }
    }

    @Test("a weight's basal metabolism follows its body fat, as 0.14.0 wrote it, and a re-sent weight is stored once")
    func weightText() throws {
        let directory = try TemporaryDirectory("stored-text")
        defer { directory.remove() }
        let path = directory.file("vitalbridge.sqlite")
        let store = try VitalStore(path: path)
        let first = try store.storeReadings([Self.weight], device: Self.device)
        #expect(try Self.payloads(path) == ["kg=80.0;fat=22.5;bmr=6500;musclepct=35.0;imp=480.0"])
        let again = try store.storeReadings([Self.weight], device: Self.device)
        #expect(again == first)
        #expect(try store.readings().map(\.reading) == [Self.weight])
    }

    @Test("a reading the merge rule takes as a stored one is not stored again, whatever text the stored one has")
    func storedUnderOtherText() throws {
        let directory = try TemporaryDirectory("stored-text")
        defer { directory.remove() }
        let path = directory.file("vitalbridge.sqlite")
        let store = try VitalStore(path: path)
        let first = try store.storeReadings([Self.weight], device: Self.device)
        // the same weight as another release might have written it: its fields in another order
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "UPDATE reading SET payload = 'kg=80.0;fat=22.5;musclepct=35.0;imp=480.0;bmr=6500'")
        }
        let equalIsStored = ReadingMerge(
            mayMerge: { if case .weight = $0 { true } else { false } },
            merged: { new, stored in new == stored ? stored : nil })
        let again = try store.storeReadings([Self.weight], device: Self.device, merging: equalIsStored)
        #expect(again == first)
        #expect(try store.readings().map(\.reading) == [Self.weight])
    }

    @Test("a flag is read as 0.14.0 read it: 1 is true, any other whole number false, anything else unreadable")
    func flags() throws {
        let directory = try TemporaryDirectory("stored-text")
        defer { directory.remove() }
        let path = directory.file("vitalbridge.sqlite")
        let store = try VitalStore(path: path)
        let time = LayeredTimestamp(secondsSince1970: 1_763_700_000)
        _ = try store.storeReadings(
            [.bloodPressure(BloodPressureReading(systolic: 120, diastolic: 80, arrhythmia: true, measuredAt: time))],
            device: Self.device)
        for (text, flag) in [("1", true), ("0", false), ("2", false)] {
            try DatabaseQueue(path: path).write { db in
                try db.execute(sql: "UPDATE reading SET payload = ?", arguments: ["sys=120.0;dia=80.0;arr=\(text)"])
            }
            #expect(
                try store.readings().map(\.reading) == [
                    .bloodPressure(
                        BloodPressureReading(systolic: 120, diastolic: 80, arrhythmia: flag, measuredAt: time))
                ])
        }
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "UPDATE reading SET payload = 'sys=120.0;dia=80.0;arr=yes'")
        }
        #expect(throws: StoreError.self) { try store.readings() }
    }
}
