import Foundation
import GRDB
import Testing
import VitalCore
import VitalTestSupport

@testable import VitalStore

/// A band day's sport totals and sleep segments in the store (migration 9's two text columns), and a home from
/// before them: its days read with empty lists, and are filled in place when the band sends the day again (issue 37).
@Suite("Band sport totals and sleep segments in the store")
struct BandDayListsStoreTests {
    static let date = CalendarDate(year: 2026, month: 11, day: 20)!
    static let device = MACAddress("004D3208D310")!
    static let totals: [BandDay.SportTotal] = [
        .init(type: 1, steps: 8421, calories: 312, distance: 6120),
        .init(type: 2, steps: 0, calories: 80, distance: 0, count: 220),
    ]
    static let segments: [BandDay.SleepSegment] = [
        .init(type: 1, start: 40, end: 40), .init(type: 3, start: 40, end: 135), .init(type: 2, start: 135, end: 135),
        .init(type: 5, start: 135, end: 138),
    ]

    static func day(totals: [BandDay.SportTotal] = [], segments: [BandDay.SleepSegment] = []) -> Reading {
        .band(
            BandDay(
                date: date, steps: 8421, calories: 392, distance: 6120, sleep: .init(deep: 95, light: 0, awake: 0),
                heartRate: nil, sports: [], sportTotals: totals, sleepSegments: segments))
    }

    @Test("the lists as text read back as written; a malformed one makes the row unreadable, never a wrong list")
    func text() {
        #expect(ReadingColumns.text(of: Self.totals) == "1/8421/312/6120,2/0/80/0/220")
        #expect(ReadingColumns.sportTotals(ReadingColumns.text(of: Self.totals)[...]) == Self.totals)
        #expect(ReadingColumns.text(of: Self.segments) == "1/40/40,3/40/135,2/135/135,5/135/138")
        #expect(ReadingColumns.sleepSegments(ReadingColumns.text(of: Self.segments)[...]) == Self.segments)
        for bad in ["1/8421/312", "1/8421/312/6120/1/2", "1/x/312/6120", "1/8421/312/6120,"] {
            #expect(ReadingColumns.sportTotals(bad[...]) == nil, "\(bad)")
        }
        for bad in ["1/40", "1/40/40/40", "a/40/40", "1/40/40,"] {
            #expect(ReadingColumns.sleepSegments(bad[...]) == nil, "\(bad)")
        }
        // a type outside 1–6 is not a sleep segment
        #expect(
            Reading(
                kind: .bandDay, measuredAt: Timestamp(secondsSince1970: Self.date.daysSince1970 * 86_400),
                values: [
                    (ReadingKind.bandDay.field(named: "steps")!, .integer(1)),
                    (ReadingKind.bandDay.field(named: "cal")!, .integer(1)),
                    (ReadingKind.bandDay.field(named: "dist")!, .integer(1)),
                    (ReadingKind.bandDay.field(named: "deep")!, .integer(1)),
                    (ReadingKind.bandDay.field(named: "light")!, .integer(1)),
                    (ReadingKind.bandDay.field(named: "awake")!, .integer(1)),
                    (
                        ReadingKind.bandDay.field(named: "sleepsegs")!,
                        .sleepSegments([.init(type: 7, start: 1, end: 2)])
                    ),
                ]) == nil)
    }

    @Test("a schema-8 home opens, its days read with empty lists; the band's day again fills them in place")
    func upgradedHome() throws {
        let directory = try TemporaryDirectory("band-lists")
        defer { directory.remove() }
        let path = directory.file("vitalbridge.sqlite")
        let items = [DayItem(date: Self.date, kind: 2, key: 1, bytes: [1])]
        do {
            let store = try VitalStore(path: path)
            try store.readings.storeDayItems(items, device: Self.device) { _, _ in Self.day() }
        }
        // the store as schema 8 left it: none of the columns, migrations 9 and 10 not applied
        try DatabaseQueue(path: path).writeWithoutTransaction { db in
            try db.execute(
                sql: """
                    ALTER TABLE reading DROP COLUMN sporttotals;
                    ALTER TABLE reading DROP COLUMN sleepsegs;
                    ALTER TABLE reading DROP COLUMN wave;
                    DELETE FROM grdb_migrations WHERE identifier LIKE 'v9:%' OR identifier LIKE 'v10:%';
                    PRAGMA user_version = 8;
                    """)
        }
        let store = try VitalStore(path: path)
        #expect(try store.pragma("user_version") == "\(VitalStore.schemaVersion)")
        let before = try #require(try store.readings.all(device: Self.device).first)
        #expect(before.reading == Self.day())
        // the band sends the day again, with its marks: one reading, revised
        let filled = Self.day(totals: Self.totals, segments: Self.segments)
        let more = items + [DayItem(date: Self.date, kind: 4, key: 40, bytes: [2])]
        #expect(try store.readings.storeDayItems(more, device: Self.device) { _, _ in filled } == 1)
        let after = try store.readings.all(device: Self.device)
        #expect(after.map(\.id) == [before.id])
        #expect(after.map(\.reading) == [filled])
    }
}
