import Glibc
import Locking
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A connection to a D-Bus bus, through sd-bus, on a thread of its own.
///
/// sd-bus is not thread-safe, so every use of the bus runs on the connection's thread: method calls, matches and
/// emitted signals are handed to it and their answers come back through `async` functions. Handlers of signals and
/// method calls run on that thread too, and must return quickly (hand the work to a task). Nothing blocks a
/// caller's executor.
public final class DBusConnection: @unchecked Sendable {
    /// Where the connection goes.
    public enum Address: Hashable, Sendable {
        /// The system bus (`DBUS_SYSTEM_BUS_ADDRESS`, else `unix:path=/run/dbus/system_bus_socket`).
        case system
        /// A bus at a D-Bus address, e.g. `unix:path=/tmp/bus`.
        case address(String)
    }

    private let bus: OpaquePointer
    private let wakeup: Int32
    private let queue = Locked<(commands: [Command], closed: Bool)>(([], false))
    /// Calls waiting for their reply; touched on the bus thread only.
    private var waiting: [ObjectIdentifier: ReplyBox] = [:]
    /// The unique name the bus gave this connection, e.g. `:1.7`.
    public let uniqueName: String

    /// Why sd-bus (`libsystemd.so.0`) cannot be loaded, naming the package to install; `nil` when it can. Every
    /// connection needs it; nothing else in VitalBridge does.
    public static var libraryProblem: String? { SDBusLibrary.shared == nil ? SDBusLibrary.loadError : nil }

    /// Connects to `address`, on a new thread that then runs the connection: connecting and authenticating block
    /// that thread, never the caller's.
    ///
    /// - Throws: ``DBusError`` when the bus cannot be reached or refuses the connection.
    public static func open(_ address: Address) async throws(DBusError) -> DBusConnection {
        let result = await Handoff<Result<DBusConnection, DBusError>>.awaiting { handoff in
            let start = Unmanaged.passRetained(Start(address, handoff))
            var handle = pthread_t()
            let created = pthread_create(
                &handle, nil,
                { context in
                    let start = Unmanaged<Start>.fromOpaque(context!).takeRetainedValue()
                    let connection: DBusConnection
                    do throws(DBusError) {
                        connection = try DBusConnection(start.address)
                    } catch {
                        start.handoff.hand(.failure(error))
                        return nil
                    }
                    start.handoff.hand(.success(connection))
                    connection.run()
                    return nil
                }, start.toOpaque())
            if created == 0 {
                pthread_detach(handle)
            } else {
                start.release()
                handoff.hand(.failure(DBusError.system(-created, "starting the connection's thread")))
            }
        }
        return try result.get()
    }

    /// What a new connection's thread starts from.
    private final class Start: Sendable {
        let address: Address
        let handoff: Handoff<Result<DBusConnection, DBusError>>
        init(_ address: Address, _ handoff: Handoff<Result<DBusConnection, DBusError>>) {
            self.address = address
            self.handoff = handoff
        }
    }

    /// Connects to `address` on the calling thread, which then runs ``run()``.
    private init(_ address: Address) throws(DBusError) {
        guard SDBusLibrary.shared != nil else {
            throw DBusError(name: "org.freedesktop.DBus.Error.Failed", message: SDBusLibrary.loadError)
        }
        var bus: OpaquePointer? = nil
        var result = sd_bus_new(&bus)
        guard result >= 0, let bus else { throw DBusError.system(result, "creating a bus connection") }
        do throws(DBusError) {
            switch address {
            case .system:
                let variable = getenv("DBUS_SYSTEM_BUS_ADDRESS").map { String(cString: $0) }
                result = (variable ?? "unix:path=/run/dbus/system_bus_socket").withCString {
                    sd_bus_set_address(bus, $0)
                }
            case .address(let text):
                result = text.withCString { sd_bus_set_address(bus, $0) }
            }
            guard result >= 0 else { throw DBusError.system(result, "setting the bus address") }
            sd_bus_set_bus_client(bus, 1)
            sd_bus_negotiate_fds(bus, 1)
            result = sd_bus_start(bus)
            guard result >= 0 else { throw DBusError.system(result, "connecting to the bus") }
            var name: UnsafePointer<CChar>? = nil
            result = sd_bus_get_unique_name(bus, &name)
            guard result >= 0, let name else { throw DBusError.system(result, "getting the connection's name") }
            uniqueName = String(cString: name)
        } catch {
            sd_bus_flush_close_unref(bus)
            throw error
        }
        let wakeup = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard wakeup >= 0 else {
            sd_bus_flush_close_unref(bus)
            throw DBusError.system(-errno, "creating the connection's wake-up descriptor")
        }
        self.bus = bus
        self.wakeup = wakeup
    }

