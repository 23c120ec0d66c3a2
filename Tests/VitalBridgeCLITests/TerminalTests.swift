import Foundation
import LayeredClient
import LayeredProtocol
import TestRequirements
import Testing
import VitalCore
import VitalTestSupport

/// Runs `vitalbridge` on a pseudo-terminal as a person would: Python's `pty` module starts it as the terminal's
/// session leader, answers each prompt when its text appears (`\u{3}` is Ctrl-C, which the terminal turns into
/// SIGINT) `after` seconds, and reports the program's standard output and exit status.
func onTerminal(
    _ arguments: [String], answers: [(prompt: String, typed: String)], after: Double = 0,
    environment: [String: String] = [:]
) throws -> (
    status: Int, stdout: String, unanswered: [String]
) {
    let driver = FileManager.default.temporaryDirectory.appendingPathComponent("terminal-\(UUID().uuidString).py")
    defer { try? FileManager.default.removeItem(at: driver) }
    try """
    import json, os, pty, select, sys, time
    steps = json.loads(sys.argv[1])
    out_r, out_w = os.pipe()
    pid, terminal = pty.fork()
    if pid == 0:
        os.dup2(out_w, 1)
        os.execv(sys.argv[2], sys.argv[2:])
    os.close(out_w)
    seen, stdout, open_fds, deadline = b"", b"", [terminal, out_r], time.time() + 60
    while open_fds and time.time() < deadline:
        for f in select.select(open_fds, [], [], 0.1)[0]:
            try:
                data = os.read(f, 65536)
            except OSError:
                data = b""
            if not data:
                open_fds.remove(f)
            elif f == terminal:
                seen += data
            else:
                stdout += data
        while steps and steps[0][0].encode() in seen:
            prompt, typed, after = steps.pop(0)
            if prompt:
                seen = seen.split(prompt.encode(), 1)[1]
            time.sleep(after)
            os.write(terminal, typed.encode())
    status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    print(json.dumps({"status": status, "stdout": stdout.decode(), "unanswered": [s[0] for s in steps]}))
    """.write(to: driver, atomically: true, encoding: .utf8)
    let script = String(
        decoding: try JSONSerialization.data(withJSONObject: answers.map { [$0.prompt, $0.typed, after] as [Any] }),
        as: UTF8.self)
    let output = try runProgram(
        "/usr/bin/env", ["python3", driver.path, script, vitalbridgePath.path] + arguments, environment: environment)
    let object = try #require(
        JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any], "\(output.stderr)")
    return (
        object["status"] as? Int ?? -1, object["stdout"] as? String ?? "", object["unanswered"] as? [String] ?? []
    )
}

@Suite(
    "The terminal stands in for the phone's dialogs: connect prompt, QR code, Ctrl-C; never without a terminal",
    .needs(.python3))
struct TerminalTests {
    static let connect = "Connect to the device 004D3208D2F4? [y/N] "
    static let qr = "(empty: cancel): "

    func response(_ run: (status: Int, stdout: String, unanswered: [String])) throws -> LayeredResponse {
        #expect(run.status == 0 && run.unanswered.isEmpty, "\(run)")
        return try LayeredResponse(parsing: run.stdout.trimmingCharacters(in: .newlines))
    }

    @Test("popflag=1 asks before connecting: yes adds the device, no or Ctrl-C cancel the add")
    func connectPrompt() throws {
        let home = try TestHome()
        let add = request(.add, .bp5, extra: "&popflag=1")
        let declined = try response(onTerminal(["open", "--home", home.path, add], answers: [(Self.connect, "n\n")]))
        #expect(declined.cancelled && declined.reason == .cancel)
        let interrupted = try response(
            onTerminal(["open", "--home", home.path, add], answers: [(Self.connect, "\u{3}")]))
        #expect(interrupted.outcome(of: .add) == .cancel && interrupted.reason == .cancel)
        let accepted = try response(onTerminal(["open", "--home", home.path, add], answers: [(Self.connect, "y\n")]))
        #expect(accepted.succeeded && accepted.mac == MACAddress("004D3208D2F4"))
        // without a terminal nobody is asked, and nothing waits
        let piped = try home.open(add)
        #expect(piped.status == 0 && !piped.stderr.contains("[y/N]"))
    }

    @Test("addtype=1 asks for the QR code: typed, read from a file (asked again if it cannot be), or cancelled")
    func qrPrompt() throws {
        let home = try TestHome()
        let add = "ihealth-layer://?cmd=1&addtype=1&devicemodel=100&scheme=vitalbridge-demo"
        let typed = try response(
            onTerminal(["open", "--home", home.path, add], answers: [(Self.qr, "BP5:004D3208D2F4\n")]))
        #expect(typed.succeeded && typed.mac == MACAddress("004D3208D2F4"))
        let file = home.path + "/qr.txt"
        try "ID:004D3208D2F4\n".write(toFile: file, atomically: true, encoding: .utf8)
        let fromFile = try response(
            onTerminal(
                ["open", "--home", home.path, add],
                answers: [(Self.qr, "@\(home.path)/missing\n"), ("missing", ""), (Self.qr, "@\(file)\n")]))
        #expect(fromFile.succeeded)
        let cancelled = try response(onTerminal(["open", "--home", home.path, add], answers: [(Self.qr, "\n")]))
        #expect(cancelled.cancelled && cancelled.reason == .cancel)
    }

    @Test("Ctrl-C during a sync cancels the sync stage; what it stored is kept and every record comes once after")
    func interruptSync() throws {
        let home = try TestHome(fleet: generatedFleet(.bp5, 5_000))
        let sync = request(.sync, .bp5)
        let interrupted = try response(onTerminal(["open", "--home", home.path, sync], answers: [("sync [", "\u{3}")]))
        #expect(interrupted.outcome(of: .sync) == .cancel && interrupted.reason == .cancel, "\(interrupted)")
        var inbox = LayeredInbox()
        var received = 0
        for _ in 0..<100 {
            let delivery = try inbox.receive(try home.callback(sync).url)
            #expect(delivery.repeatedReadings == 0)
            received += delivery.newReadings.count
            if delivery.response.remaining == 0 { break }
        }
        #expect(received == 5_000)
    }

    @Test("Ctrl-C while the request waits for a device another process holds cancels it")
    func interruptWait() throws {
        let home = try TestHome()
        #expect(try home.open(request(.measure, .bp5)).status == 0)
        // another process holds the device for longer than the test
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        holder.arguments = [home.path + "/locks/\(macOf(.bp5)).lock", "sleep", "60"]
        try holder.run()
        defer { holder.terminate() }
        Thread.sleep(forTimeInterval: 0.3)
        let waited = try response(
            onTerminal(["open", "--home", home.path, request(.measure, .bp5)], answers: [("", "\u{3}")], after: 1))
        #expect(waited.outcome(of: .measure) == .cancel && waited.reason == .cancel, "\(waited)")
    }
}
