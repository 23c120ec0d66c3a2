import LayeredClient
import LayeredProtocol
import Testing
import VitalCore

/// `ReceivedDay` reads the extension of a band's `sportdata`: steps, distance and the band's detail (issue 37).
@Suite("ReceivedDay: a band's sports whole")
struct ReceivedSportTests {
    static func response(_ sportdata: String, unit: String = "10") throws(LayeredError) -> LayeredResponse {
        let object = #"{"time":"2026-11-20","activedata":{"steps":1,"calories":2},"sportdata":"# + sportdata + "}"
        return try LayeredResponse(
            parsing: "myapp://?cmd=2&devicemodel=700&mac=004D3208D310&unit=\(unit)&status=0&result="
                + PercentEncoding.encode("[\(object)]"))
    }

    @Test("the scheme article's example reads typed: steps, distance in the unit, the detail's members")
    func articleExample() throws {
        let sports = try Self.response(
            #"[{"type":2,"start":"12:05:00","end":"12:15:00","calories":80,"steps":0,"distance":0.00,"detail":{"count":220,"activity":10}},{"type":1,"start":"18:00:00","end":"18:40:00","calories":300,"steps":4200,"distance":2.94}]"#
        ).readings.first?.day?.sports
        #expect(sports?.count == 2)
        #expect(
            sports?[0].detail?.count == 220 && sports?[0].detail?.activity == 10 && sports?[0].detail?.distance == nil)
        #expect(sports?[0].steps == 0 && sports?[1].steps == 4200)
        #expect(sports?[1].distance?.description == "2.94" && sports?[1].detail == nil)
        #expect(
            try Self.response(
                #"[{"type":2,"start":"12:05:00","end":"12:15:00","calories":80,"steps":0,"distance":0.00,"detail":{"count":220,"activity":10}}]"#
            ).readings.first?.day?.description == "sports 0x02 12:05:00–12:15:00 80 kcal 0 steps 220 reps")
    }

    @Test("a caller of before the extension: a sport with its four keys only reads as it did")
    func fourKeys() throws {
        let sport = try Self.response(#"[{"type":1,"start":"08:10:00","end":"08:45:00","calories":120}]"#)
            .readings.first?.day?.sports.first
        #expect(sport?.steps == nil && sport?.distance == nil && sport?.detail == nil && sport?.calories == 120)
    }

    @Test(
        "a detail or extension member of the wrong shape is refused, naming it",
        arguments: [
            (
                #"[{"type":2,"start":"12:05:00","end":"12:15:00","detail":7}]"#,
                "result object 1 has sportdata[0].detail that is not an object"
            ),
            (
                #"[{"type":2,"start":"12:05:00","end":"12:15:00","detail":{"count":2.5}}]"#,
                "result object 1 has sportdata[0].detail.count that is not a whole number"
            ),
            (
                #"[{"type":2,"start":"12:05:00","end":"12:15:00","distance":"far"}]"#,
                "result object 1 has sportdata[0].distance that is not a number"
            ),
        ])
    func badShapes(sportdata: String, message: String) throws {
        do {
            _ = try Self.response(sportdata)
            Issue.record("accepted \(sportdata)")
        } catch {
            #expect(error.message == message, "\(error)")
        }
    }
}
