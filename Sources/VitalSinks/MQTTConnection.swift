import Logging
import MQTT
import NIOCore
import NIOPosix
import NIOSSL
import SinkSettings

/// A connection to an MQTT broker that publishes messages at QoS 1 and says when the broker has every one of them.
///
/// ```swift
/// let broker = try await MQTTConnection.connect(
///     host: "127.0.0.1", port: 1883, options: .init(clientID: "vitalbridge-2b1f", userName: "hub", password: pw),
///     logger: logger)
/// try await broker.publish([.init(topic: "vitalbridge/2b1f/changes", payload: line)])   // PUBACKed, all of them
/// await broker.close()                                                                  // DISCONNECT
/// ```
///
/// ``publish(_:)`` pipelines: up to ``Options/window`` messages are in flight at once, each new one written as a
/// PUBACK frees a place, and it returns only when the broker has acknowledged every message it was given, in
/// order. A connection that fails (the broker refused, closed, sent a malformed packet, acknowledged nothing for
/// ``Options/acknowledgementTimeout``) fails the call with a `SinkError` naming the broker and what happened, and
/// every later call too: connect again, and publish again what was not acknowledged (QoS 1: at least once).
///
/// While it is open the connection sends PINGREQ every half ``Options/keepAlive``, so that a broker does not drop a
/// connection kept between pushes.
public final class MQTTConnection: Sendable {
    /// How the connection logs in, and how it publishes.
    public struct Options: Sendable {
        /// The client identifier: a broker drops the older of two connections with one identifier.
        public var clientID: String
        public var userName: String?
        public var password: String?
        /// What the broker publishes when the connection ends without ``MQTTConnection/close(publishing:)``.
        public var will: Will?
        /// Seconds between two packets at most; PINGREQ is sent every half of it.
        public var keepAlive: UInt16
        /// The messages in flight at once: 1 to 65535, the packet identifiers there are.
        public var window: Int
        /// How long a publish waits for the broker's next acknowledgement before it fails.
        public var acknowledgementTimeout: Duration
        /// How long the TCP connection, the TLS handshake and the CONNACK may take together.
        public var connectTimeout: Duration

        public init(
            clientID: String, userName: String? = nil, password: String? = nil, will: Will? = nil,
            keepAlive: UInt16 = 60, window: Int = 64, acknowledgementTimeout: Duration = .seconds(30),
            connectTimeout: Duration = .seconds(10)
        ) {
            precondition((1...65_535).contains(window), "an MQTT window is 1 to 65535 messages: its packet identifiers")
            self.clientID = clientID
            self.userName = userName
            self.password = password
            self.will = will
            self.keepAlive = keepAlive
            self.window = window
            self.acknowledgementTimeout = acknowledgementTimeout
            self.connectTimeout = connectTimeout
        }
    }

    /// A message to publish at QoS 1.
    public struct Message: Hashable, Sendable {
        /// A topic name: no `+`, `#` or U+0000.
        public var topic: String
        public var payload: [UInt8]
        /// Whether the broker keeps it as the topic's last; an empty payload retained clears what it kept.
        public var retain: Bool

        public init(topic: String, payload: [UInt8], retain: Bool = false) {
            self.topic = topic
            self.payload = payload
            self.retain = retain
        }
    }

    /// The longest packet accepted from a broker: a publisher is sent only acknowledgements.
    static let maximumReceived = 4_096

    private let channel: any Channel
    private let handler: NIOLoopBound<MQTTClientHandler>
    /// The broker as a message names it: `broker.local:8883`.
    public let server: String

    private init(channel: any Channel, handler: NIOLoopBound<MQTTClientHandler>, server: String) {
        self.channel = channel
        self.handler = handler
        self.server = server
    }

