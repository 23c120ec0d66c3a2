import Foundation

/// What a program printed, and how it ended.
public struct ProcessOutput: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String

    public init(status: Int32, stdout: String, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }
}

/// Runs the program at `path` with `arguments`, in this process's environment changed by `environment`, and collects
/// what it printed. A graphical session's `DISPLAY` and `WAYLAND_DISPLAY` are not passed on unless `environment`
/// sets them, so that no test opens a dialog on the desktop it runs in.
public func runProgram(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws
    -> ProcessOutput
{
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    var inherited = ProcessInfo.processInfo.environment
    for name in ["DISPLAY", "WAYLAND_DISPLAY"] { inherited[name] = nil }
    process.environment = inherited.merging(environment) { $1 }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessOutput(
        status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
        stderr: String(decoding: stderr, as: UTF8.self))
}