    /// Work for the connection's thread, given the bus.
    typealias Command = @Sendable (OpaquePointer) -> Void

    /// Runs `command` on the connection's thread with the bus; dropped once the connection is closed.
    func perform(_ command: @escaping Command) { _ = enqueue(command) }

    /// Hands `command` to the connection's thread and wakes it; `false` once the connection is closed.
    private func enqueue(_ command: @escaping Command) -> Bool {
        let accepted = queue.withLock { state in
            guard !state.closed else { return false }
            state.commands.append(command)
            return true
        }
        if accepted {
            var one: UInt64 = 1
            _ = write(wakeup, &one, 8)
        }
        return accepted
    }

    /// Runs `body` on the connection's thread and returns its result; throws when the connection is closed.
    private func onBus<T: Sendable>(_ body: @escaping @Sendable (OpaquePointer) -> Result<T, DBusError>)
        async throws(DBusError)
        -> T
    {
        let result = await Handoff<Result<T, DBusError>>.awaiting { handoff in
            let accepted = enqueue { bus in handoff.hand(body(bus)) }
            if !accepted {
                handoff.hand(.failure(Self.closedError))
            }
        }
        return try result.get()
    }

    static let closedError = DBusError(name: DBusError.disconnected, message: "the bus connection is closed")

    /// Closes the connection: calls still waiting fail with ``DBusError/disconnected``.
    public func close() {
        perform { _ in self.queue.withLock { $0.closed = true } }
    }

    // MARK: Calls

    /// Calls `member` of `interface` on the object `path` of `destination` with `arguments`, and returns the
    /// reply's values.
    ///
    /// - Throws: the ``DBusError`` the peer answered, ``DBusError/noReply`` after `timeout`,
    ///   ``DBusError/disconnected``, or ``DBusError/cancelled`` at once when the awaiting task is cancelled (the
    ///   peer's reply, when it comes, is dropped).
    public func call(
        _ destination: String, _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = [],
        timeout: Duration = .seconds(25)
    ) async throws(DBusError) -> [DBusValue] {
        let microseconds = UInt64(
            max(1, timeout.components.seconds * 1_000_000 + timeout.components.attoseconds / 1_000_000_000_000))
        let pending = Locked<Handoff<Result<[DBusValue], DBusError>>?>(nil)
        let cancelled = Result<[DBusValue], DBusError>.failure(
            DBusError(name: DBusError.cancelled, message: "\(interface).\(member) was cancelled"))
        let result = await withTaskCancellationHandler {
            await Handoff<Result<[DBusValue], DBusError>>.awaiting { handoff in
                pending.withLock { $0 = handoff }
                // cancelled before the handoff existed: the handler below found nothing to hand to
                if Task.isCancelled {
                    handoff.hand(cancelled)
                    return
                }
                let box = ReplyBox(handoff)
                let accepted = enqueue { bus in
                    self.send(destination, path, interface, member, arguments, microseconds, box, bus)
                }
                if !accepted {
                    box.resume(.failure(Self.closedError))
                }
            }
        } onCancel: {
            pending.withLock { $0 }?.hand(cancelled)
        }
        return try result.get()
    }

