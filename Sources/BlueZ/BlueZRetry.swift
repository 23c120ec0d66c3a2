import DBus

/// How the hub retries a BlueZ call that failed for a passing reason: a connection the controller aborted
/// (`org.bluez.Error.Failed` `le-connection-abort-by-local`), an operation already in progress
/// (`org.bluez.Error.InProgress`). Errors that say something about the device or the user (a wrong passkey, a
/// device that does not answer, an unknown object) are never retried.
///
/// The delay doubles from one retry to the next: with the standard policy, 0.5 s, 1 s, then 2 s.
public struct BlueZRetryPolicy: Hashable, Sendable {
    /// How many times a failed call is tried again; 0 never retries.
    public var retries: Int
    /// The wait before the first retry.
    public var firstDelay: Duration

    /// A policy of `retries` retries, waiting `firstDelay` before the first and twice as long before each next.
    public init(retries: Int = 3, firstDelay: Duration = .milliseconds(500)) {
        self.retries = max(0, retries)
        self.firstDelay = firstDelay
    }

    /// Three retries, after 0.5 s, 1 s and 2 s.
    public static let standard = BlueZRetryPolicy()

    /// The wait before retry number `retry` (from 1).
    public func delay(before retry: Int) -> Duration {
        firstDelay * (1 << min(max(retry - 1, 0), 16))
    }

    /// The `org.bluez.Error.Failed` messages that name a passing failure of the link (BlueZ's `src/error.c`).
    static let transientMessages: Set<String> = [
        "le-connection-abort-by-local", "br-connection-aborted-by-local", "le-connection-busy", "br-connection-busy",
        "Operation already in progress", "In Progress",
    ]

    /// Whether `error` is passing: `org.bluez.Error.InProgress`, or `org.bluez.Error.Failed` with one of the
    /// messages of a link the controller aborted or was busy with (`le-connection-abort-by-local`,
    /// `br-connection-aborted-by-local`, `le-connection-busy`, `br-connection-busy`, `Operation already in
    /// progress`, `In Progress`).
    public static func isTransient(_ error: DBusError) -> Bool {
        switch error.name {
        case "org.bluez.Error.InProgress": true
        case "org.bluez.Error.Failed": transientMessages.contains(error.message)
        default: false
        }
    }
}
