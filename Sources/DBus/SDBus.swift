// swift-format-ignore-file: AlwaysUseLowerCamelCase
// (the functions keep sd-bus.h's names, so that each call reads as the sd-bus manual documents it)
#if canImport(Glibc)
    import Glibc
#endif

// sd-bus, systemd's D-Bus library, loaded at run time from libsystemd.so.0 (Debian's libsystemd0, on every systemd
// machine), only when a connection is opened: building needs no -dev package, and a program that never reaches
// D-Bus never loads it. The functions below are the few the DBus module calls, declared as sd-bus.h declares them;
// each forwards to the symbol of the loaded library. `sd_bus`, `sd_bus_message` and `sd_bus_slot` are opaque.

/// `sd_bus_error`: a name, a message and whether sd-bus must free them (sd-bus.h's layout).
struct SDBusError {
    var name: UnsafePointer<CChar>? = nil
    var message: UnsafePointer<CChar>? = nil
    var needFree: Int32 = 0
}

/// `sd_bus_message_handler_t`.
typealias SDBusMessageHandler =
    @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Int32

/// libsystemd's sd-bus, loaded once.
struct SDBusLibrary: @unchecked Sendable {
    /// The library's file name, as the dynamic loader finds it.
    static let soname = "libsystemd.so.0"

    /// The loaded library, or `nil` when it cannot be loaded (`loadError` says why).
    static let shared: SDBusLibrary? = load()
    /// Why the library could not be loaded, for the one line a BlueZ command prints.
    static var loadError: String {
        "\(soname) (sd-bus) cannot be loaded: install the package libsystemd0 (\(dlerrorText ?? "not found"))"
    }
    private nonisolated(unsafe) static var dlerrorText: String?

    let handle: UnsafeMutableRawPointer

    private static func load() -> SDBusLibrary? {
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            dlerrorText = dlerror().map { String(cString: $0) }
            return nil
        }
        let library = SDBusLibrary(handle: handle)
        // every symbol is looked up now, so that a library without one fails here rather than mid-call
        for name in symbols where dlsym(handle, name) == nil {
            dlerrorText = "\(name) is missing"
            return nil
        }
        return library
    }

    /// The symbol `name`, as the C function type `T`.
    func function<T>(_ name: String, as type: T.Type) -> T {
        unsafeBitCast(dlsym(handle, name)!, to: type)
    }

    static let symbols = [
        "sd_bus_new", "sd_bus_set_address", "sd_bus_set_bus_client", "sd_bus_negotiate_fds", "sd_bus_start",
        "sd_bus_get_unique_name", "sd_bus_flush_close_unref", "sd_bus_message_new_method_call", "sd_bus_message_unref",
        "sd_bus_message_ref", "sd_bus_call_async", "sd_bus_message_is_method_error", "sd_bus_message_get_error",
        "sd_bus_add_match", "sd_bus_message_new_signal", "sd_bus_send", "sd_bus_request_name", "sd_bus_add_fallback",
        "sd_bus_process", "sd_bus_get_fd", "sd_bus_get_events", "sd_bus_get_timeout", "sd_bus_slot_unref",
        "sd_bus_message_get_path", "sd_bus_message_get_interface", "sd_bus_message_get_member",
        "sd_bus_message_get_sender", "sd_bus_message_new_method_return", "sd_bus_error_set", "sd_bus_error_free",
        "sd_bus_reply_method_error", "sd_bus_message_append_basic", "sd_bus_message_append_array",
        "sd_bus_message_open_container", "sd_bus_message_close_container", "sd_bus_message_read_basic",
        "sd_bus_message_peek_type", "sd_bus_message_read_array", "sd_bus_message_enter_container",
        "sd_bus_message_exit_container",
    ]
}

/// The loaded library: every caller is past ``DBusConnection``'s check that it loaded.
private var sd: SDBusLibrary { SDBusLibrary.shared! }

typealias Bus = OpaquePointer?
typealias Message = OpaquePointer?
typealias Text = UnsafePointer<CChar>?

