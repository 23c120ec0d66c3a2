/// An MQTT 3.1.1 control packet (OASIS Standard, 29 October 2014, with Errata 01), as a client sends or receives it.
///
/// Every one of the fourteen packet types is here, so that what a broker may send is decoded rather than refused as
/// unknown, and what is encoded decodes to the same value.
///
/// ```swift
/// let publish = Packet.publish(
///     Publish(topic: "a/b", payload: Array("22.5".utf8), qos: .atLeastOnce, packetID: 10))
/// try publish.encoded()   // 32 0B 00 03 61 2F 62 00 0A 32 32 2E 35
/// ```
public enum Packet: Hashable, Sendable {
    /// A client asks to connect (type 1).
    case connect(Connect)
    /// The server answers a CONNECT (type 2): whether it kept a session, and whether it accepted.
    case connAck(sessionPresent: Bool, returnCode: ConnectReturnCode)
    /// An application message (type 3).
    case publish(Publish)
    /// A QoS 1 message was received (type 4).
    case pubAck(packetID: UInt16)
    /// A QoS 2 message was received, first step (type 5).
    case pubRec(packetID: UInt16)
    /// A QoS 2 message is released, second step (type 6).
    case pubRel(packetID: UInt16)
    /// A QoS 2 message is complete, third step (type 7).
    case pubComp(packetID: UInt16)
    /// A client subscribes to topic filters, each with its maximum QoS (type 8).
    case subscribe(packetID: UInt16, subscriptions: [Subscription])
    /// The server answers a SUBSCRIBE: one return code per filter, in order (type 9).
    case subAck(packetID: UInt16, returnCodes: [SubscribeReturnCode])
    /// A client ends subscriptions (type 10).
    case unsubscribe(packetID: UInt16, topicFilters: [String])
    /// The server answers an UNSUBSCRIBE (type 11).
    case unsubAck(packetID: UInt16)
    /// A client's keep-alive (type 12).
    case pingReq
    /// The server's answer to a PINGREQ (type 13).
    case pingResp
    /// A client disconnects cleanly: the server discards its will (type 14).
    case disconnect

    /// The packet's type: the high four bits of its first byte.
    public var type: UInt8 {
        switch self {
        case .connect: 1
        case .connAck: 2
        case .publish: 3
        case .pubAck: 4
        case .pubRec: 5
        case .pubRel: 6
        case .pubComp: 7
        case .subscribe: 8
        case .subAck: 9
        case .unsubscribe: 10
        case .unsubAck: 11
        case .pingReq: 12
        case .pingResp: 13
        case .disconnect: 14
        }
    }

    /// The packet's name as the specification writes it: `PUBLISH`.
    public var name: String { Self.names[Int(type)] }

    /// `type`'s name with its article, as a message begins: `a PUBLISH`, `an UNSUBSCRIBE`.
    static func phrase(_ type: UInt8) -> String {
        let name = names[Int(type)]
        return (name.hasPrefix("UNSUB") ? "an " : "a ") + name
    }

    static let names = [
        "reserved", "CONNECT", "CONNACK", "PUBLISH", "PUBACK", "PUBREC", "PUBREL", "PUBCOMP", "SUBSCRIBE", "SUBACK",
        "UNSUBSCRIBE", "UNSUBACK", "PINGREQ", "PINGRESP", "DISCONNECT", "reserved",
    ]
}

/// A quality of service: how often a message is delivered.
public enum QoS: UInt8, CaseIterable, Hashable, Sendable {
    /// Once at most: no acknowledgement.
    case atMostOnce = 0
    /// Once at least: acknowledged by a PUBACK; sent again (DUP) until then.
    case atLeastOnce = 1
    /// Exactly once: PUBREC, PUBREL, PUBCOMP.
    case exactlyOnce = 2
}

/// What a CONNECT asks: the client's identifier, its session, keep-alive, will and credentials.
public struct Connect: Hashable, Sendable {
    /// The client's identifier: 1–23 of `0-9a-zA-Z` are what every server must accept; an empty one asks the
    /// server to assign one (a server refuses it without ``cleanSession``: identifier rejected).
    public var clientID: String
    /// Whether the server discards any session it keeps for the client, and keeps none after.
    public var cleanSession: Bool
    /// The longest time, in seconds, between two packets the client sends; 0 turns keep-alive off.
    public var keepAlive: UInt16
    /// What the server publishes when the connection ends without a DISCONNECT.
    public var will: Will?
    public var userName: String?
    /// The password: binary data, sent only with a ``userName`` in 3.1.1.
    public var password: [UInt8]?

