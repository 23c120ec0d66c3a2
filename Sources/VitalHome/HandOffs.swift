import Foundation
import VitalBridge

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Hands a callback over by writing it, with a newline, to standard output in full (`write(2)` straight to the
/// descriptor, so nothing stays in a buffer); a closed or full output is an error, and the readings stay pending.
public struct StandardOutputHandOff: CallbackHandOff {
    /// The hand-off to standard output.
    public init() {}

    public func handOver(_ url: String) async throws {
        guard writeAll(Array((url + "\n").utf8), to: 1) else {
            throw HomeError("cannot write to standard output: \(String(cString: strerror(errno)))")
        }
    }
}

/// A hand-off that only accepts: the demo shows each callback itself.
public struct ShownHandOff: CallbackHandOff {
    /// The hand-off that only accepts.
    public init() {}

    public func handOver(_ url: String) async throws {}
}

/// The desktop's URL opener (`xdg-open` unless configured): the program `open --deliver` hands each callback to.
public struct Opener: Equatable, Sendable {
    /// The program and the arguments that come before the URL (`["gio", "open"]`).
    public let command: [String]

    /// `xdg-open`.
    public static let standard = Opener(command: ["xdg-open"])

    /// The opener `text` names: a program, then any arguments it needs before the URL, separated by spaces
    /// (`xdg-open`, `gio open`, `/usr/local/bin/my-opener --quiet`).
    public init?(_ text: String) {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let program = words.first, !program.hasPrefix("-"),
            !text.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F })
        else { return nil }
        command = [program] + words.dropFirst()
    }

    private init(command: [String]) { self.command = command }

    /// The opener `option` names, else `$VITALBRIDGE_OPENER`, else `xdg-open`; `nil` when the one named is not a
    /// command.
    public static func chosen(option: String?) -> Opener? {
        guard let text = option ?? environment("VITALBRIDGE_OPENER") else { return .standard }
        return Opener(text)
    }

    /// The program and its arguments, as the user wrote them.
    public var description: String { command.joined(separator: " ") }
}

/// Hands a callback over by running the desktop's opener with it, the way an app opens another app's URL.
///
/// The hand-off succeeded only when the opener ran and exited 0; anything else (it cannot be started, it exits
/// with another status, a signal ends it) is a failed hand-off, and the readings stay pending. The opener may run
/// the caller's handler before it returns (xdg-open does without a desktop environment), and that handler may open
/// the hub again: nothing of the hub is locked while the opener runs. The opener reads nothing (standard input is
/// `/dev/null`) and writes its output to standard error, so standard output stays empty.
///
/// The callback, with its readings, is in the opener's arguments while it runs (and in the caller's handler's):
/// other local users can read a process's arguments in `/proc` unless it is mounted with `hidepid=2`. Desktop URL
/// dispatch has no other way to pass a URL.
public struct OpenerHandOff: CallbackHandOff {
    /// The program that opens each callback.
    public let opener: Opener

    /// Hands callbacks to `opener`.
    public init(opener: Opener) { self.opener = opener }

    public func handOver(_ url: String) async throws {
        let status = try ChildProcess(opener.command + [url], name: "the opener '\(opener.description)'").run().status
        guard status == 0 else {
            throw HomeError(
                "the opener '\(opener.description)' \(ChildProcess.describe(status)) opening a "
                    + "\(Self.scheme(of: url)) URL")
        }
    }

    /// `url`'s scheme (`myapp://`), named in a failure instead of the URL, which may carry health values.
    public static func scheme(of url: String) -> String {
        "\(url.prefix { $0 != ":" }.prefix(40))://"
    }

}

/// A program the hub runs and waits for (the opener, the desktop's tools).
public struct ChildProcess: Sendable {
    /// The program, found on `PATH`, and its arguments.
    public let arguments: [String]
    /// What errors call it (`the opener 'xdg-open'`).
    public var name: String

    /// The program `arguments[0]` with the rest as its arguments; `name` (else the program) in errors.
    public init(_ arguments: [String], name: String? = nil) {
        self.arguments = arguments
        self.name = name ?? arguments[0]
    }

    /// What a `waitpid` status says: `exited with status 4`, `was ended by signal 9`.
    public static func describe(_ status: Int32) -> String {
        let signal = status & 0x7F
        return signal == 0 ? "exited with status \((status >> 8) & 0xFF)" : "was ended by signal \(signal)"
    }

    /// What of the program's output is returned.
    public enum Capture: Sendable {
        /// Nothing: its standard output goes to standard error.
        case none
        /// Its standard output and standard error together.
        case both
        /// Its standard output; its standard error goes to ours.
        case standardOutput
    }

    /// Runs the program with standard input from `/dev/null` and a clean signal state (not the hub's SIGPIPE
    /// ignored, nor signals blocked by whatever started the hub), and waits for it; `capture` says what of its
    /// output is returned. Its `waitpid` status, and what it wrote.
    ///
    /// - Throws: a `HomeError` when it cannot be started.
    public func run(capture: Capture = .none) throws(HomeError) -> (status: Int32, output: String) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var pipe: [Int32] = [-1, -1]
        if capture != .none {
            guard Glibc.pipe(&pipe) == 0 else {
                throw HomeError("cannot run \(name): \(String(cString: strerror(errno)))")
            }
            // the child's copies are its outputs (dup2 clears the flag); the pipe's own ends stay here
            for end in pipe { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
            if capture == .both { posix_spawn_file_actions_adddup2(&actions, pipe[1], 2) }
        } else {
            posix_spawn_file_actions_adddup2(&actions, 2, 1)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGTERM] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let started = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, environ)
        var output: [UInt8] = []
        if capture != .none {
            close(pipe[1])
            var buffer = [UInt8](repeating: 0, count: 4096)
            while started == 0 {
                let count = buffer.withUnsafeMutableBytes { read(pipe[0], $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                output += buffer[..<count]
            }
            close(pipe[0])
        }
        guard started == 0 else {
            throw HomeError("cannot run \(name): \(String(cString: strerror(started)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else {
                throw HomeError("lost \(name): \(String(cString: strerror(errno)))")
            }
        }
        return (status, String(decoding: output, as: UTF8.self))
    }
}
