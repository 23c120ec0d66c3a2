import Foundation
import LayeredProtocol
import Testing
import VitalCore
import VitalDevices
import VitalSimulation
import VitalTestSupport

/// The band's fleet with the wearer's presses scripted, at times after the world's start (2026-11-20 12:00).
func bandFleet(presses: [(String, String)]) -> Fleet {
    var fleet = bandFleet(days: 1)
    if let index = fleet.devices.firstIndex(where: { $0.mac == bandMAC }) {
        fleet.devices[index].presses = presses.map { PressScript(at: $0.0, button: $0.1) }
    }
    return fleet
}

@Suite("vitalbridge band: state, switches, schedule info and the wearer's presses (issue 37)")
struct BandSettingsStateTests {
    /// The lines `band state` prints, minus `connected: yes`.
    static func state(_ home: TestHome) throws -> [String] {
        let output = try home.band("state")
        #expect(output.status == 0, "\(output.stderr)")
        let lines = output.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "connected: yes")
        return Array(lines.dropFirst())
    }

    @Test("sport-data and hourly-hr switch each push on its own; band state says to whom the band is bound")
    func switchesAndState() throws {
        let home = try TestHome(fleet: bandFleet(days: 1))
        _ = try home.callback(request(.add, .fitPro9614N))
        #expect(
            try Self.state(home) == ["bound: no", "sport data: off", "hourly heart rate: off", "camera mode: off"])
        for (arguments, said) in [
            (["bind", "--user-id", "1111"], "bound to user 1111"), (["sport-data", "on"], "sport data on"),
        ] {
            let output = try home.run(["band"] + arguments + ["--home", home.path, "--mac", bandMAC])
            #expect(output.status == 0 && output.stdout == said + "\n", "\(output.stderr)")
        }
        #expect(
            try Self.state(home) == [
                "bound: yes, to user 1111", "sport data: on", "hourly heart rate: off", "camera mode: off",
            ])
        #expect(try home.band("hourly-hr", "on").stdout == "hourly heart rate on\n")
        #expect(try home.band("sport-data", "off").stdout == "sport data off\n")
        #expect(try home.band("unbind").status == 0)
        #expect(try Self.state(home) == ["bound: no", "sport data: off", "hourly heart rate: on", "camera mode: off"])
        #expect(try home.band("hourly-hr", "off").status == 0)
        #expect(try Self.state(home)[2] == "hourly heart rate: off")
        // the first command stored what the band held, as every band command does
        #expect(try !home.bandItems().isEmpty)
    }

    @Test("band state of a band out of range is one line saying it did not connect, exit 1")
    func outOfRange() throws {
        var fleet = bandFleet(days: 1)
        let home = try TestHome(fleet: fleet)
        _ = try home.callback(request(.add, .fitPro9614N))
        fleet.devices[fleet.devices.firstIndex { $0.mac == bandMAC }!].inRange = false
        try Data(fleet.json).write(to: URL(fileURLWithPath: home.path + "/fleet.json"))
        let output = try home.band("state")
        #expect(output.status == 1 && output.stdout.isEmpty, "\(output.stdout)")
        #expect(output.stderr.hasPrefix("FitPro9614N \(bandMAC): band state failed: "))
        #expect(output.stderr.split(separator: "\n").count == 1, "\(output.stderr)")
    }

    @Test("a switch that is neither on nor off is a usage error naming the argument, and nothing is sent")
    func badSwitch() throws {
        let home = try TestHome(fleet: bandFleet(days: 1))
        _ = try home.callback(request(.add, .fitPro9614N))
        let before = try home.run(["fleet", "show", "--home", home.path]).stdout
        for command in ["sport-data", "hourly-hr"] {
            let output = try home.band(command, "maybe")
            #expect(output.status == 2 && output.stderr.contains("'maybe'"), "\(command): \(output.stderr)")
            #expect(output.stdout.isEmpty)
        }
        #expect(try home.run(["fleet", "show", "--home", home.path]).stdout == before)
    }

    @Test("band sedentary --repeat sets the weekly repeat bit, --once clears it, and neither keeps it")
    func sedentaryRepeat() throws {
        let home = try TestHome(fleet: bandFleet(days: 1))
        _ = try home.callback(request(.add, .fitPro9614N))
        let weekly = try home.band("sedentary", "--from", "9", "--to", "17", "--days", "weekdays", "--repeat", "--on")
        #expect(
            weekly.status == 0 && weekly.stdout == "sedentary reminder: on, 9 to 17, weekdays, every week\n",
            "\(weekly.stderr)")
        let kept = try home.band("sedentary", "--days", "mon")
        #expect(
            kept.status == 0 && kept.stdout == "sedentary reminder: on, 9 to 17, mon, every week\n", "\(kept.stderr)")
        let once = try home.band("sedentary", "--once")
        #expect(once.status == 0 && once.stdout == "sedentary reminder: on, 9 to 17, mon, once\n", "\(once.stderr)")
        let refused = try home.band("sedentary", "--from", "9", "--to", "17", "--days", "", "--repeat")
        #expect(refused.status != 0 && refused.stderr.contains("--days"), "\(refused.stderr)")
    }

    @Test("schedule limits are checked against the band's schedule info before writing, naming the field")
    func scheduleLimits() throws {
        let home = try TestHome(fleet: bandFleet(days: 1))
        _ = try home.callback(request(.add, .fitPro9614N))
        let empty = try home.band("schedule", "info")
        #expect(empty.status == 0 && empty.stdout == "0 schedule(s) set, at most 4 a day\n", "\(empty.stderr)")
        for time in ["10:00", "10:01", "12:30", "23:59"] {
            let added = try home.band("schedule", "add", "--date", "2026-11-25", "--time", time, "--title", "Pills")
            #expect(added.status == 0 && added.stdout == "schedule written\n", "\(added.stderr)")
        }
        _ = try home.band("schedule", "add", "--date", "2026-11-26", "--time", "08:00", "--title", "Physio")
        let listing =
            "5 schedule(s) set, at most 4 a day\n2026-11-25 10:00\n2026-11-25 10:01\n2026-11-25 12:30\n"
            + "2026-11-25 23:59\n2026-11-26 08:00\n"
        #expect(try home.band("schedule", "info").stdout == listing)
        let fifth = try home.band("schedule", "add", "--date", "2026-11-25", "--time", "11:00", "--title", "x")
        #expect(
            fifth.status == 1
                && fifth.stderr
                    == "refused: schedule.date the band holds at most 4 entries a day (2026-11-25 has them)\n",
            "\(fifth.stderr)")
        let twice = try home.band("schedule", "add", "--date", "2026-11-26", "--time", "08:00", "--title", "y")
        #expect(
            twice.status == 1
                && twice.stderr == "refused: schedule.time another entry is at 2026-11-26 08:00:00 already\n",
            "\(twice.stderr)")
        // nothing was written: the band lists the same entries
        #expect(try home.band("schedule", "info").stdout == listing)
        #expect(try home.band("schedule", "clear").status == 0)
        #expect(try home.band("schedule", "info").stdout == "0 schedule(s) set, at most 4 a day\n")
    }

    @Test("band sports lists the band's own names and units beside the document's table")
    func sportNames() throws {
        let home = try TestHome(fleet: bandFleet(days: 1))
        _ = try home.callback(request(.add, .fitPro9614N))
        let output = try home.band("sports")
        #expect(output.status == 0, "\(output.stderr)")
        let lines = output.stdout.split(separator: "\n")
        #expect(lines.first == "at most 5 active at once" && lines.count == 1 + BandSport.table.count)
        #expect(lines.contains("0x1  walk  走路 (步)") && lines.contains("0x88  cycling  骑行 (米)"), "\(output.stdout)")
        #expect(lines.contains("0x8E  tablet support  平板支撑 (秒)"))
    }

    @Test("band follow reports the fleet's find-phone presses, and take-picture presses only in camera mode")
    func wearerPresses() throws {
        let presses = [
            ("2026-11-20 12:30:00", "findPhone"), ("2026-11-20 13:15:00", "takePicture"),
            ("2026-11-20 14:45:00", "takePicture"), ("2026-11-20 16:00:00", "findPhone"),
        ]
        let home = try TestHome(fleet: bandFleet(presses: presses))
        _ = try home.callback(request(.add, .fitPro9614N))
        #expect(try home.band("camera", "on").status == 0)
        let output = try home.band("follow", "--hours", "3")
        #expect(output.status == 0, "\(output.stderr)")
        let lines = output.stdout.split(separator: "\n").filter { $0.hasPrefix("the wearer") }
        // the press at 16:00 comes after the three hours followed: lost, as on a band nobody follows
        #expect(
            lines == [
                "the wearer pressed find-phone", "the wearer took a picture", "the wearer took a picture",
            ], "\(output.stdout)")
        // in camera mode off, the band shows no camera button: only find-phone comes through
        let plain = try TestHome(fleet: bandFleet(presses: presses))
        _ = try plain.callback(request(.add, .fitPro9614N))
        let followed = try plain.band("follow", "--hours", "5")
        #expect(
            followed.stdout.split(separator: "\n").filter { $0.hasPrefix("the wearer") } == [
                "the wearer pressed find-phone", "the wearer pressed find-phone",
            ], "\(followed.stdout)")
    }
}
