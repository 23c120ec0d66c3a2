import Testing
import VitalCore

@testable import LayeredProtocol

/// The extension of a band day's `sportdata` (issue 37): each session's steps, distance and `detail_data`, after
/// the four keys callers already read, and counted in the URL budget.
@Suite("Smartband sports extension in the result")
struct BandSportExtensionTests {
    static let day = CalendarDate(year: 2026, month: 11, day: 20)!

    /// The URL scheme article's example: sit-ups with their repetitions, then an evening walk.
    static let example = BandDay(
        date: day, steps: 8421, calories: 312, distance: 6120, sleep: .init(deep: 95, light: 270, awake: 47),
        heartRate: nil,
        sports: [
            .init(type: 2, start: 725, end: 735, calories: 80, steps: 0, distance: 0, count: 220, activity: 10),
            .init(type: 1, start: 1080, end: 1120, calories: 300, steps: 4200, distance: 2940),
        ])

    @Test("the article's example: the four keys first, then steps, distance and the detail the band sent")
    func articleExample() {
        let json = Reading.band(Self.example).resultObject(unit: .kilometre).json
        #expect(
            json.hasSuffix(
                #""sportdata":[{"type":2,"start":"12:05:00","end":"12:15:00","calories":80,"steps":0,"distance":0.00,"detail":{"count":220,"activity":10}},{"type":1,"start":"18:00:00","end":"18:40:00","calories":300,"steps":4200,"distance":2.94}]}"#
            ), "\(json)")
    }

    @Test("distances follow the unit, the detail's too; a sport stored before steps were kept has the four keys only")
    func unitsAndOldSports() {
        var day = Self.example
        day.sports[0].detailDistance = 1609
        let miles = Reading.band(day).resultObject(unit: .mile).list(.sportData)!
        #expect(miles[0].object(.detail)?.number(.distance)?.description == "1.00")
        #expect(miles[1].number(.distance)?.description == "1.83")
        day.sports = [.init(type: 1, start: 490, end: 525, calories: 120)]
        #expect(
            Reading.band(day).resultObject(unit: .kilometre).json.hasSuffix(
                #""sportdata":[{"type":1,"start":"08:10:00","end":"08:45:00","calories":120}]}"#))
    }

    @Test("the extension counts in the URL budget: fewer days fit, each URL within it, each day whole")
    func budget() throws {
        let callback = try LayeredCallback(
            destination: "myapp://", echo: [], status: .success(.sync), mac: MACAddress("004D3208D310")!)
        let plain = (0..<40).map { index in
            var day = Self.example
            day.date = CalendarDate(daysSince1970: Self.day.daysSince1970 + Int64(index))
            day.sports = day.sports.map { .init(type: $0.type, start: $0.start, end: $0.end, calories: $0.calories) }
            return Reading.band(day)
        }
        let extended = (0..<40).map { index in
            var day = Self.example
            day.date = CalendarDate(daysSince1970: Self.day.daysSince1970 + Int64(index))
            return Reading.band(day)
        }
        let budget = 6_000
        let plainPacked = try LayeredCallback.packing(
            callback, readings: plain, unit: .kilometre, maximumLength: budget)
        let packed = try LayeredCallback.packing(callback, readings: extended, unit: .kilometre, maximumLength: budget)
        #expect(plainPacked.url.utf8.count <= budget && packed.url.utf8.count <= budget)
        #expect(packed.included.count < plainPacked.included.count && packed.included.count > 0)
        #expect(packed.callback.remaining == extended.count - packed.included.count)
        let parsed = try LayeredCallback(parsing: packed.url)
        #expect(parsed.result == .list(packed.included.map { extended[$0].resultObject(unit: .kilometre) }))
        let more = packed.included.count + 1
        let longer = try LayeredCallback(
            destination: "myapp://", echo: [], status: .success(.sync), mac: MACAddress("004D3208D310")!,
            result: .list(extended.prefix(more).map { $0.resultObject(unit: .kilometre) }),
            remaining: extended.count - more
        ).url
        #expect(longer.utf8.count > budget)
    }
}
