import Foundation
import LayeredClient
import LayeredProtocol
import TestRequirements
import Testing
import VitalCore
import VitalDevices
import VitalStore
import VitalTestSupport

/// A band's per-sport day totals and its night's segments reach the caller, `records`, the report and `vitalbridge
/// callback` through the real process (issue 37): the simulated band's days have walking, an evening sport and a
/// counting exercise, and nights of start, light, deep, wake-up, end and placed segments.
@Suite("vitalbridge band: sport totals and sleep segments")
struct BandDayListsCLITests {
    /// The stored items of `home`'s band: its totals and its sleep segments, by day.
    static func stored(_ home: TestHome) throws -> (
        totals: [String: [BandTotals]], nights: [String: [BandSleepSegment]]
    ) {
        var totals: [String: [BandTotals]] = [:]
        var nights: [String: [BandSleepSegment]] = [:]
        for item in try home.bandItems() {
            switch item {
            case .dayTotals(let date, let total): totals[date.description, default: []].append(total)
            case .sleep(let segment): nights[segment.date.description, default: []].append(segment)
            default: break
            }
        }
        return (totals, nights)
    }

    @Test("a sync's callback carries each day's totals by sport and its night in order, start, end and placed among it")
    func callback() throws {
        let home = try TestHome(fleet: bandFleet(days: 3))
        let output = try home.open(request(.addSync, .fitPro9614N))
        #expect(output.status == 0, "\(output.stderr)")
        let url = String(output.stdout.dropLast())
        guard case .list(let days)? = try LayeredCallback(parsing: url).result else {
            Issue.record("no result in \(url)")
            return
        }
        let (totals, nights) = try Self.stored(home)
        #expect(totals.values.contains { $0.count >= 3 } && nights.count >= 3)
        var nightsSent = 0
        for day in days {
            let time = day.string(.time) ?? ""
            let active = try #require(day.object(.activeData))
            let sent = active.list(.sports) ?? []
            let expected = (totals[time] ?? []).sorted { $0.sport.rawValue < $1.sport.rawValue }
            #expect(sent.map { $0.number(.type)?.doubleValue } == expected.map { Double($0.sport.rawValue) }, "\(time)")
            #expect(sent.map { $0.number(.steps)?.doubleValue } == expected.map { Double($0.steps) }, "\(time)")
            #expect(sent.map { $0.number(.count)?.doubleValue } == expected.map { $0.count.map(Double.init) })
            if !sent.isEmpty {
                // the sums stay as they were
                #expect(active.number(.steps)?.doubleValue == Double(expected.map(\.steps).reduce(0, +)))
            }
            let segments = day.object(.sleepData)?.list(.segments) ?? []
            guard let night = nights[time] else {
                #expect(segments.isEmpty, "\(time)")
                continue
            }
            nightsSent += 1
            let types = segments.compactMap { $0.number(.type).map { Int($0.doubleValue) } }
            #expect(types.count == night.count)
            // start first, then the night, then end, then placed
            #expect(types.first == 1 && types.suffix(2) == [2, 5], "\(time): \(types)")
            #expect(Set(types) == [1, 2, 3, 4, 5, 6], "\(time): \(types)")
            let starts = segments.compactMap { $0.number(.start)?.doubleValue }
            #expect(starts == starts.sorted())
        }
        #expect(nightsSent == nights.count)
        // LayeredClient reads them typed, and `vitalbridge callback` shows them
        let response = try LayeredResponse(parsing: url)
        let received = response.readings.compactMap(\.day)
        #expect(received.contains { $0.sportTotals.count >= 3 })
        #expect(received.contains { $0.sleepSegments.map(\.name).contains("placed") })
        let shown = try home.run(["callback", url])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("sport totals 0x01 ") && shown.stdout.contains(" reps"), "\(shown.stdout)")
        #expect(
            shown.stdout.contains("sleep segments start ") && shown.stdout.contains(", placed "), "\(shown.stdout)")
    }

    @Test("records carries the totals and the segments in the table, CSV and JSON; the report shows the last day's")
    func recordsAndReport() throws {
        let home = try TestHome(fleet: bandFleet(days: 2))
        _ = try home.callback(request(.addSync, .fitPro9614N))
        let (totals, nights) = try Self.stored(home)
        let counted = try #require(totals.values.joined().first { $0.count != nil })
        let lastNight = try #require(nights.keys.max())
        let night = nights[lastNight]!
        let start = try #require(night.first { $0.type == .startSleep })
        let placed = try #require(night.first { $0.type == .placed })
        let lastTotals = try #require(totals.keys.max())
        let walk = try #require(totals[lastTotals]?.first { $0.sport == .walk })
        let time = { (minute: MinuteOfDay) in String(minute.description.prefix(5)) }
        let totalText =
            "\(counted.sport.rawValue) \(counted.steps)steps \(counted.calories)kcal \(counted.distance)m "
            + "\(counted.count!)reps"
        for format in ["table", "csv", "json"] {
            let output = try home.run(["records", "--home", home.path, "--format", format, "--device", bandMAC])
            #expect(output.status == 0, "\(output.stderr)")
            #expect(output.stdout.contains(totalText), "\(format)")
            #expect(output.stdout.contains("start \(time(start.start)); light "), "\(format)")
            #expect(output.stdout.contains("; placed \(time(placed.start))-\(time(placed.end))"), "\(format)")
        }
        let csv = try home.run(["records", "--home", home.path, "--format", "csv", "--device", bandMAC])
        #expect(csv.stdout.contains(",sport_totals,sleep_segments,wave,flags\r\n"))
        let json = try home.run(["records", "--home", home.path, "--format", "json", "--device", bandMAC])
        #expect(json.stdout.contains("\"sport_totals\":\"") && json.stdout.contains("\"sleep_segments\":\""))

        let report = try home.run(["report", "--home", home.path, "--out", "-"])
        #expect(report.status == 0, "\(report.stderr)")
        #expect(report.stdout.contains("Sport totals") && report.stdout.contains("Sleep segments"))
        #expect(report.stdout.contains("sport 1 \(walk.steps) steps, \(walk.calories) kcal"), "\(report.stdout)")
        #expect(report.stdout.contains("start \(time(start.start)), light "))
        #expect(report.stdout.contains(", placed \(time(placed.start))–\(time(placed.end))"))
    }

    @Test(
        "a schema-8 home opens: its days read without the lists; a day the band sends again gets them, revised in place",
        .needs(.python3))
    func upgradedHome() throws {
        let home = try TestHome(fleet: bandFleet(days: 2))
        _ = try home.callback(request(.addSync, .fitPro9614N))
        let days = try home.store().readings.all(device: MACAddress(bandMAC)!)
        #expect(days.contains { if case .band(let day) = $0.reading { !day.sleepSegments.isEmpty } else { false } })
        // the home as schema 8 left it: none of the columns, migrations 9 and 10 not applied
        let downgrade = try runProgram(
            "/usr/bin/env",
            [
                "python3", "-c",
                """
                import sqlite3, sys
                c = sqlite3.connect(sys.argv[1], isolation_level=None)
                c.execute('ALTER TABLE reading DROP COLUMN sporttotals')
                c.execute('ALTER TABLE reading DROP COLUMN sleepsegs')
                c.execute('ALTER TABLE reading DROP COLUMN wave')
                c.execute("DELETE FROM grdb_migrations WHERE identifier LIKE 'v9:%' OR identifier LIKE 'v10:%'")
                c.execute('PRAGMA user_version = 8')
                c.close()
                """,
                home.path + "/vitalbridge.sqlite",
            ])
        #expect(downgrade.status == 0, "\(downgrade.stderr)")
        // a command that only reads upgrades the home first, as every command does for an older home
        let read = try home.run(["records", "--home", home.path, "--format", "csv", "--device", bandMAC])
        #expect(read.status == 0 && read.stderr.isEmpty, "\(read.stderr)")
        let upgraded = try home.store().readings.all(device: MACAddress(bandMAC)!)
        #expect(upgraded.map(\.id) == days.map(\.id))
        for stored in upgraded {
            guard case .band(let day) = stored.reading else { continue }
            #expect(day.sportTotals.isEmpty && day.sleepSegments.isEmpty)
        }
        let records = try home.run(["records", "--home", home.path, "--format", "csv", "--device", bandMAC])
        #expect(records.status == 0, "\(records.stderr)")
        #expect(records.stdout.contains("band_day") && !records.stdout.contains("placed "))
        // the band goes on: today's totals grow and its hours complete, so today is sent again and made again
        // from all its stored items, marks included; the days it does not send again keep empty lists
        let follow = try home.band("follow", "--hours", "2")
        #expect(follow.status == 0, "\(follow.stderr)")
        let after = try home.store().readings.all(device: MACAddress(bandMAC)!)
        #expect(Set(after.map(\.id)).isSuperset(of: days.map(\.id)))
        let today = try #require(after.first { $0.id == days.last?.id })
        guard case .band(let revised) = today.reading else {
            Issue.record("not a band day: \(today.reading)")
            return
        }
        #expect(!revised.sportTotals.isEmpty && revised.sleepSegments.map(\.type).contains(5))
        #expect(after.filter { $0.reading.measuredAt == today.reading.measuredAt }.count == 1)
    }
}
