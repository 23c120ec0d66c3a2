/// How every command ends: the table of DESIGN.md and the README.
enum ExitStatus: Int32, CaseIterable, Sendable {
    /// The callback was printed or handed over, or the command did its job.
    case done = 0
    /// The input or the home was refused (one line on standard error says why).
    case refused = 1
    /// A usage error.
    case usage = 2
    /// No callback may be sent (not the hub's URL, an unknown caller, a destination not allowed).
    case noCallback = 3
    /// Not yet: an answer is still in progress (`svs retrieve`).
    case notYet = 4
    /// The hand-off failed (standard output closed, or the opener refused); the readings stay pending.
    case handOffFailed = 5
}

/// The one way a command ends other than done: its exit status and the one line that says why, which the root
/// (``VitalBridgeCommand``) writes on standard error, once. A command's `run` throws it; nothing below the root
/// prints an error or exits the process.
struct CommandError: Error, Equatable {
    /// The process's exit status.
    let status: ExitStatus
    /// The line for standard error; `nil` when what the command printed already says it (doctor's checks, a
    /// closed pipe that ended `records`).
    let message: String?

    /// Refused (exit 1, unless `status` says otherwise), saying `message`.
    init(_ message: String, status: ExitStatus = .refused) {
        self.status = status
        self.message = message
    }

    /// Ends with `status`, with nothing more to say.
    init(ending status: ExitStatus) {
        self.status = status
        message = nil
    }
}