func sd_bus_new(_ bus: UnsafeMutablePointer<Bus>) -> Int32 {
    sd.function("sd_bus_new", as: (@convention(c) (UnsafeMutablePointer<Bus>) -> Int32).self)(bus)
}
func sd_bus_set_address(_ bus: Bus, _ address: Text) -> Int32 {
    sd.function("sd_bus_set_address", as: (@convention(c) (Bus, Text) -> Int32).self)(bus, address)
}
func sd_bus_set_bus_client(_ bus: Bus, _ value: Int32) -> Int32 {
    sd.function("sd_bus_set_bus_client", as: (@convention(c) (Bus, Int32) -> Int32).self)(bus, value)
}
func sd_bus_negotiate_fds(_ bus: Bus, _ value: Int32) -> Int32 {
    sd.function("sd_bus_negotiate_fds", as: (@convention(c) (Bus, Int32) -> Int32).self)(bus, value)
}
func sd_bus_start(_ bus: Bus) -> Int32 {
    sd.function("sd_bus_start", as: (@convention(c) (Bus) -> Int32).self)(bus)
}
func sd_bus_get_unique_name(_ bus: Bus, _ name: UnsafeMutablePointer<Text>) -> Int32 {
    sd.function("sd_bus_get_unique_name", as: (@convention(c) (Bus, UnsafeMutablePointer<Text>) -> Int32).self)(
        bus, name)
}
@discardableResult func sd_bus_flush_close_unref(_ bus: Bus) -> OpaquePointer! {
    sd.function("sd_bus_flush_close_unref", as: (@convention(c) (Bus) -> Bus).self)(bus)
}
func sd_bus_message_new_method_call(
    _ bus: Bus, _ message: UnsafeMutablePointer<Message>, _ destination: Text, _ path: Text, _ interface: Text,
    _ member: Text
) -> Int32 {
    sd.function(
        "sd_bus_message_new_method_call",
        as: (@convention(c) (Bus, UnsafeMutablePointer<Message>, Text, Text, Text, Text) -> Int32).self)(
            bus, message, destination, path, interface, member)
}
@discardableResult func sd_bus_message_unref(_ message: Message) -> OpaquePointer! {
    sd.function("sd_bus_message_unref", as: (@convention(c) (Message) -> Message).self)(message)
}
@discardableResult func sd_bus_message_ref(_ message: Message) -> OpaquePointer! {
    sd.function("sd_bus_message_ref", as: (@convention(c) (Message) -> Message).self)(message)
}
func sd_bus_call_async(
    _ bus: Bus, _ slot: UnsafeMutablePointer<OpaquePointer?>?, _ message: Message,
    _ callback: SDBusMessageHandler, _ userdata: UnsafeMutableRawPointer?, _ microseconds: UInt64
) -> Int32 {
    sd.function(
        "sd_bus_call_async",
        as: (@convention(c) (
            Bus, UnsafeMutablePointer<OpaquePointer?>?, Message, SDBusMessageHandler, UnsafeMutableRawPointer?,
            UInt64
        ) -> Int32).self)(bus, slot, message, callback, userdata, microseconds)
}
func sd_bus_message_is_method_error(_ message: Message, _ name: Text) -> Int32 {
    sd.function("sd_bus_message_is_method_error", as: (@convention(c) (Message, Text) -> Int32).self)(message, name)
}
func sd_bus_message_get_error(_ message: Message) -> UnsafePointer<SDBusError>? {
    sd.function("sd_bus_message_get_error", as: (@convention(c) (Message) -> UnsafeRawPointer?).self)(message)?
        .assumingMemoryBound(to: SDBusError.self)
}
func sd_bus_add_match(
    _ bus: Bus, _ slot: UnsafeMutablePointer<OpaquePointer?>?, _ match: Text, _ callback: SDBusMessageHandler,
    _ userdata: UnsafeMutableRawPointer?
) -> Int32 {
    sd.function(
        "sd_bus_add_match",
        as: (@convention(c) (
            Bus, UnsafeMutablePointer<OpaquePointer?>?, Text, SDBusMessageHandler, UnsafeMutableRawPointer?
        ) -> Int32).self)(bus, slot, match, callback, userdata)
}
func sd_bus_add_fallback(
    _ bus: Bus, _ slot: UnsafeMutablePointer<OpaquePointer?>?, _ prefix: Text, _ callback: SDBusMessageHandler,
    _ userdata: UnsafeMutableRawPointer?
) -> Int32 {
    sd.function(
        "sd_bus_add_fallback",
        as: (@convention(c) (
            Bus, UnsafeMutablePointer<OpaquePointer?>?, Text, SDBusMessageHandler, UnsafeMutableRawPointer?
        ) -> Int32).self)(bus, slot, prefix, callback, userdata)
}
func sd_bus_message_new_signal(
    _ bus: Bus, _ message: UnsafeMutablePointer<Message>, _ path: Text, _ interface: Text, _ member: Text
) -> Int32 {
    sd.function(
        "sd_bus_message_new_signal",
        as: (@convention(c) (Bus, UnsafeMutablePointer<Message>, Text, Text, Text) -> Int32).self)(
            bus, message, path, interface, member)
}
@discardableResult func sd_bus_send(_ bus: Bus, _ message: Message, _ cookie: UnsafeMutablePointer<UInt64>?) -> Int32 {
    sd.function(
        "sd_bus_send", as: (@convention(c) (Bus, Message, UnsafeMutablePointer<UInt64>?) -> Int32).self)(
            bus, message, cookie)
}
func sd_bus_request_name(_ bus: Bus, _ name: Text, _ flags: UInt64) -> Int32 {
    sd.function("sd_bus_request_name", as: (@convention(c) (Bus, Text, UInt64) -> Int32).self)(bus, name, flags)
}
func sd_bus_process(_ bus: Bus, _ message: UnsafeMutablePointer<Message>?) -> Int32 {
    sd.function("sd_bus_process", as: (@convention(c) (Bus, UnsafeMutablePointer<Message>?) -> Int32).self)(
        bus, message)
}
func sd_bus_get_fd(_ bus: Bus) -> Int32 {
    sd.function("sd_bus_get_fd", as: (@convention(c) (Bus) -> Int32).self)(bus)
}
func sd_bus_get_events(_ bus: Bus) -> Int32 {
    sd.function("sd_bus_get_events", as: (@convention(c) (Bus) -> Int32).self)(bus)
}
func sd_bus_get_timeout(_ bus: Bus, _ microseconds: UnsafeMutablePointer<UInt64>) -> Int32 {
    sd.function("sd_bus_get_timeout", as: (@convention(c) (Bus, UnsafeMutablePointer<UInt64>) -> Int32).self)(
        bus, microseconds)
}
@discardableResult func sd_bus_slot_unref(_ slot: OpaquePointer?) -> OpaquePointer? {
    sd.function("sd_bus_slot_unref", as: (@convention(c) (OpaquePointer?) -> OpaquePointer?).self)(slot)
}
func sd_bus_message_get_path(_ message: Message) -> Text {
    sd.function("sd_bus_message_get_path", as: (@convention(c) (Message) -> Text).self)(message)
}
func sd_bus_message_get_interface(_ message: Message) -> Text {
    sd.function("sd_bus_message_get_interface", as: (@convention(c) (Message) -> Text).self)(message)
}
func sd_bus_message_get_member(_ message: Message) -> Text {
    sd.function("sd_bus_message_get_member", as: (@convention(c) (Message) -> Text).self)(message)
}
func sd_bus_message_get_sender(_ message: Message) -> Text {
    sd.function("sd_bus_message_get_sender", as: (@convention(c) (Message) -> Text).self)(message)
}
func sd_bus_message_new_method_return(_ call: Message, _ reply: UnsafeMutablePointer<Message>) -> Int32 {
    sd.function(
        "sd_bus_message_new_method_return", as: (@convention(c) (Message, UnsafeMutablePointer<Message>) -> Int32).self
    )(call, reply)
}
func sd_bus_error_set(_ error: UnsafeMutablePointer<SDBusError>, _ name: Text, _ message: Text) -> Int32 {
    sd.function("sd_bus_error_set", as: (@convention(c) (UnsafeMutableRawPointer, Text, Text) -> Int32).self)(
        error, name, message)
}
func sd_bus_error_free(_ error: UnsafeMutablePointer<SDBusError>) {
    sd.function("sd_bus_error_free", as: (@convention(c) (UnsafeMutableRawPointer) -> Void).self)(error)
}
@discardableResult func sd_bus_reply_method_error(_ call: Message, _ error: UnsafePointer<SDBusError>) -> Int32 {
    sd.function("sd_bus_reply_method_error", as: (@convention(c) (Message, UnsafeRawPointer) -> Int32).self)(
        call, error)
}
func sd_bus_message_append_basic(_ message: Message, _ type: CChar, _ value: UnsafeRawPointer?) -> Int32 {
    sd.function(
        "sd_bus_message_append_basic", as: (@convention(c) (Message, CChar, UnsafeRawPointer?) -> Int32).self)(
            message, type, value)
}
func sd_bus_message_append_array(_ message: Message, _ type: CChar, _ bytes: UnsafeRawPointer?, _ size: Int) -> Int32 {
    sd.function(
        "sd_bus_message_append_array", as: (@convention(c) (Message, CChar, UnsafeRawPointer?, Int) -> Int32).self)(
            message, type, bytes, size)
}
func sd_bus_message_open_container(_ message: Message, _ type: CChar, _ contents: Text) -> Int32 {
    sd.function("sd_bus_message_open_container", as: (@convention(c) (Message, CChar, Text) -> Int32).self)(
        message, type, contents)
}
func sd_bus_message_close_container(_ message: Message) -> Int32 {
    sd.function("sd_bus_message_close_container", as: (@convention(c) (Message) -> Int32).self)(message)
}
func sd_bus_message_read_basic(_ message: Message, _ type: CChar, _ value: UnsafeMutableRawPointer?) -> Int32 {
    sd.function(
        "sd_bus_message_read_basic", as: (@convention(c) (Message, CChar, UnsafeMutableRawPointer?) -> Int32).self)(
            message, type, value)
}
func sd_bus_message_peek_type(
    _ message: Message, _ type: UnsafeMutablePointer<CChar>?, _ contents: UnsafeMutablePointer<Text>?
) -> Int32 {
    sd.function(
        "sd_bus_message_peek_type",
        as: (@convention(c) (Message, UnsafeMutablePointer<CChar>?, UnsafeMutablePointer<Text>?) -> Int32).self)(
            message, type, contents)
}
func sd_bus_message_read_array(
    _ message: Message, _ type: CChar, _ bytes: UnsafeMutablePointer<UnsafeRawPointer?>,
    _ size: UnsafeMutablePointer<Int>
) -> Int32 {
    sd.function(
        "sd_bus_message_read_array",
        as: (@convention(c) (Message, CChar, UnsafeMutablePointer<UnsafeRawPointer?>, UnsafeMutablePointer<Int>) ->
            Int32)
            .self)(message, type, bytes, size)
}
func sd_bus_message_enter_container(_ message: Message, _ type: CChar, _ contents: Text) -> Int32 {
    sd.function("sd_bus_message_enter_container", as: (@convention(c) (Message, CChar, Text) -> Int32).self)(
        message, type, contents)
}
func sd_bus_message_exit_container(_ message: Message) -> Int32 {
    sd.function("sd_bus_message_exit_container", as: (@convention(c) (Message) -> Int32).self)(message)
}

/// `eventfd(2)`, which Glibc's module map leaves out: a counter to wake the bus thread with.
@_silgen_name("eventfd") func eventfd(_ initial: UInt32, _ flags: Int32) -> Int32
/// `EFD_CLOEXEC` and `EFD_NONBLOCK` are `O_CLOEXEC` and `O_NONBLOCK`.
let EFD_CLOEXEC = O_CLOEXEC
let EFD_NONBLOCK = O_NONBLOCK
