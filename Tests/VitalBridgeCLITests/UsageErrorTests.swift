import Foundation
import LayeredProtocol
import Testing
import VitalCore
import VitalTestSupport

/// A usage error is told with its own command's usage, never the root's `Usage: vitalbridge <subcommand>`: every value
/// is read (a transform) or checked (`validate()`) while the command line is parsed, none in `run`.
@Suite("Usage errors name the command they belong to")
struct UsageErrorTests {
    /// The arguments, the command's path, and the error's message.
    static let cases: [([String], String, String)] = [
        (
            ["band", "alarm", "--id", "1", "--time", "6:30", "--days", "mon"], "band alarm",
            "--time must be HH:mm, 00:00 to 23:59"
        ),
        (
            ["band", "alarm", "--id", "1", "--time", "06:30", "--days", "mon,funday"], "band alarm",
            "--days: 'funday' is not a day (mon, tue, wed, thu, fri, sat, sun, weekdays, weekend, every-day)"
        ),
        (
            ["band", "sedentary", "--from", "9", "--to", "17", "--days", "often"], "band sedentary",
            "--days: 'often' is not a day (mon, tue, wed, thu, fri, sat, sun, weekdays, weekend, every-day)"
        ),
        (
            ["band", "targets", "--sport", "walk"], "band targets",
            "--sport must be SPORT=KCAL, e.g. walk=300 (got 'walk')"
        ),
        (
            ["band", "targets", "--sport", "darts=10"], "band targets",
            "--sport: 'darts' is not a sport of the band's table"
        ),
        (
            ["band", "schedule", "add", "--date", "24.11.2026", "--time", "09:30"], "band schedule",
            "--date must be yyyy-MM-dd"
        ),
        (
            ["band", "schedule", "check", "--date", "2026-11-24", "--time", "9h"], "band schedule",
            "--time must be HH:mm, 00:00 to 23:59"
        ),
        (["band", "options", "--backlight", "late"], "band options", "--backlight must be START-END, e.g. 22-7"),
        // found while parsing (validate): these always named their command
        (["band", "reset"], "band reset", "a reset erases the band: confirm with --yes"),
        (["band", "bind", "--user-id", "0"], "band bind", "--user-id must be 1 to 4294967295"),
        // the same cause outside band
        (
            ["dds", "request", "--source", "A", "--callback", "https://a.example/", "--extra", "novalue"],
            "dds request", "--extra must be NAME=VALUE with a name other than source and callback"
        ),
    ]

    @Test("every band command's usage error shows its own usage, exit 2, nothing sent", arguments: cases)
    func ownUsage(arguments: [String], command: String, message: String) throws {
        let home = try TestHome(fleet: bandFleet(days: 1))
        #expect(try home.run(["init", "--home", home.path]).status == 0)
        _ = try home.callback(request(.add, .fitPro9614N))
        let before = try home.run(["fleet", "show", "--home", home.path]).stdout
        let band = arguments[0] == "band" ? ["--home", home.path, "--mac", bandMAC] : []
        let output = try home.run(arguments + band)
        #expect(output.status == 2 && output.stdout.isEmpty)
        let lines = output.stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // a value read as the command line is parsed (a MAC, a time, days, a sport) is refused by ArgumentParser,
        // which names the value and the option before the message
        let first = lines.first ?? ""
        #expect(
            first == "Error: \(message)" || (first.hasPrefix("Error: The value '") && first.hasSuffix("': \(message)")),
            "\(output.stderr)")
        #expect(lines.contains { $0.hasPrefix("Usage: vitalbridge \(command) ") }, "\(output.stderr)")
        #expect(lines.contains("  See 'vitalbridge \(command) --help' for more information."), "\(output.stderr)")
        #expect(!output.stderr.contains("<subcommand>"))
        // the band was never reached
        #expect(try home.run(["fleet", "show", "--home", home.path]).stdout == before)
    }
}