    public init(
        clientID: String, cleanSession: Bool = true, keepAlive: UInt16 = 60, will: Will? = nil,
        userName: String? = nil, password: [UInt8]? = nil
    ) {
        self.clientID = clientID
        self.cleanSession = cleanSession
        self.keepAlive = keepAlive
        self.will = will
        self.userName = userName
        self.password = password
    }
}

/// A CONNECT's will: the message the server publishes for the client when its connection ends without a
/// DISCONNECT (a crash, a dropped network, a keep-alive missed).
public struct Will: Hashable, Sendable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: QoS
    public var retain: Bool

    public init(topic: String, payload: [UInt8], qos: QoS = .atLeastOnce, retain: Bool = true) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }
}

/// A CONNACK's answer.
public enum ConnectReturnCode: UInt8, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    case accepted = 0
    case unacceptableProtocolVersion = 1
    case identifierRejected = 2
    case serverUnavailable = 3
    case badUserNameOrPassword = 4
    case notAuthorized = 5

    /// The specification's words for the code: `Connection Refused, not authorized`.
    public var description: String {
        switch self {
        case .accepted: "Connection Accepted"
        case .unacceptableProtocolVersion: "Connection Refused, unacceptable protocol version"
        case .identifierRejected: "Connection Refused, identifier rejected"
        case .serverUnavailable: "Connection Refused, Server unavailable"
        case .badUserNameOrPassword: "Connection Refused, bad user name or password"
        case .notAuthorized: "Connection Refused, not authorized"
        }
    }
}

/// An application message: its topic, payload, QoS and flags.
public struct Publish: Hashable, Sendable {
    /// A topic name: no wildcard (``Topic/checkName(_:)``).
    public var topic: String
    public var payload: [UInt8]
    public var qos: QoS
    /// Whether the server keeps the message as the topic's last, for subscribers that come later; an empty
    /// payload retained clears what the topic kept.
    public var retain: Bool
    /// Whether this is a QoS 1 or 2 message sent again; always `false` at QoS 0.
    public var duplicate: Bool
    /// The packet identifier of a QoS 1 or 2 message (1–65535); `nil` at QoS 0.
    public var packetID: UInt16?

    public init(
        topic: String, payload: [UInt8], qos: QoS = .atMostOnce, retain: Bool = false, duplicate: Bool = false,
        packetID: UInt16? = nil
    ) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.duplicate = duplicate
        self.packetID = packetID
    }
}

/// A SUBSCRIBE's topic filter and the highest QoS the client takes on it.
public struct Subscription: Hashable, Sendable {
    public var topicFilter: String
    public var qos: QoS

    public init(topicFilter: String, qos: QoS) {
        self.topicFilter = topicFilter
        self.qos = qos
    }
}

/// A SUBACK's answer for one filter: the QoS granted, or failure.
public enum SubscribeReturnCode: Hashable, Sendable {
    case granted(QoS)
    case failure

    /// The byte: 0x00–0x02, or 0x80.
    public var rawValue: UInt8 {
        switch self {
        case .granted(let qos): qos.rawValue
        case .failure: 0x80
        }
    }

    /// The code of `byte`; `nil` for a reserved value.
    public init?(rawValue byte: UInt8) {
        if byte == 0x80 {
            self = .failure
        } else if let qos = QoS(rawValue: byte) {
            self = .granted(qos)
        } else {
            return nil
        }
    }
}

/// Why bytes are not an MQTT 3.1.1 packet, or a value cannot be encoded as one: a code to match on and a message
/// that names the packet and the field.
public struct MQTTError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem it is.
    public enum Code: String, Hashable, Sendable {
        /// The Remaining Length takes more than four bytes, or is longer than the decoder allows.
        case remainingLength
        /// The packet type is 0 or 15, reserved.
        case reservedType
        /// The first byte's flags are not those the type requires, or a QoS is 3.
        case flags
        /// The packet ends before a field, or has bytes after its last.
        case length
        /// A string is not valid UTF-8, holds U+0000, or is longer than 65,535 bytes.
        case string
        /// A topic name or filter breaks the rules of topics.
        case topic
        /// A field's value is not one the specification allows (a protocol name, a return code, a packet
        /// identifier of 0, connect flags).
        case field
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
