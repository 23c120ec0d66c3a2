import Testing
import VitalCore

@testable import LayeredProtocol

/// A band day's totals of each sport (`activedata.sports`) and its sleep segments (`sleepdata.segments`) in the
/// result, counted in the URL budget, and what a day too large on its own leaves out (issue 37).
@Suite("Smartband sport totals and sleep segments in the result")
struct BandDayListsTests {
    static let date = CalendarDate(year: 2026, month: 11, day: 20)!

    /// The URL scheme article's example: walking and sit-ups; a night from 00:40 to 06:40, then the band put down.
    static let example = BandDay(
        date: date, steps: 8421, calories: 392, distance: 6120, sleep: .init(deep: 95, light: 222, awake: 43),
        heartRate: nil, sports: [],
        sportTotals: [
            .init(type: 1, steps: 8421, calories: 312, distance: 6120),
            .init(type: 2, steps: 0, calories: 80, distance: 0, count: 220),
        ],
        sleepSegments: [
            .init(type: 1, start: 40, end: 40), .init(type: 4, start: 40, end: 150),
            .init(type: 3, start: 150, end: 245), .init(type: 4, start: 245, end: 357),
            .init(type: 6, start: 357, end: 400), .init(type: 2, start: 400, end: 400),
            .init(type: 5, start: 400, end: 403),
        ])

    static let callback = try! LayeredCallback(
        destination: "myapp://", echo: [], status: .success(.sync), mac: MACAddress("004D3208D310")!)

    @Test("the article's example: the totals inside activedata after its sums, the segments inside sleepdata in order")
    func articleExample() {
        #expect(
            Reading.band(Self.example).resultObject(unit: .kilometre).json
                == #"{"time":"2026-11-20","activedata":{"steps":8421,"calories":392,"distance":6.12,"sports":[{"type":1,"steps":8421,"calories":312,"distance":6.12},{"type":2,"steps":0,"calories":80,"distance":0.00,"count":220}]},"sleepdata":{"sleeptime":360,"sleepefficiency":88,"deep":95,"light":222,"awake":43,"segments":[{"type":1,"start":40,"end":40},{"type":4,"start":40,"end":150},{"type":3,"start":150,"end":245},{"type":4,"start":245,"end":357},{"type":6,"start":357,"end":400},{"type":2,"start":400,"end":400},{"type":5,"start":400,"end":403}]},"sportdata":[]}"#
        )
    }

    @Test("totals' distances follow the unit; a day without the lists (stored before schema 9) has neither key")
    func unitsAndOldDays() {
        let miles = Reading.band(Self.example).resultObject(unit: .mile)
        #expect(miles.object(.activeData)?.list(.sports)?[0].number(.distance)?.description == "3.80")
        var old = Self.example
        old.sportTotals = []
        old.sleepSegments = []
        let object = Reading.band(old).resultObject(unit: .kilometre)
        #expect(object.object(.activeData)?[.sports] == nil && object.object(.sleepData)?[.segments] == nil)
        #expect(
            object.json
                == #"{"time":"2026-11-20","activedata":{"steps":8421,"calories":392,"distance":6.12},"sleepdata":{"sleeptime":360,"sleepefficiency":88,"deep":95,"light":222,"awake":43},"sportdata":[]}"#
        )
        #expect(Reading.band(old).smallerResultObjects(unit: nil).isEmpty)
    }

    /// A day whose night has `segments` one-minute segments.
    static func longNight(_ segments: Int, day offset: Int64 = 0) -> Reading {
        var day = example
        day.date = CalendarDate(daysSince1970: date.daysSince1970 + offset)
        day.sleepSegments = (0..<segments).map { .init(type: 3 + $0 % 2, start: $0, end: $0 + 1) }
        return .band(day)
    }

    /// The URL of a callback carrying `objects` whole, with nothing remaining.
    static func url(_ objects: [ResultObject]) throws -> String {
        try LayeredCallback(
            destination: "myapp://", echo: [], status: .success(.sync), mac: MACAddress("004D3208D310")!,
            result: .list(objects)
        ).url
    }

    @Test("at the budget's edge a day fits whole; one character less, it goes without its segments, named in leftout")
    func budgetEdge() throws {
        let day = Self.longNight(300)
        let whole = try Self.url([day.resultObject(unit: .kilometre)])
        let exact = try LayeredCallback.packing(
            Self.callback, readings: [day], unit: .kilometre, maximumLength: whole.utf8.count)
        #expect(exact.url == whole && exact.included == [0] && exact.callback.remaining == nil)

        let smaller = try LayeredCallback.packing(
            Self.callback, readings: [day], unit: .kilometre, maximumLength: whole.utf8.count - 1)
        #expect(smaller.included == [0] && smaller.callback.remaining == nil)
        guard case .list(let objects)? = try LayeredCallback(parsing: smaller.url).result, let sent = objects.first
        else {
            Issue.record("no result in \(smaller.url)")
            return
        }
        #expect(sent.object(.sleepData)?[.segments] == nil)
        #expect(sent.object(.activeData)?.list(.sports)?.count == 2)
        #expect(sent.strings(.leftOut) == ["sleepdata.segments"])
        // the sums and minutes stay
        #expect(sent.object(.sleepData)?.number(.deep)?.doubleValue == 95)
        #expect(sent.object(.activeData)?.number(.steps)?.doubleValue == 8421)
        #expect(smaller.url.utf8.count <= whole.utf8.count - 1)

        // then the sport totals go too; below that, the day waits whole, counted in remaining
        let withoutBoth = day.smallerResultObjects(unit: .kilometre)[1]
        #expect(withoutBoth.strings(.leftOut) == ["sleepdata.segments", "activedata.sports"])
        let bare = try Self.url([withoutBoth])
        let both = try LayeredCallback.packing(
            Self.callback, readings: [day], unit: .kilometre, maximumLength: bare.utf8.count)
        #expect(both.url == bare && both.included == [0])
        let none = try LayeredCallback.packing(
            Self.callback, readings: [day], unit: .kilometre, maximumLength: bare.utf8.count - 1)
        #expect(none.included.isEmpty && none.callback.remaining == 1)
    }

    @Test("a long night behind another day waits, whole, for the next callback; it is never made smaller there")
    func secondDayWaits() throws {
        let first = Self.longNight(3, day: 0)
        let second = Self.longNight(300, day: 1)
        let budget = try Self.url([second.resultObject(unit: .kilometre)]).utf8.count
        let packed = try LayeredCallback.packing(
            Self.callback, readings: [second, first], unit: .kilometre, maximumLength: budget)
        #expect(packed.included == [1] && packed.leftOut == [0] && packed.callback.remaining == 1)
        #expect(packed.url.utf8.count <= budget)
        let next = try LayeredCallback.packing(
            Self.callback, readings: [second], unit: .kilometre, maximumLength: budget)
        #expect(next.url == (try Self.url([second.resultObject(unit: .kilometre)])))
    }
}