    private func send(
        _ destination: String, _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue],
        _ microseconds: UInt64, _ box: ReplyBox, _ bus: OpaquePointer
    ) {
        var message: OpaquePointer? = nil
        let created = destination.withCString { destination in
            path.withCString { path in
                interface.withCString { interface in
                    member.withCString {
                        sd_bus_message_new_method_call(bus, &message, destination, path, interface, $0)
                    }
                }
            }
        }
        guard created >= 0, let message else {
            box.resume(.failure(DBusError.system(created, "calling \(interface).\(member)")))
            return
        }
        defer { sd_bus_message_unref(message) }
        do {
            try append(arguments, to: message)
        } catch {
            box.resume(.failure(error))
            return
        }
        waiting[ObjectIdentifier(box)] = box
        let context = Unmanaged.passUnretained(self).toOpaque()
        box.connection = context
        let sent = sd_bus_call_async(
            bus, nil, message,
            { reply, userdata, _ in
                let box = Unmanaged<ReplyBox>.fromOpaque(userdata!).takeUnretainedValue()
                let connection = Unmanaged<DBusConnection>.fromOpaque(box.connection!).takeUnretainedValue()
                connection.waiting[ObjectIdentifier(box)] = nil
                box.resume(DBusConnection.result(of: reply!))
                return 1
            }, Unmanaged.passUnretained(box).toOpaque(), microseconds)
        if sent < 0 {
            waiting[ObjectIdentifier(box)] = nil
            box.resume(.failure(DBusError.system(sent, "calling \(interface).\(member)")))
        }
    }

    private static func result(of reply: OpaquePointer) -> Result<[DBusValue], DBusError> {
        if sd_bus_message_is_method_error(reply, nil) != 0, let error = sd_bus_message_get_error(reply) {
            return .failure(
                DBusError(
                    name: error.pointee.name.map { String(cString: $0) } ?? DBusError.noReply,
                    message: error.pointee.message.map { String(cString: $0) } ?? ""))
        }
        do {
            return .success(try readAll(reply))
        } catch {
            return .failure(error)
        }
    }

    // MARK: Signals

    /// Calls `handler` with every message matching the match `rule` (e.g.
    /// `type='signal',interface='org.freedesktop.DBus.Properties'`) until the subscription is cancelled.
    public func subscribe(_ rule: String, handler: @escaping @Sendable (DBusMessage) -> Void) async throws(DBusError)
        -> DBusSubscription
    {
        let handlerBox = HandlerBox(handler)
        let slot = try await onBus { bus -> Result<UnsafeSendable, DBusError> in
            var slot: OpaquePointer? = nil
            let result = rule.withCString {
                sd_bus_add_match(
                    bus, &slot, $0,
                    { message, userdata, _ in
                        let box = Unmanaged<HandlerBox>.fromOpaque(userdata!).takeUnretainedValue()
                        if let decoded = try? DBusMessage(message!) { box.handler(decoded) }
                        return 0
                    }, Unmanaged.passUnretained(handlerBox).toOpaque())
            }
            guard result >= 0, let slot else { return .failure(DBusError.system(result, "adding the match \(rule)")) }
            return .success(UnsafeSendable(slot))
        }
        return DBusSubscription(connection: self, slot: slot.pointer, handler: handlerBox)
    }

    /// Emits the signal `member` of `interface` from the object `path`.
    public func emit(_ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue]) {
        perform { bus in
            var message: OpaquePointer? = nil
            let created = path.withCString { path in
                interface.withCString { interface in
                    member.withCString { sd_bus_message_new_signal(bus, &message, path, interface, $0) }
                }
            }
            guard created >= 0, let message else { return }
            defer { sd_bus_message_unref(message) }
            guard (try? append(arguments, to: message)) != nil else { return }
            sd_bus_send(bus, message, nil)
        }
    }

    // MARK: Serving objects

    /// Takes the well-known name `name` (e.g. `org.bluez`).
    public func requestName(_ name: String) async throws(DBusError) {
        _ = try await onBus { bus -> Result<Int, DBusError> in
            let result = name.withCString { sd_bus_request_name(bus, $0, 0) }
            return result < 0 ? .failure(DBusError.system(result, "taking the name \(name)")) : .success(0)
        }
    }

    /// Hands every method call to an object at or below `prefix` to `handler`, which answers each through its
    /// ``DBusMethodCall``.
    public func serve(_ prefix: String, handler: @escaping @Sendable (DBusMethodCall) -> Void) async throws(DBusError)
        -> DBusSubscription
    {
        let handlerBox = CallHandlerBox(handler, connection: self)
        let slot = try await onBus { bus -> Result<UnsafeSendable, DBusError> in
            var slot: OpaquePointer? = nil
            let result = prefix.withCString {
                sd_bus_add_fallback(
                    bus, &slot, $0,
                    { message, userdata, _ in
                        let box = Unmanaged<CallHandlerBox>.fromOpaque(userdata!).takeUnretainedValue()
                        guard let message else { return 0 }
                        do throws(DBusError) {
                            let decoded = try DBusMessage(message)
                            box.handler(DBusMethodCall(call: message, message: decoded, connection: box.connection))
                        } catch {
                            sendError(to: message, error)
                        }
                        return 1
                    }, Unmanaged.passUnretained(handlerBox).toOpaque())
            }
            guard result >= 0, let slot else { return .failure(DBusError.system(result, "serving \(prefix)")) }
            return .success(UnsafeSendable(slot))
        }
        return DBusSubscription(connection: self, slot: slot.pointer, handler: handlerBox)
    }

    // MARK: The connection's thread

    private func run() {
        var closing = false
        while true {
            let (commands, closed) = queue.withLock { state in
                defer { state.commands.removeAll() }
                return (state.commands, state.closed)
            }
            for command in commands { command(bus) }
            // a command may have closed it (``close()``): checked before waiting, which nothing else may end
            if closed || closing || queue.withLock({ $0.closed }) { break }
            var processed: Int32
            repeat { processed = sd_bus_process(bus, nil) } while processed > 0
            if processed < 0 {
                closing = true
                queue.withLock { $0.closed = true }
                continue
            }
            var descriptors = [
                pollfd(fd: sd_bus_get_fd(bus), events: Int16(truncatingIfNeeded: sd_bus_get_events(bus)), revents: 0),
                pollfd(fd: wakeup, events: Int16(POLLIN), revents: 0),
            ]
            var deadline: UInt64 = 0
            var wait: Int32 = -1
            if sd_bus_get_timeout(bus, &deadline) > 0, deadline != UInt64.max {
                var now = timespec()
                clock_gettime(CLOCK_MONOTONIC, &now)
                let nowMicroseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
                wait = deadline <= nowMicroseconds ? 0 : Int32(clamping: (deadline - nowMicroseconds + 999) / 1000)
            }
            _ = poll(&descriptors, 2, wait)
            if descriptors[1].revents != 0 {
                var count: UInt64 = 0
                _ = read(wakeup, &count, 8)
            }
        }
        // calls still waiting get their answer: the connection is gone
        for box in waiting.values { box.resume(.failure(Self.closedError)) }
        waiting.removeAll()
        let remaining = queue.withLock { state in
            state.closed = true
            defer { state.commands.removeAll() }
            return state.commands
        }
        for command in remaining { command(bus) }
        sd_bus_flush_close_unref(bus)
        Glibc.close(wakeup)
    }
}

