import DBus
import Dispatch
import FuzzCheck
import Glibc

// The D-Bus message decoder: the arguments of a method call, as `DBusConnection` reads them for a served object.
// The product has no decoder over bytes: sd-bus (libsystemd, loaded at run time) receives and checks a message, and
// DBus walks its values into `DBusValue`s. So the target plays the bus: it listens on a Unix socket, answers the
// connection's authentication and Hello, and then sends each input as a method call to an object the connection
// serves, whose handler replies with the arguments it was given. The input is a signature's length (first byte),
// the signature and the body. Properties: nothing traps and the connection survives every input; a call is answered
// (with the arguments, or with an error for a body sd-bus refuses); the reply keeps the call's signature; and the
// reply's body, sent again as a call, is decoded and answered with the same bytes (decode → encode → decode).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDBus(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzInput(data, size)
    guard let length = input.first else { return 0 }
    let signature = Array(input.dropFirst().prefix(Int(length)))
    let body = Array(input.dropFirst(1 + signature.count))
    // a NUL ends the header's signature field early: a malformed header, not the decoder's concern
    guard !signature.contains(0) else { return 0 }
    let bus = FakeBus.shared
    guard let first = bus.echo(signature: signature, body: body) else { return 0 }
    require(first.signature == signature, "the reply's signature \(text(first.signature)) is not \(text(signature))")
    guard let second = bus.echo(signature: first.signature, body: first.body) else {
        fatalError("property broken: a body the connection encoded is refused when sent back")
    }
    require(second.signature == first.signature, "a re-sent body comes back with another signature")
    require(second.body == first.body, "a re-sent body comes back with other bytes")
    return 0
}

func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

/// How many calls the handler was given: whether it ran tells a call it answers later from one sd-bus refused.
nonisolated(unsafe) var handled = 0
let handledLock = PthreadLock()

/// A pthread mutex: the handler runs on the connection's thread.
final class PthreadLock: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    init() { pthread_mutex_init(&mutex, nil) }
    func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body()
    }
}

/// The bus side of one connection, opened at the first input and kept for the whole run.
final class FakeBus: @unchecked Sendable {
    static let shared = FakeBus()

    private let socket: Int32
    private var serial: UInt32 = 100
    private let connection: DBusConnection
    private let subscription: DBusSubscription

    private init() {
        let path = "/tmp/vitalbridge-fuzz-dbus-\(getpid())"
        unlink(path)
        let listener = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (offset, byte) in path.utf8.enumerated() { raw[offset] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        precondition(bound == 0 && listen(listener, 1) == 0, "cannot listen on \(path)")
        let opened = Box<(DBusConnection, DBusSubscription)?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let connection = try! await DBusConnection.open(.address("unix:path=\(path)"))
            let subscription = try! await connection.serve("/fuzz") { call in
                handledLock.locked { handled += 1 }
                call.reply(call.message.arguments)
            }
            opened.value = (connection, subscription)
            done.signal()
        }
        socket = accept(listener, nil, nil)
        close(listener)
        unlink(path)
        precondition(socket >= 0, "no connection came")
        Self.authenticate(socket)
        let hello = Self.receive(socket)
        var reply = Message(type: 2, serial: 1)
        reply.field(5, "u", .uint32(hello.serial))
        reply.field(7, "s", .string(Array("org.freedesktop.DBus".utf8)))
        reply.field(6, "s", .string(Array(":1.1".utf8)))
        reply.field(8, "g", .signature(Array("s".utf8)))
        Self.send(socket, reply.bytes(body: Message.string(":1.1")))
        done.wait()
        (connection, subscription) = opened.value!
    }

    /// Sends a call with `signature` and `body`; the reply's signature and body, or `nil` when the call is
    /// refused: answered with an error, or dropped by sd-bus as malformed.
    func echo(signature: [UInt8], body: [UInt8]) -> (signature: [UInt8], body: [UInt8])? {
        let before = handledLock.locked { handled }
        serial += 2
        let callSerial = serial
        var call = Message(type: 1, serial: callSerial)
        call.field(1, "o", .string(Array("/fuzz/object".utf8)))
        call.field(3, "s", .string(Array("Echo".utf8)))
        call.field(7, "s", .string(Array(":1.0".utf8)))
        call.field(6, "s", .string(Array(":1.1".utf8)))
        if !signature.isEmpty { call.field(8, "g", .signature(signature)) }
        // a Ping after it: its answer says that sd-bus has read the call
        Self.send(socket, call.bytes(body: body) + Self.ping(serial: callSerial + 1))
        var answer: Received?
        var pinged = false
        while answer == nil {
            if pinged && handledLock.locked({ handled }) == before { break }
            let message = Self.receive(socket)
            if message.replySerial == callSerial + 1 {
                pinged = true
            } else if message.replySerial == callSerial {
                answer = message
            }
        }
        if !pinged {
            while Self.receive(socket).replySerial != callSerial + 1 {}
        }
        // a signal the connection emits on its thread's next turn, after the one that sent the reply: the reply's
        // values are released by then, so that LeakSanitizer sees no value of one input alive during the next (it
        // cannot follow an indirect enum's tagged pointers to its boxes, and would report them as leaked)
        connection.emit("/fuzz", "org.example.Fuzz", "Turn", [])
        while Self.receive(socket).type != 4 {}
        guard let answer, answer.type == 2 else { return nil }
        return (answer.signature, answer.body)
    }

