import Foundation
import VitalStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// This process as the owner of reservations: its id and start time (`/proc/<pid>/stat`, field 22), so that a
/// reservation left by a process that has ended is returned to pending at once, even if its id was reused.
public enum ProcessIdentity {
    /// How long a reservation lasts if its owner's end cannot be seen: 60 s, far longer than a hand-off takes.
    public static let lifetime = 60.0

    /// This process as the owner of reservations.
    public static func reservationOwner() -> ReservationOwner {
        let pid = getpid()
        return ReservationOwner(
            owner: "\(pid):\(startTime(of: pid) ?? "?")", lifetime: lifetime,
            isAbandoned: { owner in isGone(owner) })
    }

    /// Whether the process an owner (`<pid>:<start time>#<request>`) names has ended.
    public static func isGone(_ owner: String) -> Bool {
        let process = owner.prefix { $0 != "#" }
        let parts = process.split(separator: ":", maxSplits: 1)
        guard parts.count == 2, let pid = Int32(parts[0]), pid > 0 else { return false }
        if kill(pid, 0) != 0 && errno == ESRCH { return true }
        guard parts[1] != "?", let start = startTime(of: pid) else { return false }
        return start != parts[1]
    }

    /// The start time of process `pid` in clock ticks since boot, from `/proc/<pid>/stat`; `nil` without `/proc`.
    public static func startTime(of pid: Int32) -> String? {
        let descriptor = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[..<count], as: UTF8.self)
        // the command name (field 2) is in parentheses and may hold spaces: fields 3… follow the last ')'
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        return fields.count > 19 ? String(fields[19]) : nil
    }
}
