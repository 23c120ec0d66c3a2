/// A D-Bus error: its name (`org.bluez.Error.Failed`) and message.
public struct DBusError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The error name, e.g. `org.freedesktop.DBus.Error.UnknownObject`.
    public var name: String
    public var message: String

    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    public var description: String { message.isEmpty ? name : "\(name): \(message)" }

    /// The error of a failed sd-bus call, from its negative `errno` result.
    static func system(_ result: Int32, _ what: String) -> DBusError {
        DBusError(name: "org.freedesktop.DBus.Error.Failed", message: "\(what) failed: \(errnoName(-result))")
    }

    /// The connection is closed, or was lost.
    public static let disconnected = "org.freedesktop.DBus.Error.Disconnected"
    /// No reply came in time.
    public static let noReply = "org.freedesktop.DBus.Error.NoReply"
    /// A method the object does not have.
    public static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
    /// An object path nobody serves.
    public static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"
    /// Arguments of the wrong type or number.
    public static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
    /// The task awaiting the reply was cancelled: the call was sent and may still run at the peer, whose reply
    /// is dropped (not a name the bus sends; `org.vitalbridge` is ours).
    public static let cancelled = "org.vitalbridge.Error.Cancelled"
}
