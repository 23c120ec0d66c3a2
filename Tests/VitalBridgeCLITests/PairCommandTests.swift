import Foundation
import TestRequirements
import Testing
import VitalSimulation
import VitalTestSupport

/// Runs `vitalbridge` with `arguments` in `environment`, `input` on its standard input (then its end).
func vitalbridge(_ arguments: [String], environment: [String: String], input: String) throws -> ProcessOutput {
    let process = Process()
    process.executableURL = vitalbridgePath
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let (stdin, stdout, stderr) = (Pipe(), Pipe(), Pipe())
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    let out = stdout.fileHandleForReading.readDataToEndOfFile()
    let err = stderr.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessOutput(
        status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
        stderr: String(decoding: err, as: UTF8.self))
}

@Suite(
    "vitalbridge pair: the hub's own pairing agent over BlueZ (vitalbridge simulate --bus)", .serialized,
    .needs(Requirement.bus))
struct PairCommandTests {
    /// Heart-rate sensors that pair each in their own way.
    static let fleet = Fleet.pairingSensors

    /// A bench serving ``fleet``, with a BlueZ home (`init --adapter hci0`).
    static func bench() throws -> SimulatedBus {
        let bench = try SimulatedBus(fleet: fleet)
        let initialized = try vitalbridge(["init", "--adapter", "hci0"], environment: bench.environment)
        #expect(initialized.status == 0, "\(initialized.stderr)")
        return bench
    }

    @Test(
        "a passkey typed at the terminal pairs the device; typed wrong, one line names the failure and exits 1",
        .needs(.python3))
    func passkey() throws {
        let bench = try Self.bench()
        defer { bench.stop() }
        let wrong = try vitalbridge(
            ["pair", "--mac", "004D3208E002"], environment: bench.environment, input: "123457\n")
        #expect(wrong.status == 1 && wrong.stdout.isEmpty, "\(wrong)")
        let lines = wrong.stderr.split(separator: "\n").filter { $0.hasPrefix("cannot pair") }
        #expect(lines.count == 1 && lines[0].contains("00:4D:32:08:E0:02"), "\(wrong.stderr)")
        #expect(lines.first?.contains("org.bluez.Error.AuthenticationFailed") == true, "\(wrong.stderr)")
        // still not paired: the hub cannot connect to it yet
        let refused = try bench.open("ihealth-layer://?cmd=0&devicemodel=905&mac=004D3208E002&scheme=vitalbridge-demo")
        #expect(refused.stdout.contains("reason=ERROR_DEVICE_AUTHENTICATION"), "\(refused.stdout)")

        let typed = try onTerminal(
            ["pair", "--mac", "00:4d:32:08:e0:02"], answers: [("(6 digits, empty: cancel): ", "123456\n")],
            environment: bench.environment)
        #expect(typed.status == 0 && typed.unanswered.isEmpty, "\(typed)")
        #expect(typed.stdout.trimmingCharacters(in: .newlines) == "paired 00:4D:32:08:E0:02 (bonded, trusted)")
        let measured = try bench.open("ihealth-layer://?cmd=0&devicemodel=905&mac=004D3208E002&scheme=vitalbridge-demo")
        #expect(measured.stdout.contains("status=0"), "\(measured.stdout)\(measured.stderr)")
    }

    @Test(
        "a passkey the hub shows is printed; Just Works asks nothing; the agent is gone after, so pairing again works")
    func displayAndJustWorks() throws {
        let bench = try Self.bench()
        defer { bench.stop() }
        let shown = try vitalbridge(["pair", "--mac", "004D3208E003"], environment: bench.environment, input: "")
        #expect(shown.status == 0, "\(shown)")
        #expect(shown.stderr.contains("Enter 654321 on the device 00:4D:32:08:E0:03"), "\(shown.stderr)")
        #expect(shown.stdout == "paired 00:4D:32:08:E0:03 (bonded, trusted)\n")
        let first = try vitalbridge(["pair", "--mac", "004D3208E001"], environment: bench.environment, input: "")
        #expect(first.status == 0 && first.stdout == "paired 00:4D:32:08:E0:01 (bonded, trusted)\n", "\(first)")
        let second = try vitalbridge(["pair", "--mac", "004D3208E001"], environment: bench.environment, input: "")
        #expect(second.stdout == "paired 00:4D:32:08:E0:01 (already paired, bonded, trusted)\n", "\(second)")
    }