    /// Connects to the broker at `host`:`port` (over TLS with `tls`, checking its certificate names `serverName`
    /// when the configuration verifies it) and logs in with `options`.
    ///
    /// - Throws: `SinkError` with code `connectionFailed` naming the broker and why: unreachable, the TLS
    ///   handshake, the CONNACK's refusal in the specification's words, no answer in time. Never the password.
    public static func connect(
        host: String, port: Int, tls: TLSConfiguration? = nil, serverName: String? = nil, options: Options,
        logger: Logger
    ) async throws(SinkError) -> MQTTConnection {
        let server = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        func failure(_ why: String) -> SinkError { SinkError(.connectionFailed, "cannot connect to \(server): \(why)") }
        let sslContext: NIOSSLContext?
        do {
            sslContext = try tls.map { try NIOSSLContext(configuration: $0) }
        } catch NIOSSLError.noSuchFilesystemObject {
            throw failure("TLS cannot be set up: the CA file does not exist")
        } catch {
            throw failure("TLS cannot be set up: the CA file holds no PEM certificate (\(brief(error, caFile: "it")))")
        }
        let connect = try Self.connectPacket(options)
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let connected = eventLoop.makePromise(of: Void.self)
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(TimeAmount(options.connectTimeout))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let sslContext {
                        let name = serverName ?? (SinkAddress.isIPAddress(host) ? nil : host)
                        try channel.pipeline.syncOperations.addHandler(
                            try NIOSSLClientHandler(context: sslContext, serverHostname: name))
                    }
                    try channel.pipeline.syncOperations.addHandler(
                        MQTTClientHandler(
                            server: server, connect: connect, connected: connected, options: options, logger: logger))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: host, port: port).get()
        } catch {
            connected.fail(error)
            throw failure(brief(error, caFile: "the CA file"))
        }
        let handler: NIOLoopBound<MQTTClientHandler>
        do {
            try await connected.futureResult.get()
            handler = try await eventLoop.submit {
                NIOLoopBound(
                    try channel.pipeline.syncOperations.handler(type: MQTTClientHandler.self), eventLoop: eventLoop)
            }.get()
        } catch {
            try? await channel.close()
            throw failure((error as? SinkError)?.message ?? brief(error, caFile: "the CA file"))
        }
        logger.debug("connected to the broker", metadata: ["server": "\(server)"])
        return MQTTConnection(channel: channel, handler: handler, server: server)
    }

    /// Publishes `messages` at QoS 1, in order, and returns when the broker has acknowledged each of them.
    ///
    /// - Throws: `SinkError` naming the broker and what ended the connection, or the first message that cannot be
    ///   sent (a topic with a wildcard); the messages before it may have arrived.
    public func publish(_ messages: [Message]) async throws(SinkError) {
        guard !messages.isEmpty else { return }
        for message in messages {
            do {
                try Topic.checkName(message.topic)
            } catch {
                throw SinkError(.queryFailed, "cannot publish to \(message.topic.debugDescription): \(error.message)")
            }
        }
        let promise = channel.eventLoop.makePromise(of: Void.self)
        let handler = handler
        channel.eventLoop.execute { handler.value.start(messages, promise: promise) }
        do {
            try await promise.futureResult.get()
        } catch let error as SinkError {
            throw error
        } catch {
            throw SinkError(.queryFailed, "the broker at \(server): \(brief(error, caFile: "the CA file"))")
        }
    }

    /// Whether the connection has ended: the broker closed it, or ``close(publishing:)`` did.
    public var isClosed: Bool { !channel.isActive }

    /// Publishes `last` (without waiting for the broker's acknowledgements: it handles them before the DISCONNECT
    /// that follows), sends DISCONNECT (the broker then discards the will) and closes the connection; a broker that
    /// takes more than 5 seconds to take them is closed on.
    public func close(publishing last: [Message] = []) async {
        let handler = handler
        let channel = channel
        let done = channel.eventLoop.makePromise(of: Void.self)
        let limit = channel.eventLoop.scheduleTask(in: .seconds(5)) { channel.close(promise: nil) }
        channel.eventLoop.execute { handler.value.disconnect(publishing: last, promise: done) }
        try? await done.futureResult.get()
        limit.cancel()
        try? await channel.close()
    }

    static func connectPacket(_ options: Options) throws(SinkError) -> [UInt8] {
        do {
            return try Packet.connect(
                Connect(
                    clientID: options.clientID, cleanSession: true, keepAlive: options.keepAlive, will: options.will,
                    userName: options.userName, password: options.password.map { Array($0.utf8) })
            ).encoded()
        } catch {
            throw SinkError(.malformedAddress, "cannot log in to the broker: \(error.message)")
        }
    }
}

