import Foundation

/// A child process started with `posix_spawn`, its output going to files: waiting for it is `waitpid` on the
/// calling thread. (Foundation's `Process` learns of a child's exit on a dispatch thread; a test that blocks every
/// worker thread in `waitUntilExit`, as tests waiting for a shared cluster do, never hears of it.)
public struct SpawnedProgram: Sendable {
    public let pid: pid_t
    private let stdoutPath: String
    private let stderrPath: String

    /// Starts `path` with `arguments`, in this process's environment changed by `environment`.
    public init(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        let folder = FileManager.default.temporaryDirectory.path
        stdoutPath = "\(folder)/vitalbridge-spawn-\(UUID().uuidString).out"
        stderrPath = "\(folder)/vitalbridge-spawn-\(UUID().uuidString).err"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // the child starts with no signal blocked, whatever this thread blocks
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var inherited = ProcessInfo.processInfo.environment
        for name in ["DISPLAY", "WAYLAND_DISPLAY"] { inherited[name] = nil }
        let variables = inherited.merging(environment) { $1 }.map { "\($0.key)=\($0.value)" }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = variables.map { strdup($0) } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EIO) }
        self.pid = pid
    }

    /// Waits for the program to end; what it printed, and its exit status (128 + the signal when killed).
    public func wait() -> ProcessOutput {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exited = status & 0x7F == 0
        let code = exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        let stdout = (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: stdoutPath)
        try? FileManager.default.removeItem(atPath: stderrPath)
        return ProcessOutput(status: code, stdout: stdout, stderr: stderr)
    }

    /// Runs `path` to its end on this thread.
    public static func run(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws
        -> ProcessOutput
    {
        try SpawnedProgram(path, arguments, environment: environment).wait()
    }
}