    @Test("numeric comparison: n at the terminal declines (exit 1), --yes accepts", .needs(.python3))
    func confirmation() throws {
        let bench = try Self.bench()
        defer { bench.stop() }
        let declined = try onTerminal(
            ["pair", "--mac", "004D3208E005"], answers: [("show 024680? [y/N] ", "n\n")],
            environment: bench.environment)
        #expect(declined.status == 1 && declined.stdout.isEmpty && declined.unanswered.isEmpty, "\(declined)")
        let accepted = try vitalbridge(
            ["pair", "--mac", "004D3208E005", "--yes"], environment: bench.environment, input: "")
        #expect(
            accepted.status == 0 && accepted.stdout == "paired 00:4D:32:08:E0:05 (bonded, trusted)\n", "\(accepted)")
        #expect(accepted.stderr.contains("024680"))
    }

    @Test("a declined comparison names the decline on its one line")
    func declinedLine() throws {
        let bench = try Self.bench()
        defer { bench.stop() }
        let declined = try vitalbridge(["pair", "--mac", "004D3208E005"], environment: bench.environment, input: "n\n")
        #expect(declined.status == 1, "\(declined)")
        #expect(declined.stderr.contains("declined"), "\(declined.stderr)")
    }

    @Test("a connection the controller aborts is retried, and the retry logged")
    func retried() throws {
        let bench = try Self.bench()
        defer { bench.stop() }
        var environment = bench.environment
        environment["VITALBRIDGE_LOG_LEVEL"] = "info"
        let paired = try vitalbridge(["pair", "--mac", "004D3208E006"], environment: environment, input: "")
        #expect(paired.status == 0 && paired.stdout == "paired 00:4D:32:08:E0:06 (bonded, trusted)\n", "\(paired)")
        #expect(paired.stderr.contains("le-connection-abort-by-local") && paired.stderr.contains("retry 1 of 3"))
    }

    @Test("a simulated home, a malformed --mac, an unreachable bus, an unknown device: one line each")
    func refused() throws {
        let home = try TemporaryDirectory("vitalbridge-pair-home")
        defer { home.remove() }
        let environment = ["VITALBRIDGE_HOME": home.path, "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/bus"]
        #expect(try vitalbridge(["init"], environment: environment).status == 0)
        let simulated = try vitalbridge(["pair", "--mac", "004D3208E001"], environment: environment, input: "")
        #expect(simulated.status == 1 && simulated.stdout.isEmpty, "\(simulated)")
        #expect(simulated.stderr.split(separator: "\n").count == 1 && simulated.stderr.contains("simulated devices"))
        for bad in ["004D3208E00", "00:4D:32:08:E0", "00-4D-32-08-E0-01", "004D3208E00G", "0:04D:32:08:E0:01"] {
            let output = try vitalbridge(["pair", "--mac", bad], environment: environment, input: "")
            #expect(output.status == 2 && output.stderr.contains("--mac must be a Bluetooth address"), "\(bad)")
        }
        #expect(try vitalbridge(["init", "--adapter", "hci0"], environment: environment).status == 0)
        let unreachable = try vitalbridge(["pair", "--mac", "004D3208E001"], environment: environment, input: "")
        #expect(unreachable.status == 1 && unreachable.stdout.isEmpty, "\(unreachable)")
        #expect(unreachable.stderr.split(separator: "\n").count == 1, "\(unreachable.stderr)")
        #expect(unreachable.stderr.contains("cannot reach the D-Bus bus of BlueZ"), "\(unreachable.stderr)")

        let bench = try Self.bench()
        defer { bench.stop() }
        let unknown = try vitalbridge(["pair", "--mac", "004D3208EEEE"], environment: bench.environment, input: "")
        #expect(unknown.status == 1 && unknown.stderr.contains("BlueZ does not hear 004D3208EEEE"), "\(unknown)")
        #expect(try vitalbridge(["init", "--adapter", "hci1"], environment: bench.environment).status == 0)
        let noAdapter = try vitalbridge(["pair", "--mac", "004D3208E001"], environment: bench.environment, input: "")
        #expect(
            noAdapter.status == 1 && noAdapter.stderr == "cannot pair 00:4D:32:08:E0:01: BlueZ has no adapter hci1\n")
    }
}
