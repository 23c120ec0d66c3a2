/// Decoding: packets out of the bytes a connection received, as they arrive.
///
/// ```swift
/// let decoder = PacketDecoder()
/// try decoder.decode([0x40, 0x02, 0x00])                // nil: a PUBACK's last byte is still to come
/// try decoder.decode([0x40, 0x02, 0x00, 0x0A, 0xD0])    // (.pubAck(packetID: 10), 4): the PINGRESP is next
/// try decoder.decode([0x41, 0x02, 0x00, 0x0A])          // throws .flags: a PUBACK's flags are 0
/// ```
public struct PacketDecoder: Sendable {
    /// The longest Remaining Length accepted: a longer packet is refused before its bytes are awaited, so that a
    /// peer cannot make the receiver hold 256 MB.
    public var maximumRemainingLength: Int

    /// A decoder refusing packets whose Remaining Length is over `maximumRemainingLength`.
    public init(maximumRemainingLength: Int = Packet.maximumRemainingLength) {
        self.maximumRemainingLength = min(maximumRemainingLength, Packet.maximumRemainingLength)
    }

    /// The first packet of `bytes` and how many bytes it took; `nil` while `bytes` hold only part of it.
    ///
    /// - Throws: ``MQTTError`` naming the packet and the field when the bytes cannot be a packet, whatever follows:
    ///   the connection must be closed.
    public func decode(_ bytes: some Collection<UInt8>) throws(MQTTError) -> (packet: Packet, length: Int)? {
        var index = bytes.startIndex
        guard index != bytes.endIndex else { return nil }
        let first = bytes[index]
        let type = first >> 4
        guard type != 0 && type != 15 else {
            throw MQTTError(.reservedType, "packet type \(type) is reserved: not an MQTT 3.1.1 packet")
        }
        let name = Packet.phrase(type)
        // the Remaining Length: at most four bytes
        var length = 0
        var multiplier = 1
        var digits = 0
        while true {
            index = bytes.index(after: index)
            guard index != bytes.endIndex else { return nil }
            let byte = bytes[index]
            digits += 1
            length += Int(byte & 0x7F) * multiplier
            multiplier *= 128
            if byte & 0x80 == 0 { break }
            guard digits < 4 else {
                throw MQTTError(.remainingLength, "\(name)'s Remaining Length runs past four bytes")
            }
        }
        guard length <= maximumRemainingLength else {
            throw MQTTError(
                .remainingLength,
                "\(name) of \(length) bytes is longer than the \(maximumRemainingLength) this connection accepts")
        }
        let headerLength = 1 + digits
        guard bytes.count - headerLength >= length else { return nil }
        let bodyStart = bytes.index(after: index)
        let body = Array(bytes[bodyStart..<bytes.index(bodyStart, offsetBy: length)])
        return (try Self.packet(type: type, flags: first & 0x0F, name: name, body: body), headerLength + length)
    }

    /// The packet of `type` with `flags` and `body`.
    static func packet(type: UInt8, flags: UInt8, name: String, body: [UInt8]) throws(MQTTError) -> Packet {
        let required: UInt8 = [6, 8, 10].contains(type) ? 0x02 : 0
        guard type == 3 || flags == required else {
            throw MQTTError(.flags, "\(name)'s flags are \(required), not \(flags)")
        }
        var reader = Reader(body: body[...], packet: name)
        let packet: Packet
        switch type {
        case 1: packet = .connect(try reader.connect())
        case 2:
            let acknowledge = try reader.byte("acknowledge flags")
            guard acknowledge & 0xFE == 0 else {
                throw MQTTError(.field, "a CONNACK's acknowledge flags 7–1 are reserved: they are not 0")
            }
            let byte = try reader.byte("return code")
            guard let code = ConnectReturnCode(rawValue: byte) else {
                throw MQTTError(.field, "a CONNACK's return code \(byte) is reserved")
            }
            guard code == .accepted || acknowledge == 0 else {
                throw MQTTError(.field, "a CONNACK that refuses has no session present")
            }
            packet = .connAck(sessionPresent: acknowledge == 1, returnCode: code)
        case 3:
            guard let qos = QoS(rawValue: flags >> 1 & 0x03) else {
                throw MQTTError(.flags, "a PUBLISH's QoS is 3: it must be 0, 1 or 2")
            }
            let duplicate = flags & 0x08 != 0
            guard qos != .atMostOnce || !duplicate else { throw MQTTError(.flags, "a QoS 0 PUBLISH is never a DUP") }
            let topic = try reader.string("topic name")
            try Topic.checkName(topic, subject: "a PUBLISH's topic name")
            let id = qos == .atMostOnce ? nil : try reader.packetID()
            packet = .publish(
                Publish(
                    topic: topic, payload: Array(reader.rest()), qos: qos, retain: flags & 0x01 != 0,
                    duplicate: duplicate, packetID: id))
        case 4: packet = .pubAck(packetID: try reader.packetID())
        case 5: packet = .pubRec(packetID: try reader.packetID())
        case 6: packet = .pubRel(packetID: try reader.packetID())
        case 7: packet = .pubComp(packetID: try reader.packetID())
        case 8:
            let id = try reader.packetID()
            var subscriptions: [Subscription] = []
            repeat {
                let filter = try reader.filter()
                let byte = try reader.byte("requested QoS")
                guard let qos = QoS(rawValue: byte) else {
                    throw MQTTError(.field, "a SUBSCRIBE's requested QoS byte is \(byte): it must be 0, 1 or 2")
                }
                subscriptions.append(Subscription(topicFilter: filter, qos: qos))
            } while !reader.isAtEnd
            packet = .subscribe(packetID: id, subscriptions: subscriptions)
        case 9:
            let id = try reader.packetID()
            let bytes = reader.rest()
            guard !bytes.isEmpty else { throw MQTTError(.length, "a SUBACK answers at least one filter") }
            var codes: [SubscribeReturnCode] = []
            for byte in bytes {
                guard let code = SubscribeReturnCode(rawValue: byte) else {
                    throw MQTTError(.field, "a SUBACK's return code \(byte) is reserved")
                }
                codes.append(code)
            }
            packet = .subAck(packetID: id, returnCodes: codes)
        case 10:
            let id = try reader.packetID()
            var filters: [String] = []
            repeat { filters.append(try reader.filter()) } while !reader.isAtEnd
            packet = .unsubscribe(packetID: id, topicFilters: filters)
        case 11: packet = .unsubAck(packetID: try reader.packetID())
        case 12: packet = .pingReq
        case 13: packet = .pingResp
        default: packet = .disconnect
        }
        guard reader.isAtEnd else {
            throw MQTTError(.length, "\(name) has \(reader.body.count) bytes after its last field")
        }
        return packet
    }
}

