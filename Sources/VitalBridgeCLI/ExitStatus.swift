/// How every command ends: the table of DESIGN.md and the README. A command's `run` throws anything but ``done``;
/// nothing below it exits the process.
enum ExitStatus: Int32, Error, CaseIterable {
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
