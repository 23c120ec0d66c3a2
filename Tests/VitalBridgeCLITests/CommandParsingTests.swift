import ArgumentParser
import Testing
import VitalCore
import VitalDevices

@testable import VitalBridgeCLI

/// The command line read in process (`parseAsRoot`), without a binary: what each command refuses before it runs, and
/// what it reads into typed values. The spawned tests keep what only a process shows (exit statuses, output).
@Suite("Command parsing, in process")
struct CommandParsingTests {
    /// The usage error `arguments` make, as the root prints it (ArgumentParser's message).
    static func refusal(_ arguments: [String]) -> String? {
        // parseAsRoot validates too: a refusal is never left to `run`
        do {
            _ = try VitalBridgeCommand.parseAsRoot(arguments)
            return nil
        } catch {
            guard VitalBridgeCommand.exitCode(for: error) == .validationFailure else { return nil }
            return VitalBridgeCommand.message(for: error)
        }
    }

    @Test(
        "each refusal is a usage error naming the option and what it must be",
        arguments: [
            (["device", "info", "--mac", "zz"], "--mac must be 12 hexadecimal digits"),
            (["people", "assign", "Ann", "--mac", "004D3208D2F", "--user-index", "1"], "--mac must be 12 hexadecimal"),
            (
                ["people", "assign", "Ann", "--mac", "004D3208D2F4", "--user-index", "256"],
                "--user-index must be 0 to 255"
            ),
            (["pair", "--mac", "00:4D:32:08:D3"], "--mac must be a Bluetooth address"),
            (
                ["band", "alarm", "--mac", "004D3208D310", "--id", "1", "--time", "24:00", "--days", "mon"],
                "--time must be HH:mm, 00:00 to 23:59"
            ),
            (
                ["band", "alarm", "--mac", "004D3208D310", "--id", "1", "--time", "06:30", "--days", "mon,xyz"],
                "--days: 'xyz' is not a day"
            ),
            (
                ["band", "sedentary", "--mac", "004D3208D310", "--from", "9", "--to", "17", "--days", ""],
                "--days: '' is not a day"
            ),
            (["band", "targets", "--mac", "004D3208D310", "--sport", "walk"], "--sport must be SPORT=KCAL"),
            (
                ["band", "targets", "--mac", "004D3208D310", "--sport", "flying=100"],
                "--sport: 'flying' is not a sport"
            ),
            (["band", "schedule", "add", "--mac", "004D3208D310", "--time", "09:30"], "--date must be yyyy-MM-dd"),
            (
                ["band", "schedule", "add", "--mac", "004D3208D310", "--date", "2026-13-01", "--time", "09:30"],
                "--date must be yyyy-MM-dd"
            ),
            (["band", "schedule", "check", "--mac", "004D3208D310", "--date", "2026-11-24"], "--time must be HH:mm"),
            (["band", "options", "--mac", "004D3208D310", "--backlight", "22"], "--backlight must be START-END"),
            (
                ["dds", "request", "--source", "", "--callback", "https://a.example/"],
                "--source and --callback are required"
            ),
            (
                ["dds", "request", "--source", "A", "--callback", "https://a.example/", "--extra", "source=x"],
                "--extra must be NAME=VALUE with a name other than source and callback"
            ),
            (["svs", "request", "--sign", "XYZ", "--requester", "org.example"], "--sign must be a vital-sign name"),
            (["records", "--home", "/h", "--home", "/i"], "--home may be given once"),
            (["open", "--platform", "windows", "ihealth-layer://?cmd=0"], "windows"),
        ] as [([String], String)])
    func refusals(arguments: [String], message: String) {
        let refusal = Self.refusal(arguments)
        #expect(refusal?.contains(message) == true, "\(arguments): \(refusal ?? "accepted")")
    }

    @Test("options are read into typed values: a MAC with or without colons, times of day, days, sports, extras")
    func typedValues() throws {
        let mac = try #require(MACAddress("004D3208D310"))
        let info = try #require(
            try VitalBridgeCommand.parseAsRoot(["device", "info", "--mac", "004d3208d310"]) as? DeviceCommand.Info)
        #expect(info.device.address == mac)
        let pair = try #require(
            try VitalBridgeCommand.parseAsRoot(["pair", "--mac", "00:4D:32:08:D3:10"]) as? PairCommand)
        #expect(pair.device == mac)
        let alarm = try #require(
            try VitalBridgeCommand.parseAsRoot([
                "band", "alarm", "--mac", "004D3208D310", "--id", "7", "--time", "06:30", "--days", "mon,weekend",
            ]) as? VitalBridgeCLI.BandCommand.Alarm)
        #expect(
            alarm.time?.hour == 6 && alarm.time?.minute == 30
                && alarm.days == BandWeekdays([.monday, .saturday, .sunday]))
        let targets = try #require(
            try VitalBridgeCommand.parseAsRoot([
                "band", "targets", "--mac", "004D3208D310", "--sport", "walk=300", "--sport", "0x0b=50",
            ]) as? VitalBridgeCLI.BandCommand.Targets)
        #expect(targets.targets.map(\.calories) == [300, 50] && targets.targets[1].sport == BandSport(rawValue: 0x0B))
        let request = try #require(
            try VitalBridgeCommand.parseAsRoot([
                "dds", "request", "--source", "A", "--callback", "https://a.example/", "--extra", "visit=7=8",
            ]) as? DDSCommand.Request)
        #expect(request.extra.map(\.name) == ["visit"] && request.extra.map(\.value) == ["7=8"])
    }

    @Test(
        "every command's name, as the suggestions know it, is the one ArgumentParser accepts; each command names itself"
    )
    func commandNames() throws {
        #expect(VitalBridgeCommand.configuration.commandName == "vitalbridge")
        func walk(_ command: any ParsableCommand.Type, _ path: [String]) {
            for subcommand in command.configuration.subcommands {
                // without it ArgumentParser derives the name with String(describing:), whose casts scan every
                // conformance record of the binary: a third of a debug process's start, for each command
                #expect(subcommand.configuration.commandName != nil, "\(path) \(subcommand) names itself")
                let names = path + [name(of: subcommand)]
                // help for a name ArgumentParser knows; a usage error for one it does not
                do {
                    _ = try VitalBridgeCommand.parseAsRoot(names + ["--help"])
                } catch {
                    #expect(VitalBridgeCommand.exitCode(for: error) == .success, "\(names)")
                }
                walk(subcommand, names)
            }
        }
        walk(VitalBridgeCommand.self, [])
        #expect(suggestion(for: ["recrods"]) == "Did you mean 'records'?")
        #expect(suggestion(for: ["band", "alram"]) == "Did you mean 'alarm'?")
    }
}