extension Packet {
    /// The packet `bytes` hold, all of them.
    ///
    /// - Throws: ``MQTTError`` when they are not exactly one packet.
    public init(decoding bytes: [UInt8]) throws(MQTTError) {
        guard let (packet, length) = try PacketDecoder().decode(bytes) else {
            throw MQTTError(.length, "the bytes end before the packet does")
        }
        guard length == bytes.count else {
            throw MQTTError(.length, "\(bytes.count - length) bytes follow the \(packet.name)")
        }
        self = packet
    }
}

/// Reads a packet's fields, each error naming the packet and the field.
struct Reader {
    var body: ArraySlice<UInt8>
    let packet: String

    var isAtEnd: Bool { body.isEmpty }

    mutating func byte(_ what: String) throws(MQTTError) -> UInt8 {
        guard let byte = body.popFirst() else { throw MQTTError(.length, "\(packet) ends before its \(what)") }
        return byte
    }

    mutating func uint16(_ what: String) throws(MQTTError) -> UInt16 {
        guard body.count >= 2 else { throw MQTTError(.length, "\(packet) ends before its \(what)") }
        let value = UInt16(body[body.startIndex]) << 8 | UInt16(body[body.startIndex + 1])
        body = body.dropFirst(2)
        return value
    }

    mutating func packetID() throws(MQTTError) -> UInt16 {
        let id = try uint16("packet identifier")
        guard id != 0 else { throw MQTTError(.field, "\(packet)'s packet identifier is 0: it is 1 to 65535") }
        return id
    }

    mutating func binary(_ what: String) throws(MQTTError) -> ArraySlice<UInt8> {
        let count = Int(try uint16(what))
        guard body.count >= count else {
            throw MQTTError(.length, "\(packet) ends inside its \(what): \(count) bytes said, \(body.count) left")
        }
        defer { body = body.dropFirst(count) }
        return body.prefix(count)
    }

    mutating func string(_ what: String) throws(MQTTError) -> String {
        let bytes = try binary(what)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw MQTTError(.string, "\(packet)'s \(what) is not UTF-8")
        }
        guard !bytes.contains(0) else { throw MQTTError(.string, "\(packet)'s \(what) holds U+0000") }
        return text
    }

    mutating func filter() throws(MQTTError) -> String {
        let filter = try string("topic filter")
        try Topic.checkFilter(filter, subject: "\(packet)'s topic filter")
        return filter
    }

    mutating func rest() -> ArraySlice<UInt8> {
        defer { body = body[body.endIndex...] }
        return body
    }

    mutating func connect() throws(MQTTError) -> Connect {
        let protocolName = try string("protocol name")
        guard protocolName == "MQTT" else {
            throw MQTTError(.field, "a CONNECT's protocol name is not MQTT: not MQTT 3.1.1")
        }
        let level = try byte("protocol level")
        guard level == 4 else { throw MQTTError(.field, "a CONNECT's protocol level is \(level), not 4 (3.1.1)") }
        let flags = try byte("connect flags")
        guard flags & 0x01 == 0 else { throw MQTTError(.field, "a CONNECT's reserved flag is not 0") }
        let hasWill = flags & 0x04 != 0
        guard let willQoS = QoS(rawValue: flags >> 3 & 0x03) else {
            throw MQTTError(.field, "a CONNECT's will QoS is 3: it must be 0, 1 or 2")
        }
        guard hasWill || (willQoS == .atMostOnce && flags & 0x20 == 0) else {
            throw MQTTError(.field, "a CONNECT without a will has a will QoS or will retain")
        }
        guard flags & 0x80 != 0 || flags & 0x40 == 0 else {
            throw MQTTError(.field, "a CONNECT has a password without a user name")
        }
        let keepAlive = try uint16("keep alive")
        let clientID = try string("client identifier")
        var will: Will?
        if hasWill {
            let topic = try string("will topic")
            try Topic.checkName(topic, subject: "a CONNECT's will topic")
            will = Will(
                topic: topic, payload: Array(try binary("will message")), qos: willQoS, retain: flags & 0x20 != 0)
        }
        let userName = flags & 0x80 != 0 ? try string("user name") : nil
        let password = flags & 0x40 != 0 ? Array(try binary("password")) : nil
        return Connect(
            clientID: clientID, cleanSession: flags & 0x02 != 0, keepAlive: keepAlive, will: will, userName: userName,
            password: password)
    }
}