/// A match or served prefix; cancel it to stop its handler.
public final class DBusSubscription: @unchecked Sendable {
    private let connection: DBusConnection
    private let slot: UnsafeSendable
    private let handler: any Sendable
    private let cancelled = Once()

    init(connection: DBusConnection, slot: OpaquePointer, handler: any Sendable) {
        self.connection = connection
        self.slot = UnsafeSendable(slot)
        self.handler = handler
    }

    /// Stops the handler; it is not called again once the connection's thread has run this.
    public func cancel() {
        guard cancelled.claim() else { return }
        let slot = slot
        let handler = handler
        connection.perform { _ in
            sd_bus_slot_unref(slot.pointer)
            withExtendedLifetime(handler) {}
        }
    }
}

/// A pointer handed between the caller and the connection's thread.
struct UnsafeSendable: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}

/// True for the first claimer only.
final class Once: Sendable {
    private let flag = Atomic<Bool>(false)
    func claim() -> Bool {
        flag.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }
}

private final class ReplyBox: @unchecked Sendable {
    private let handoff: Handoff<Result<[DBusValue], DBusError>>
    var connection: UnsafeMutableRawPointer?
    init(_ handoff: Handoff<Result<[DBusValue], DBusError>>) {
        self.handoff = handoff
    }
    func resume(_ result: Result<[DBusValue], DBusError>) { handoff.hand(result) }
}

/// A value handed once from the connection's thread to the task awaiting it.
///
/// The value crosses under a `Locked`, not inside the continuation. When the bus thread resumes a continuation before
/// its task has suspended, the concurrency runtime orders the two with atomics ThreadSanitizer does not see, and TSan
/// reported the task's reads of a reply as races (`DBusTests`' descriptor test; swiftlang/swift#57803 is the same
/// report). The lock's release and acquire are an order TSan sees.
final class Handoff<Value: Sendable>: Sendable {
    private let value = Locked<Value?>(nil)
    private let continuation: CheckedContinuation<Void, Never>

    private init(_ continuation: CheckedContinuation<Void, Never>) { self.continuation = continuation }

    /// Calls `start` with a new handoff, and returns the value handed over once something hands one.
    static func awaiting(_ start: (Handoff) -> Void) async -> Value {
        var created: Handoff?
        await withCheckedContinuation { continuation in
            let handoff = Handoff(continuation)
            created = handoff
            start(handoff)
        }
        // resumed only after the value was stored
        return created!.value.withLock { $0! }
    }

    /// Hands `value` to the awaiting task; calls after the first are ignored.
    func hand(_ value: Value) {
        let first = self.value.withLock { stored in
            guard stored == nil else { return false }
            stored = value
            return true
        }
        if first { continuation.resume() }
    }
}

private final class HandlerBox: @unchecked Sendable {
    let handler: @Sendable (DBusMessage) -> Void
    init(_ handler: @escaping @Sendable (DBusMessage) -> Void) { self.handler = handler }
}

private final class CallHandlerBox: @unchecked Sendable {
    let handler: @Sendable (DBusMethodCall) -> Void
    unowned let connection: DBusConnection
    init(_ handler: @escaping @Sendable (DBusMethodCall) -> Void, connection: DBusConnection) {
        self.handler = handler
        self.connection = connection
    }
}