    /// A call of `org.freedesktop.DBus.Peer.Ping`, which sd-bus answers itself.
    static func ping(serial: UInt32) -> [UInt8] {
        var ping = Message(type: 1, serial: serial)
        ping.field(1, "o", .string(Array("/".utf8)))
        ping.field(2, "s", .string(Array("org.freedesktop.DBus.Peer".utf8)))
        ping.field(3, "s", .string(Array("Ping".utf8)))
        ping.field(7, "s", .string(Array(":1.0".utf8)))
        ping.field(6, "s", .string(Array(":1.1".utf8)))
        return ping.bytes(body: [])
    }

    /// Answers the client's SASL lines up to BEGIN.
    static func authenticate(_ socket: Int32) {
        var pending: [UInt8] = []
        while true {
            var byte: UInt8 = 0
            precondition(read(socket, &byte, 1) == 1, "the connection ended during authentication")
            if byte == 0 && pending.isEmpty { continue }
            pending.append(byte)
            guard pending.suffix(2) == [13, 10] else { continue }
            let line = String(decoding: pending.dropLast(2), as: UTF8.self)
            pending = []
            if line == "AUTH EXTERNAL" {
                // sd-bus gives its identity in an empty DATA line, after this challenge
                send(socket, Array("DATA\r\n".utf8))
            } else if line.hasPrefix("AUTH") || line.hasPrefix("DATA") {
                send(socket, Array("OK 0123456789abcdef0123456789abcdef\r\n".utf8))
            } else if line.hasPrefix("NEGOTIATE_UNIX_FD") {
                send(socket, Array("AGREE_UNIX_FD\r\n".utf8))
            } else if line.hasPrefix("BEGIN") {
                return
            } else {
                send(socket, Array("ERROR\r\n".utf8))
            }
        }
    }

    static func send(_ socket: Int32, _ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let written = bytes[sent...].withUnsafeBytes { write(socket, $0.baseAddress, $0.count) }
            precondition(written > 0, "the connection was closed: an input broke it")
            sent += written
        }
    }

    static func readExactly(_ socket: Int32, _ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let result = bytes[got...].withUnsafeMutableBytes { read(socket, $0.baseAddress, $0.count) }
            precondition(result > 0, "the connection was closed: an input broke it")
            got += result
        }
        return bytes
    }

    /// The next message from the connection (little-endian, as sd-bus writes on this machine).
    static func receive(_ socket: Int32) -> Received {
        let fixed = readExactly(socket, 16)
        precondition(fixed[0] == UInt8(ascii: "l"), "a big-endian message")
        let bodyLength = Int(uint32(fixed, 4))
        let fieldsLength = Int(uint32(fixed, 12))
        let rest = readExactly(socket, (fieldsLength + 7) / 8 * 8 + bodyLength)
        let message = fixed + rest
        var received = Received(type: fixed[1], serial: uint32(fixed, 8))
        var offset = 16
        while offset < 16 + fieldsLength {
            offset = (offset + 7) / 8 * 8
            let code = message[offset]
            let typeLength = Int(message[offset + 1])
            let type = message[offset + 2]
            offset += 3 + typeLength
            switch type {
            case UInt8(ascii: "u"):
                offset = (offset + 3) / 4 * 4
                if code == 5 { received.replySerial = uint32(message, offset) }
                offset += 4
            case UInt8(ascii: "g"):
                let length = Int(message[offset])
                if code == 8 { received.signature = Array(message[(offset + 1)..<(offset + 1 + length)]) }
                offset += length + 2
            default:
                offset = (offset + 3) / 4 * 4
                offset += 4 + Int(uint32(message, offset)) + 1
            }
        }
        received.body = Array(message[(16 + (fieldsLength + 7) / 8 * 8)...])
        return received
    }

    static func uint32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
    }
}

struct Received {
    var type: UInt8
    var serial: UInt32
    var replySerial: UInt32?
    var signature: [UInt8] = []
    var body: [UInt8] = []
}

/// A D-Bus message being written: its header fields, then its body.
struct Message {
    enum Value {
        case uint32(UInt32)
        case string([UInt8])
        case signature([UInt8])
    }

    var type: UInt8
    var serial: UInt32
    var fields: [(UInt8, Character, Value)] = []

    init(type: UInt8, serial: UInt32) {
        self.type = type
        self.serial = serial
    }

    mutating func field(_ code: UInt8, _ kind: Character, _ value: Value) { fields.append((code, kind, value)) }

    static func string(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        return little(UInt32(bytes.count)) + bytes + [0]
    }

    static func little(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    func bytes(body: [UInt8]) -> [UInt8] {
        var header: [UInt8] = [UInt8(ascii: "l"), type, 0, 1] + Self.little(UInt32(body.count)) + Self.little(serial)
        header += [0, 0, 0, 0]  // the fields' length, set below
        func pad(_ alignment: Int) { while header.count % alignment != 0 { header.append(0) } }
        for (code, kind, value) in fields {
            pad(8)
            header += [code, 1, kind.asciiValue!, 0]
            switch value {
            case .uint32(let number):
                pad(4)
                header += Self.little(number)
            case .string(let text):
                pad(4)
                header += Self.little(UInt32(text.count)) + text + [0]
            case .signature(let text):
                header += [UInt8(text.count)] + text + [0]
            }
        }
        let fieldsLength = Self.little(UInt32(header.count - 16))
        header.replaceSubrange(12..<16, with: fieldsLength)
        pad(8)
        return header + body
    }
}

/// A value handed from the task that opens the connection.
final class Box<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
