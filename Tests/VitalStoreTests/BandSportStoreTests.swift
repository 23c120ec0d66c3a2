import Testing
import VitalCore

@testable import VitalStore

/// A band day's sports keep each session's steps, distance and detail in the store's existing `sports` column,
/// with no migration: a day stored before reads as it did (issue 37).
@Suite("Band sports in the store")
struct BandSportStoreTests {
    static let day = CalendarDate(year: 2026, month: 11, day: 20)!

    static func bandDay(_ sports: [BandDay.Sport]) -> Reading {
        .band(
            BandDay(
                date: day, steps: 8421, calories: 312, distance: 6120, sleep: .init(deep: 95, light: 270, awake: 47),
                heartRate: nil, sports: sports))
    }

    @Test("a session's steps, distance and detail read back as stored, every member present or not")
    func roundTrip() throws {
        let sports: [BandDay.Sport] = [
            .init(type: 2, start: 725, end: 735, calories: 80, steps: 0, distance: 0, count: 220, activity: 10),
            .init(type: 1, start: 1080, end: 1120, calories: 300, steps: 4200, distance: 2940),
            .init(type: 4, start: 760, end: 770, calories: 90, steps: 0, distance: 0, detailDistance: 12),
            .init(type: 136, start: 1100, end: 1130, calories: 310),
        ]
        #expect(
            ReadingColumns.text(of: sports)
                == "2/725/735/80/0/0/220/10/,1/1080/1120/300/4200/2940///,4/760/770/90/0/0///12,136/1100/1130/310")
        #expect(ReadingColumns.sports(ReadingColumns.text(of: sports)[...]) == sports)
        let store = try VitalStore()
        let device = MACAddress("004D3208D310")!
        let items = [DayItem(date: Self.day, kind: 3, key: 725, bytes: [1])]
        try store.readings.storeDayItems(items, device: device) { _, _ in Self.bandDay(sports) }
        #expect(try store.readings.all(device: device).first?.reading == Self.bandDay(sports))
    }

    @Test("a day stored before the extension (four numbers a sport) reads unchanged; a malformed sport is refused")
    func olderRows() {
        #expect(
            ReadingColumns.sports("1/490/525/120,128/1080/1120/300")
                == [
                    .init(type: 1, start: 490, end: 525, calories: 120),
                    .init(type: 128, start: 1080, end: 1120, calories: 300),
                ])
        for bad in ["1/490/525", "1/490/525/120/5", "1/490/525/120/1/2/x//", "1/490/525/120/1/2/3/4/5/6"] {
            #expect(ReadingColumns.sports(bad[...]) == nil, "\(bad)")
        }
    }
}
