import DBus
import Foundation
import TestRequirements
import Testing
import VitalTestSupport

@Suite("DBusConnection", .needs(Requirement.bus))
struct DBusConnectionTests {
    /// Every kind of value, nested.
    static let everyKind: [DBusValue] = [
        .byte(0xFE), .boolean(true), .int16(-2), .uint16(65535), .int32(-70000), .uint32(4_000_000_000),
        .int64(-1 << 40), .uint64(1 << 63), .double(37.25), .string("Grüße & = +"), .objectPath("/org/bluez/hci0"),
        .signature("a{sv}"), .bytes([0x1E, 0x8A, 0x00, 0xFF]), .bytes([]), .strings(["a", "", "ü"]),
        .array(elementSignature: "(qay)", [.structure([.uint16(1), .bytes([1, 2])])]),
        .properties(["Powered": .boolean(true), "Roles": .strings(["central"]), "Value": .bytes([7])]),
        .structure([.string("x"), .variant(.variant(.uint32(5)))]),
        .array(elementSignature: "s", []),
    ]

    @Test("a call carries every kind of value there and back over a real bus")
    func echo() async throws {
        let pair = try await Pair()
        defer { pair.stop() }
        let (server, client) = (pair.first, pair.second)
        try await server.requestName("org.vitalbridge.Echo")
        let served = try await server.serve("/echo") { call in
            if call.message.member == "Echo" {
                call.reply(call.message.arguments)
            } else {
                call.fail(DBusError(name: "org.vitalbridge.Error.Unknown", message: call.message.member))
            }
        }
        defer { served.cancel() }
        let answer = try await client.call(
            "org.vitalbridge.Echo", "/echo/deeper", "org.vitalbridge.Echo", "Echo", Self.everyKind)
        #expect(answer == Self.everyKind)
        let error = await #expect(throws: DBusError.self) {
            try await client.call("org.vitalbridge.Echo", "/echo", "org.vitalbridge.Echo", "Other")
        }
        #expect(error?.name == "org.vitalbridge.Error.Unknown" && error?.message == "Other")
    }

    @Test("a call to nobody, or one never answered, fails with the bus's error, not a hang")
    func noAnswer() async throws {
        let pair = try await Pair()
        defer { pair.stop() }
        let (client, server) = (pair.first, pair.second)
        let missing = await #expect(throws: DBusError.self) {
            try await client.call("org.vitalbridge.Nobody", "/", "org.vitalbridge.X", "Y")
        }
        #expect(missing?.name == "org.freedesktop.DBus.Error.ServiceUnknown")
        try await server.requestName("org.vitalbridge.Silent")
        let held = Held()
        let served = try await server.serve("/") { held.keep($0) }
        defer { served.cancel() }
        let silent = await #expect(throws: DBusError.self) {
            try await client.call("org.vitalbridge.Silent", "/", "org.vitalbridge.X", "Y", timeout: .milliseconds(200))
        }
        #expect(silent?.name == "org.freedesktop.DBus.Error.NoReply")
    }

    @Test("a call whose task is cancelled ends at once, sent or not; the late reply is dropped")
    func cancelled() async throws {
        let pair = try await Pair()
        defer { pair.stop() }
        let (client, server) = (pair.first, pair.second)
        // on a thread of its own: the 5 s bounds measure the connection, not how long the tests that block the pool's
        // two threads (waiting for a process) keep this task from resuming (the bus is started and stopped off that
        // thread, which other suites' timed parts share)
        try await withTaskExecutorPreference(ThreadExecutor.shared) {
            try await server.requestName("org.vitalbridge.Slow")
            let held = Held()
            let served = try await server.serve("/slow") { held.keep($0) }
            defer { served.cancel() }
            let waiting = Task(executorPreference: ThreadExecutor.shared) {
                try await client.call(
                    "org.vitalbridge.Slow", "/slow", "org.vitalbridge.X", "Connect", timeout: .seconds(60))
            }
            while held.count == 0 { try await Task.sleep(for: .milliseconds(5)) }
            let cancelledAt = ContinuousClock.now
            waiting.cancel()
            let error = await #expect(throws: DBusError.self) { try await waiting.value }
            #expect(error?.name == DBusError.cancelled && error?.message == "org.vitalbridge.X.Connect was cancelled")
            #expect(ContinuousClock.now - cancelledAt < .seconds(5))
            held.answerAll()
            // cancelled before it starts: not sent, not waited for; the connection still serves the next call
            let early = Task(executorPreference: ThreadExecutor.shared) {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await client.call(
                    "org.vitalbridge.Slow", "/slow", "org.vitalbridge.X", "Y", timeout: .seconds(60))
            }
            let startedEarly = ContinuousClock.now
            let earlyError = await #expect(throws: DBusError.self) { try await early.value }
            #expect(earlyError?.name == DBusError.cancelled)
            #expect(ContinuousClock.now - startedEarly < .seconds(5))
            #expect(held.count == 1)
            let echo = try await server.serve("/echo") { $0.reply([.string("here")]) }
            defer { echo.cancel() }
            #expect(
                try await client.call("org.vitalbridge.Slow", "/echo", "org.vitalbridge.X", "Z") == [.string("here")])
        }
    }

    @Test("signals reach a matching subscriber, in order, until it cancels")
    func signals() async throws {
        let pair = try await Pair()
        defer { pair.stop() }
        let (sender, receiver) = (pair.first, pair.second)
        let (stream, continuation) = AsyncStream.makeStream(of: DBusMessage.self)
        let subscription = try await receiver.subscribe(
            "type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'"
        ) { continuation.yield($0) }
        for index in 0..<100 {
            sender.emit(
                "/org/bluez/hci0/dev_00_4D_32_08_D2_F4/service000a/char000b", "org.freedesktop.DBus.Properties",
                "PropertiesChanged",
                [
                    .string("org.bluez.GattCharacteristic1"), .properties(["Value": .bytes([UInt8(index)])]),
                    .strings([]),
                ])
        }
        sender.emit("/x", "org.vitalbridge.Other", "Ignored", [])
        var received: [UInt8] = []
        for await message in stream {
            #expect(message.sender == sender.uniqueName && message.member == "PropertiesChanged")
            received += message.arguments[1].dictionary?["Value"]?.byteArray ?? []
            if received.count == 100 { break }
        }
        #expect(received == (0..<100).map(UInt8.init))
        subscription.cancel()
    }

    @Test("a file descriptor passes through the bus")
    func descriptor() async throws {
        let pair = try await Pair()
        defer { pair.stop() }
        let (server, client) = (pair.first, pair.second)
        try await server.requestName("org.vitalbridge.Pipe")
        var ends: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &ends) == 0)
        let remote = ends[1]
        let served = try await server.serve("/pipe") { call in
            call.reply([.unixFD(remote), .uint16(23)])
        }
        defer { served.cancel() }
        let answer = try await client.call("org.vitalbridge.Pipe", "/pipe", "org.vitalbridge.Pipe", "Acquire")
        close(remote)
        guard case .unixFD(let received) = answer.first else {
            Issue.record("no descriptor: \(answer)")
            return
        }
        defer { close(received) }
        #expect(answer.last == .uint16(23))
        let packet: [UInt8] = [0x16, 0x3C, 0x00]
        #expect(send(ends[0], packet, packet.count, 0) == packet.count)
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = recv(received, &buffer, buffer.count, 0)
        #expect(Array(buffer.prefix(count)) == packet)
        close(ends[0])
    }

    @Test("a closed connection fails new calls at once; a bus that dies fails the waiting ones")
    func closed() async throws {
        let bus = try PrivateBus()
        let client = try await DBusConnection.open(.address(bus.address))
        let server = try await DBusConnection.open(.address(bus.address))
        try await server.requestName("org.vitalbridge.Slow")
        let held = Held()
        let served = try await server.serve("/") { held.keep($0) }
        defer { served.cancel() }
        let waiting = Task { try await client.call("org.vitalbridge.Slow", "/", "org.vitalbridge.X", "Y") }
        // the call is waiting once the server holds it (however loaded the machine): only then does the bus die
        while held.count == 0 { try await Task.sleep(for: .milliseconds(10)) }
        bus.stop()
        let lost = await #expect(throws: DBusError.self) { try await waiting.value }
        #expect(lost?.name == "org.freedesktop.DBus.Error.NoReply")
        client.close()
        let after = await #expect(throws: DBusError.self) {
            try await client.call("org.vitalbridge.Slow", "/", "org.vitalbridge.X", "Y")
        }
        #expect(after?.name == "org.freedesktop.DBus.Error.Disconnected")
        server.close()
    }

    @Test("an unreachable bus is a clear error")
    func unreachable() async {
        let error = await #expect(throws: DBusError.self) {
            try await DBusConnection.open(.address("unix:path=/nonexistent/bus"))
        }
        #expect(error?.message.contains("connecting to the bus") == true)
    }
}

/// Two connections on a private bus of their own; ``stop()`` closes them and ends the bus.
struct Pair {
    let bus: PrivateBus
    let first: DBusConnection
    let second: DBusConnection

    init() async throws {
        bus = try PrivateBus()
        first = try await DBusConnection.open(.address(bus.address))
        second = try await DBusConnection.open(.address(bus.address))
    }

    func stop() {
        first.close()
        second.close()
        bus.stop()
    }
}

/// Keeps method calls unanswered.
final class Held: @unchecked Sendable {
    private let lock = NSLock()
    private var calls: [DBusMethodCall] = []
    func keep(_ call: DBusMethodCall) { lock.withLock { calls.append(call) } }
    var count: Int { lock.withLock { calls.count } }
    /// Answers the calls kept so far (with no values).
    func answerAll() { for call in lock.withLock({ calls }) { call.reply() } }
}
