import Foundation

/// A private `dbus-daemon` of its own, listening on a socket in a temporary folder: a real bus that no other test
/// and no system service shares. ``stop()`` ends it (in a `defer`).
public final class PrivateBus: Sendable {
    /// The bus's D-Bus address, `unix:path=…`.
    public let address: String
    private let folder: TemporaryDirectory
    private let process: Process

    /// Starts a daemon that lets every connection own any name and talk to any other.
    public init() throws {
        folder = try TemporaryDirectory("vitalbridge-bus")
        let socket = folder.file("bus")
        let configuration = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <listen>unix:path=\(socket)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        try configuration.write(toFile: folder.file("bus.conf"), atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        // the daemon prints its address once it accepts connections (its socket file exists a moment earlier)
        process.arguments = [
            "--config-file=" + folder.file("bus.conf"), "--nofork", "--nopidfile", "--print-address=1",
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        address = "unix:path=" + socket
        var printed = Data()
        while !printed.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else {
                kill(process.processIdentifier, SIGKILL)
                throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: socket])
            }
            printed += chunk
        }
    }

    /// Ends the daemon and removes its folder.
    public func stop() {
        if process.isRunning {
            // SIGKILL: the daemon inherits the test runner's signal mask, in which SIGTERM may be blocked
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        folder.remove()
    }
}
