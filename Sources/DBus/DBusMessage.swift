import Glibc

#if canImport(Glibc)
    import Glibc
#endif

/// A message received from the bus: a signal, or a method call for an object this connection serves.
public struct DBusMessage: Sendable {
    public var path: String
    public var interface: String
    public var member: String
    /// The unique name of the connection that sent it, e.g. `:1.42`.
    public var sender: String
    public var arguments: [DBusValue]

    public init(path: String, interface: String, member: String, sender: String, arguments: [DBusValue]) {
        self.path = path
        self.interface = interface
        self.member = member
        self.sender = sender
        self.arguments = arguments
    }

    /// Decodes the sd-bus message `message`.
    init(_ message: OpaquePointer) throws(DBusError) {
        func text(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
        path = text(sd_bus_message_get_path(message))
        interface = text(sd_bus_message_get_interface(message))
        member = text(sd_bus_message_get_member(message))
        sender = text(sd_bus_message_get_sender(message))
        arguments = try readAll(message)
    }
}

/// A method call to an object this connection serves, waiting for its answer.
///
/// Answer it exactly once, with ``reply(_:closing:)`` or ``fail(_:)``, from any thread and at any later time; a call
/// never answered is answered with `org.freedesktop.DBus.Error.NoReply` when the value is released.
public final class DBusMethodCall: @unchecked Sendable {
    public let message: DBusMessage
    private let call: UnsafeSendable
    private let connection: DBusConnection
    private let answered = Once()

    init(call: OpaquePointer, message: DBusMessage, connection: DBusConnection) {
        self.call = UnsafeSendable(sd_bus_message_ref(call))
        self.message = message
        self.connection = connection
    }

    deinit {
        let call = call
        let unanswered = answered.claim()
        connection.perform { _ in
            if unanswered {
                sendError(to: call.pointer, DBusError(name: DBusError.noReply, message: "the call was not answered"))
            }
            sd_bus_message_unref(call.pointer)
        }
    }

    /// Answers with `values` (their signatures make the reply's), then closes `descriptors`: the reply carries
    /// copies of them.
    public func reply(_ values: [DBusValue] = [], closing descriptors: [Int32] = []) {
        guard answered.claim() else {
            for descriptor in descriptors { close(descriptor) }
            return
        }
        let call = call
        connection.perform { _ in
            defer { for descriptor in descriptors { close(descriptor) } }
            var reply: OpaquePointer? = nil
            guard sd_bus_message_new_method_return(call.pointer, &reply) >= 0, let reply else { return }
            defer { sd_bus_message_unref(reply) }
            do throws(DBusError) {
                try append(values, to: reply)
                sd_bus_send(nil, reply, nil)
            } catch {
                sendError(to: call.pointer, error)
            }
        }
    }

    /// Answers with the D-Bus error `error`.
    public func fail(_ error: DBusError) {
        guard answered.claim() else { return }
        let call = call
        connection.perform { _ in sendError(to: call.pointer, error) }
    }
}

/// Sends the error `error` in reply to `call`.
func sendError(to call: OpaquePointer, _ error: DBusError) {
    var busError = SDBusError()
    defer { sd_bus_error_free(&busError) }
    error.name.withCString { name in
        error.message.withCString { message in _ = sd_bus_error_set(&busError, name, message) }
    }
    sd_bus_reply_method_error(call, &busError)
}