extension TimeAmount {
    /// `duration` in NIO's nanoseconds.
    init(_ duration: Duration) {
        self = .nanoseconds(
            Int64(duration.components.seconds) * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }
}

/// The connection's state, on its event loop: the CONNECT's answer, the batch being published and its messages in
/// flight, the keep-alive.
final class MQTTClientHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// A batch being published.
    private struct Batch {
        var messages: [MQTTConnection.Message]
        var next = 0
        /// The packet identifiers in flight, and their messages' places.
        var inFlight: [UInt16: Int] = [:]
        var acknowledged = 0
        let promise: EventLoopPromise<Void>
    }

    private let server: String
    private let connect: [UInt8]
    private var connected: EventLoopPromise<Void>?
    private let options: MQTTConnection.Options
    private let logger: Logger
    private let decoder = PacketDecoder(maximumRemainingLength: MQTTConnection.maximumReceived)
    private var received: ByteBuffer?
    private var batch: Batch?
    private var nextID: UInt16 = 1
    /// Why the connection ended; every call after fails with it.
    private var failure: SinkError?
    private var context: ChannelHandlerContext?
    private var keepAlive: RepeatedTask?
    private var acknowledgementDeadline: Scheduled<Void>?

    init(
        server: String, connect: [UInt8], connected: EventLoopPromise<Void>, options: MQTTConnection.Options,
        logger: Logger
    ) {
        self.server = server
        self.connect = connect
        self.connected = connected
        self.options = options
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { sendConnect(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        sendConnect(context)
        context.fireChannelActive()
    }

    private var sentConnect = false

    /// Sends the CONNECT once, and gives the broker the connect timeout to answer it.
    private func sendConnect(_ context: ChannelHandlerContext) {
        guard !sentConnect else { return }
        sentConnect = true
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: connect)), promise: nil)
        let timeout = options.connectTimeout
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: TimeAmount(timeout)) {
            guard handler.value.connected != nil else { return }
            handler.value.fail("the broker did not answer the CONNECT in \(timeout)")
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        var acknowledged = false
        if received == nil {
            received = bytes
        } else {
            received!.writeBuffer(&bytes)
        }
        while let buffer = received, failure == nil {
            let decoded: (packet: Packet, length: Int)?
            do {
                decoded = try decoder.decode(buffer.readableBytesView)
            } catch {
                fail("the broker sent a malformed packet: \(error.message)")
                return
            }
            guard let (packet, length) = decoded else { break }
            received!.moveReaderIndex(forwardBy: length)
            if received!.readableBytes == 0 { received = nil }
            if handle(packet, context) { acknowledged = true }
        }
        // the places the acknowledgements freed, filled in one write (which restarts the acknowledgement deadline:
        // a PINGRESP alone does not)
        if acknowledged && batch != nil && failure == nil { fill(context) }
    }

    /// Handles `packet`; whether it acknowledged a message of the batch.
    private func handle(_ packet: Packet, _ context: ChannelHandlerContext) -> Bool {
        switch packet {
        case .connAck(_, let code) where connected != nil:
            guard code == .accepted else {
                fail("the broker refused the connection: \(code)\(Self.advice(code))")
                return false
            }
            connected!.succeed()
            connected = nil
            let interval = TimeAmount.seconds(max(1, Int64(options.keepAlive) / 2))
            if options.keepAlive > 0 {
                let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
                keepAlive = context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
                    handler.value.ping()
                }
            }
            return false
        case .pubAck(let id):
            guard var batch, batch.inFlight.removeValue(forKey: id) != nil else {
                fail("the broker acknowledged packet \(id), which was not in flight")
                return false
            }
            batch.acknowledged += 1
            self.batch = batch
            if batch.acknowledged == batch.messages.count {
                self.batch = nil
                acknowledgementDeadline?.cancel()
                batch.promise.succeed()
            }
            return true
        case .pingResp:
            return false
        default:
            fail("the broker sent a \(packet.name), which a publisher is never sent")
            return false
        }
    }

    /// Words for a person after a refusal's code.
    static func advice(_ code: ConnectReturnCode) -> String {
        switch code {
        case .badUserNameOrPassword: " (check the user in the address and the password file)"
        case .notAuthorized: " (the broker's access rules do not let this user in)"
        default: ""
        }
    }

    func start(_ messages: [MQTTConnection.Message], promise: EventLoopPromise<Void>) {
        if let failure {
            promise.fail(failure)
            return
        }
        guard batch == nil, let context else {
            promise.fail(SinkError(.queryFailed, "the broker at \(server): a publish is already under way"))
            return
        }
        batch = Batch(messages: messages, promise: promise)
        fill(context)
    }

    /// Writes the batch's next messages while the window has room, and restarts the acknowledgement deadline.
    private func fill(_ context: ChannelHandlerContext) {
        guard var batch else { return }
        var buffer = context.channel.allocator.buffer(capacity: 0)
        var bytes: [UInt8] = []
        while batch.inFlight.count < options.window && batch.next < batch.messages.count {
            let message = batch.messages[batch.next]
            while batch.inFlight[nextID] != nil { nextID = nextID == .max ? 1 : nextID + 1 }
            let id = nextID
            nextID = nextID == .max ? 1 : nextID + 1
            do {
                bytes.removeAll(keepingCapacity: true)
                try Packet.publish(
                    Publish(
                        topic: message.topic, payload: message.payload, qos: .atLeastOnce, retain: message.retain,
                        packetID: id)
                ).encode(into: &bytes)
            } catch {
                self.batch = batch
                if buffer.readableBytes > 0 { context.writeAndFlush(wrapOutboundOut(buffer), promise: nil) }
                fail("cannot publish to \(message.topic.debugDescription): \(error.message)")
                return
            }
            buffer.writeBytes(bytes)
            batch.inFlight[id] = batch.next
            batch.next += 1
        }
        self.batch = batch
        if buffer.readableBytes > 0 { context.writeAndFlush(wrapOutboundOut(buffer), promise: nil) }
        acknowledgementDeadline?.cancel()
        let timeout = options.acknowledgementTimeout
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        acknowledgementDeadline = context.eventLoop.scheduleTask(in: TimeAmount(timeout)) {
            handler.value.fail("the broker acknowledged nothing for \(timeout)")
        }
    }

    private func ping() {
        guard let context, failure == nil else { return }
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: [0xC0, 0x00])), promise: nil)
    }

    /// Writes `last` at QoS 1 (their acknowledgements are not waited for), then DISCONNECT.
    func disconnect(publishing last: [MQTTConnection.Message], promise: EventLoopPromise<Void>) {
        guard let context, failure == nil, batch == nil else {
            promise.succeed()
            return
        }
        failure = SinkError(.queryFailed, "the connection to the broker at \(server) was closed")
        keepAlive?.cancel()
        var bytes: [UInt8] = []
        for message in last {
            let id = nextID
            nextID = nextID == .max ? 1 : nextID + 1
            try? Packet.publish(
                Publish(
                    topic: message.topic, payload: message.payload, qos: .atLeastOnce, retain: message.retain,
                    packetID: id)
            ).encode(into: &bytes)
        }
        bytes += [0xE0, 0x00]
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes))).cascade(to: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail("the broker closed the connection")
        // the context holds this handler: kept, the pipeline would never be freed
        self.context = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(brief(error, caFile: "the CA file"))
    }

    /// Ends the connection for `why`: the CONNECT's or the batch's caller hears it, and every later call.
    private func fail(_ why: String) {
        // before the CONNACK, connect(_:) says which broker
        let error =
            failure
            ?? (connected != nil
                ? SinkError(.connectionFailed, why) : SinkError(.queryFailed, "the broker at \(server): \(why)"))
        if failure == nil {
            failure = error
            // the caller hears it, and says it (the outbox logs a failed push)
            logger.debug("the connection to the broker ended", metadata: ["why": "\(why)"])
        }
        keepAlive?.cancel()
        acknowledgementDeadline?.cancel()
        connected?.fail(error)
        connected = nil
        batch?.promise.fail(error)
        batch = nil
        context?.close(promise: nil)
    }
}
