import Foundation
import LayeredProtocol
import Testing
import VitalCore
import VitalDevices
import VitalSimulation
import VitalStore
import VitalTestSupport

/// `band info` through the real process: the band's clock, read, set and shown; a band reset restarts it.
@Suite("vitalbridge band info: the band's clock")
struct BandClockCLITests {
    /// The built-in fleet, its band having recorded for a day with its clock `offset` seconds ahead.
    static func home(offset: Int?) throws -> TestHome {
        let home = try TestHome(fleet: bandFleet(days: 1, clockOffset: offset))
        _ = try home.callback(request(.add, .fitPro9614N))
        return home
    }

    /// The `clock:` line of `band info`.
    static func clockLine(_ home: TestHome) throws -> String {
        let info = try home.band("info")
        #expect(info.status == 0, "\(info.stderr)")
        return info.stdout.split(separator: "\n").last.map(String.init) ?? ""
    }

    @Test("a clock 2 h 5 s ahead is shown, set, and found right next time; what it dated is stored 2 h earlier")
    func ahead() throws {
        let home = try Self.home(offset: 7_205)
        let first = try Self.clockLine(home)
        #expect(
            first.hasPrefix("clock: showed 2026-11-20 14:00:")
                && first.hasSuffix(", 2 h 0 min 5 s ahead of the hub's; set to the hub's time"), "\(first)")
        #expect(try Self.clockLine(home).hasSuffix(", right (0 s off)"))
        // the band recorded a day by its clock, from 14:00 on its clock: the hours stored are the true day's
        let stored = try home.heartRateHours()
        #expect(stored == hours(from: bandStart.secondsSince1970 - 86_400, to: bandStart.secondsSince1970))
        // its days carry no mark: the clock was read
        let days = try home.store().readings.all(device: MACAddress(bandMAC)!)
        #expect(!days.isEmpty && days.allSatisfy { $0.reading.annotations.status.isEmpty })
    }

    @Test("band follow with a clock 2 h off: what the band held is moved, its clock set, every later hour true")
    func follow() throws {
        let home = try Self.home(offset: 7_205)
        let output = try home.band("follow", "--hours", "12")
        #expect(output.status == 0, "\(output.stderr)")
        let start = bandStart.secondsSince1970 - 86_400
        #expect(try home.heartRateHours() == hours(from: start, to: bandStart.secondsSince1970 + 12 * 3_600))
        #expect(try Self.clockLine(home).hasSuffix("right (0 s off)"))
    }

    @Test("after a factory reset the band's clock shows 2000: the next info says it restarted, and sets it")
    func reset() throws {
        let home = try Self.home(offset: nil)
        #expect(try Self.clockLine(home) == "clock: showed 2026-11-20 12:00:00, right (0 s off)")
        #expect(try home.band("reset", "--yes").status == 0)
        let line = try Self.clockLine(home)
        #expect(
            line.hasPrefix("clock: showed 2000-01-01 00:00:")
                && line.contains("(the clock had restarted)") && line.hasSuffix("; set to the hub's time"), "\(line)")
        #expect(try Self.clockLine(home).hasSuffix("right (0 s off)"))
        // nothing the band holds was dated in 2000
        #expect(try home.bandItems().allSatisfy { ($0.date?.components.year ?? 2026) == 2026 })
    }
}
