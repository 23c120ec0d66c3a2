import Foundation
import LayeredProtocol
import Testing
import VitalCore
import VitalTestSupport

/// `vitalbridge compose`: requests built by the caller's client, answered by the real hub with their requestid.
@Suite("vitalbridge compose")
struct ComposeTests {
    @Test("a composed request is answered by the hub, whose callback repeats its requestid")
    func roundTrip() throws {
        let home = try TestHome()
        let composed = try vitalbridge(
            "compose", "--cmd", "5", "--model", "BG5", "--scheme", "vitalbridge-demo", "--requestid", "r-42",
            "--code", "02323C64323C1C2E4E", "--unit", "1")
        #expect(composed.status == 0, "\(composed.stderr)")
        let url = composed.stdout.trimmingCharacters(in: .newlines)
        #expect(url.contains("&requestid=r-42&"))
        let callback = try home.callback(url)
        #expect(callback.status == .success(.addSyncMeasure), "\(callback.reason?.rawValue ?? "")")
        #expect(callback.echo.contains(QueryParameter(name: "requestid", value: "r-42")))
        // without --requestid, a fresh one each time
        let first = try vitalbridge("compose", "--cmd", "2", "--model", "400", "--mac", macOf(.bg5), "--scheme", "a")
        let second = try vitalbridge("compose", "--cmd", "2", "--model", "400", "--mac", macOf(.bg5), "--scheme", "a")
        #expect(first.status == 0 && second.status == 0 && first.stdout != second.stdout)
        #expect(first.stdout.contains("&requestid=r-"))
    }

    @Test(
        "a request the hub would refuse is not printed: exit 1, one line naming the parameter and the reason",
        arguments: [
            (["--cmd", "0", "--model", "AM4", "--scheme", "myapp"], "ERROR_UNSUPPORTED_ACTION"),
            (["--cmd", "0", "--model", "BP5", "--mac", "004D3208D2F4", "--unit", "4", "--scheme", "myapp"], "unit"),
            (["--cmd", "2", "--model", "BP5", "--scheme", "myapp"], "mac"),
            (["--cmd", "9", "--model", "BP5", "--scheme", "myapp"], "--cmd 9"),
            (["--cmd", "2", "--model", "BP9", "--mac", "004D3208D2F4", "--scheme", "myapp"], "--model BP9"),
            (["--cmd", "2", "--model", "BP5", "--mac", "004D32", "--scheme", "myapp"], "--mac"),
            (
                ["--cmd", "2", "--model", "BP5", "--mac", "004D3208D2F4", "--scheme", "myapp", "--requestid", "a b"],
                "requestid"
            ),
            (
                [
                    "--cmd", "2", "--model", "AM4", "--mac", "004D3208D306", "--unit", "10", "--profile", "1,2",
                    "--scheme", "x",
                ], "--profile"
            ),
        ])
    func refused(arguments: [String], named: String) throws {
        let output = try vitalbridge(["compose"] + arguments)
        #expect(output.status == 1 && output.stdout.isEmpty)
        #expect(output.stderr.hasPrefix("cannot compose: ") && output.stderr.contains(named), "\(output.stderr)")
        #expect(output.stderr.filter { $0 == "\n" }.count == 1)
    }

    @Test("--scheme and --callerurl: exactly one, or a usage error")
    func destination() throws {
        #expect(try vitalbridge("compose", "--cmd", "2", "--model", "BP5", "--mac", "004D3208D2F4").status == 2)
        let both = try vitalbridge(
            "compose", "--cmd", "2", "--model", "BP5", "--mac", "004D3208D2F4", "--scheme", "a", "--callerurl", "a://")
        #expect(both.status == 2)
    }
}
