import Foundation
import LayeredProtocol
import Testing
import VitalCore
import VitalDevices
import VitalSimulation
import VitalTestSupport

/// `band options`, `alarms`, `alarm`, `sedentary`, `personal` and `targets` read the band's settings back, and change
/// only what they name; each run is a process of its own, so what one run set is what the simulated band kept in
/// the home's state (issue 52).
@Suite("vitalbridge band: settings read back from the band, and changed only where named (issue 52)")
struct BandSettingsReadBackTests {
    /// A home with the Fit Pro 9614N added.
    static func home() throws -> TestHome {
        let home = try TestHome(fleet: bandFleet(days: 1))
        _ = try home.callback(request(.add, .fitPro9614N))
        return home
    }

    /// Runs `band ARGUMENTS`, expecting success, and returns what it printed.
    static func ok(_ home: TestHome, _ arguments: String...) throws -> String {
        let output = try home.run(["band"] + arguments + ["--home", home.path, "--mac", bandMAC])
        #expect(output.status == 0 && output.stderr.isEmpty, "\(arguments): \(output.stderr)")
        return output.stdout
    }

    @Test("band options --units imperial changes the units and keeps every other option; band options prints them")
    func optionsKept() throws {
        let home = try Self.home()
        #expect(
            try Self.ok(home, "options")
                == "units: metric\nclock: 24\nauto-sleep: on\nbacklight: 22-7\nlanguage: english\nle: on\nwrist: on\n")
        _ = try Self.ok(
            home, "options", "--clock", "12", "--auto-sleep", "off", "--backlight", "21-6", "--language", "chinese",
            "--le", "off", "--wrist", "off")
        let changed = try Self.ok(home, "options", "--units", "imperial")
        let expected =
            "units: imperial\nclock: 12\nauto-sleep: off\nbacklight: 21-6\nlanguage: chinese\nle: off\nwrist: off\n"
        #expect(changed == expected)
        // read from the band by a process of its own
        #expect(try Self.ok(home, "options") == expected)
        // a reset erases them, as it erases the band's memory
        _ = try Self.ok(home, "reset", "--yes")
        #expect(try Self.ok(home, "options").hasPrefix("units: metric\nclock: 24\nauto-sleep: on\nbacklight: 22-7\n"))
    }

    @Test("a Smartee Training 9616N reports its background and keeps it when another option changes")
    func background() throws {
        let home = try TestHome(fleet: bandFleet(days: 1))
        _ = try home.callback(request(.add, .smarteeTraining9616N))
        func band(_ arguments: String...) throws -> ProcessOutput {
            try home.run(["band"] + arguments + ["--home", home.path, "--mac", macOf(.smarteeTraining9616N)])
        }
        #expect(try band("options").stdout.contains("white-background: off\n"))
        #expect(try band("options", "--white-background", "on").status == 0)
        let output = try band("options", "--units", "imperial")
        #expect(output.stdout.contains("units: imperial\n") && output.stdout.contains("white-background: on\n"))
    }

    @Test("alarms, the sedentary reminder, the wearer and the sports read back, each changed only where named")
    func readBack() throws {
        let home = try Self.home()
        #expect(try Self.ok(home, "alarms") == (0..<8).map { "alarm \($0): not set\n" }.joined())
        #expect(try Self.ok(home, "alarm", "--id", "3") == "alarm 3: not set\n")
        _ = try Self.ok(home, "alarm", "--id", "3", "--time", "06:30", "--days", "weekdays", "--repeat")
        #expect(
            try Self.ok(home, "alarm", "--id", "3", "--time", "07:00") == "alarm 3: on, 07:00, weekdays, every week\n")
        let alarms = try Self.ok(home, "alarms").split(separator: "\n")
        #expect(
            alarms.count == 8 && alarms[3] == "alarm 3: on, 07:00, weekdays, every week"
                && alarms[4] == "alarm 4: not set")

        #expect(try Self.ok(home, "sedentary") == "sedentary reminder: off, 9 to 17, no day, once\n")
        _ = try Self.ok(home, "sedentary", "--days", "weekdays", "--on")
        #expect(try Self.ok(home, "sedentary", "--to", "18") == "sedentary reminder: on, 9 to 18, weekdays, once\n")

        #expect(try Self.ok(home, "personal") == "wearer: not set\n")
        _ = try Self.ok(
            home, "personal", "--gender", "woman", "--height", "168", "--weight", "60", "--age", "41", "--step-target",
            "8000")
        #expect(
            try Self.ok(home, "wearer", "--weight", "61")
                == "wearer: woman, 168 cm, 61 kg, 41 years, 8000 steps a day\n")

        #expect(try Self.ok(home, "targets") == "no sports set\n")
        _ = try Self.ok(home, "targets", "--sport", "walk=300", "--sport", "cycling=500")
        #expect(
            try Self.ok(home, "targets", "--sport", "swim=200") == "walk: 300 kcal\ncycling: 500 kcal\nswim: 200 kcal\n"
        )
        #expect(try Self.ok(home, "targets", "--remove", "cycling") == "walk: 300 kcal\nswim: 200 kcal\n")
        #expect(try Self.ok(home, "targets") == "walk: 300 kcal\nswim: 200 kcal\n")
        // the schedules' listing still works beside them
        #expect(try Self.ok(home, "schedule", "info") == "0 schedule(s) set, at most 4 a day\n")
    }

    @Test(
        "an option given wrongly is refused in one line naming it, and the band's settings are as they were",
        arguments: [
            (["options", "--backlight", "22-24"], "refused: options.backlightEnd must be 0 to 23\n"),
            (["sedentary", "--to", "8"], "refused: sedentary.end must be after the start hour\n"),
            (["alarm", "--id", "5", "--off"], "refused: alarm.time is required: alarm 5 is not set yet\n"),
            (["alarm", "--id", "8"], "refused: alarm.id must be 0 to 7\n"),
            (["personal", "--weight", "300"], "refused: personal.weight must be 10 to 250 kg\n"),
            (["targets", "--remove", "walk"], "refused: sports must include walking (0x01)\n"),
            (["targets", "--sport", "cycling=0"], "refused: sports[0].target must be 1 to 65535 kcal\n"),
        ] as [([String], String)])
    func refused(arguments: [String], message: String) throws {
        let home = try Self.home()
        _ = try Self.ok(home, "options", "--units", "imperial")
        _ = try Self.ok(home, "sedentary", "--from", "9", "--to", "17")
        _ = try Self.ok(home, "targets", "--sport", "walk=300")
        let settings = ["options", "sedentary", "alarms", "personal", "targets"]
        let before = try settings.map { try Self.ok(home, $0) }
        let output = try home.run(["band"] + arguments + ["--home", home.path, "--mac", bandMAC])
        #expect(output.status == 1 && output.stdout.isEmpty, "\(output.stdout)")
        #expect(output.stderr == message)
        #expect(try settings.map { try Self.ok(home, $0) } == before)
    }

    @Test("a value the option cannot take is a usage error naming the option, and nothing is read or written")
    func usage() throws {
        let home = try Self.home()
        for arguments in [["options", "--units", "furlongs"], ["alarm", "--id", "1", "--on", "--off"]] {
            let output = try home.run(["band"] + arguments + ["--home", home.path, "--mac", bandMAC])
            #expect(output.status == 2 && output.stdout.isEmpty, "\(arguments): \(output.stderr)")
            #expect(output.stderr.contains(arguments.count == 3 ? "--units" : "--off"), "\(output.stderr)")
        }
        #expect(try home.bandItems().isEmpty)
    }
}
