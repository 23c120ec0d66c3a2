import Foundation
import LayeredClient
import LayeredProtocol
import Testing
import VitalCore
import VitalDevices
import VitalTestSupport

/// A band's sports reach the caller and `records` whole, through the real process: each session's steps and
/// distance, and a counting sport's repetitions and detail (issue 37).
@Suite("vitalbridge band: sport sessions whole")
struct BandSportDetailTests {
    @Test("a sync's sportdata keeps its four keys and adds each session's steps, distance and detail, as the band sent")
    func callbackCarriesSessions() throws {
        let home = try TestHome(fleet: bandFleet(days: 3))
        let output = try home.open(request(.addSync, .fitPro9614N))
        #expect(output.status == 0, "\(output.stderr)")
        let url = String(output.stdout.dropLast())
        let callback = try LayeredCallback(parsing: url)
        guard case .list(let days)? = callback.result else {
            Issue.record("no result: \(callback.reason?.rawValue ?? "")")
            return
        }
        // what the band pushed, as stored: each session once
        let sessions = try home.bandItems().compactMap { item -> BandSportSession? in
            if case .sport(let session) = item { session } else { nil }
        }
        #expect(sessions.contains { $0.count != nil } && sessions.contains { $0.detail == nil })
        var sent: [(day: String, sport: ResultObject)] = []
        for day in days {
            guard case .list(let sports)? = day[.sportData] else { continue }
            sent += sports.map { (day.string(.time) ?? "", $0) }
        }
        #expect(sent.count == sessions.count)
        for session in sessions {
            let match = sent.first {
                $0.day == session.date.description && $0.sport.string(.start) == session.start.description
            }
            guard let sport = match?.sport else {
                Issue.record("session \(session.date) \(session.start) not sent")
                continue
            }
            // the existing keys first, in order, then the extension
            #expect(Array(sport.fields.prefix(4).map(\.key)) == [.type, .start, .end, .calories])
            #expect(sport.number(.steps)?.doubleValue == Double(session.steps))
            // km, two decimals
            #expect(abs((sport.number(.distance)?.doubleValue ?? -1) - Double(session.distance) / 1000) <= 0.005001)
            #expect(sport.number(.calories)?.doubleValue == Double(session.calories))
            if let detail = session.detail {
                #expect(sport.object(.detail)?.number(.count)?.doubleValue == detail.count.map(Double.init))
                #expect(sport.object(.detail)?.number(.activity)?.doubleValue == detail.activity.map(Double.init))
            } else {
                #expect(sport[.detail] == nil)
            }
        }
        // LayeredClient reads the extension typed
        let response = try LayeredResponse(parsing: url)
        let received = response.readings.flatMap { $0.day?.sports ?? [] }
        #expect(received.count == sessions.count)
        #expect(
            received.compactMap { $0.detail?.count }.sorted() == sessions.compactMap(\.count).sorted())
        #expect(received.allSatisfy { $0.steps != nil && $0.distance != nil })
    }

    @Test("records shows each session's steps, metres and repetitions in the table, CSV and JSON")
    func recordsCarrySessions() throws {
        let home = try TestHome(fleet: bandFleet(days: 2))
        _ = try home.callback(request(.addSync, .fitPro9614N))
        let sessions = try home.bandItems().compactMap { item -> BandSportSession? in
            if case .sport(let session) = item { session } else { nil }
        }
        let counted = try #require(sessions.first { $0.count != nil })
        let walk = sessions.first { $0.detail == nil }
        for format in ["table", "csv", "json"] {
            let output = try home.run(["records", "--home", home.path, "--format", format, "--device", bandMAC])
            #expect(output.status == 0, "\(output.stderr)")
            let start = String(counted.start.description.prefix(5))
            #expect(
                output.stdout.contains(
                    "\(counted.sport.rawValue) \(start)-\(counted.end.description.prefix(5)) \(counted.calories)kcal "
                        + "0steps 0m \(counted.count!)reps \(counted.detail!.activity!)activity"), "\(format)")
            if let walk {
                #expect(
                    output.stdout.contains("\(walk.calories)kcal \(walk.steps)steps \(walk.distance)m"), "\(format)")
            }
        }
    }

    @Test("the report's latest band day lists its sports with their repetitions and steps")
    func reportCarriesSessions() throws {
        let home = try TestHome(fleet: bandFleet(days: 2))
        _ = try home.callback(request(.addSync, .fitPro9614N))
        let sessions = try home.bandItems().compactMap { item -> BandSportSession? in
            if case .sport(let session) = item { session } else { nil }
        }
        let last = try #require(sessions.map(\.date).max())
        let counted = try #require(sessions.first { $0.date == last && $0.count != nil })
        let report = try home.run(["report", "--home", home.path, "--out", "-"])
        #expect(report.status == 0, "\(report.stderr)")
        #expect(
            report.stdout.contains(
                "sport \(counted.sport.rawValue) \(counted.start.description.prefix(5))–"
                    + "\(counted.end.description.prefix(5)) \(counted.calories) kcal, \(counted.count!) reps"))
    }
}
