/// Encoding: a packet as the bytes on the wire.
extension Packet {
    /// The largest Remaining Length four bytes can say: 268,435,455.
    public static let maximumRemainingLength = 268_435_455

    /// The packet's bytes.
    ///
    /// - Throws: ``MQTTError`` when a value cannot be sent: a topic that breaks the rules of topics, a string longer
    ///   than 65,535 bytes, a packet identifier of 0 or missing at QoS 1 or 2 (or given at QoS 0), a password
    ///   without a user name, a refusing CONNACK with a session present, a subscription list that is empty, a packet
    ///   longer than
    ///   ``maximumRemainingLength``.
    public func encoded() throws(MQTTError) -> [UInt8] {
        var bytes: [UInt8] = []
        try encode(into: &bytes)
        return bytes
    }

    /// Appends the packet's bytes to `buffer`; on a throw, `buffer` is as it was.
    public func encode(into buffer: inout [UInt8]) throws(MQTTError) {
        var body = Writer()
        let flags: UInt8
        switch self {
        case .connect(let connect):
            flags = 0
            try body.connect(connect)
        case .connAck(let sessionPresent, let returnCode):
            guard returnCode == .accepted || !sessionPresent else {
                throw MQTTError(.field, "a CONNACK that refuses has no session present")
            }
            flags = 0
            body.bytes += [sessionPresent ? 1 : 0, returnCode.rawValue]
        case .publish(let publish):
            try Topic.checkName(publish.topic)
            switch (publish.qos, publish.packetID) {
            case (.atMostOnce, nil):
                guard !publish.duplicate else { throw MQTTError(.flags, "a QoS 0 PUBLISH is never a DUP") }
            case (.atMostOnce, _?): throw MQTTError(.field, "a QoS 0 PUBLISH has no packet identifier")
            case (_, nil): throw MQTTError(.field, "a QoS \(publish.qos.rawValue) PUBLISH needs a packet identifier")
            case (_, let id?): try Self.check(id)
            }
            flags = (publish.duplicate ? 0x08 : 0) | publish.qos.rawValue << 1 | (publish.retain ? 1 : 0)
            try body.string(publish.topic)
            if let id = publish.packetID { body.uint16(id) }
            body.bytes += publish.payload
        case .pubAck(let id), .pubRec(let id), .pubComp(let id), .unsubAck(let id):
            try Self.check(id)
            flags = 0
            body.uint16(id)
        case .pubRel(let id):
            try Self.check(id)
            flags = 0x02
            body.uint16(id)
        case .subscribe(let id, let subscriptions):
            try Self.check(id)
            guard !subscriptions.isEmpty else { throw MQTTError(.field, "a SUBSCRIBE names at least one filter") }
            flags = 0x02
            body.uint16(id)
            for subscription in subscriptions {
                try Topic.checkFilter(subscription.topicFilter)
                try body.string(subscription.topicFilter)
                body.bytes.append(subscription.qos.rawValue)
            }
        case .subAck(let id, let codes):
            try Self.check(id)
            guard !codes.isEmpty else { throw MQTTError(.field, "a SUBACK answers at least one filter") }
            flags = 0
            body.uint16(id)
            body.bytes += codes.map(\.rawValue)
        case .unsubscribe(let id, let filters):
            try Self.check(id)
            guard !filters.isEmpty else { throw MQTTError(.field, "an UNSUBSCRIBE names at least one filter") }
            flags = 0x02
            body.uint16(id)
            for filter in filters {
                try Topic.checkFilter(filter)
                try body.string(filter)
            }
        case .pingReq, .pingResp, .disconnect:
            flags = 0
        }
        guard body.bytes.count <= Self.maximumRemainingLength else {
            throw MQTTError(
                .remainingLength,
                "\(Self.phrase(type)) of \(body.bytes.count) bytes is longer than MQTT's \(Self.maximumRemainingLength)"
            )
        }
        buffer.append(type << 4 | flags)
        Self.appendRemainingLength(body.bytes.count, to: &buffer)
        buffer += body.bytes
    }

    /// Appends `length` as a Remaining Length: seven bits a byte, least significant first, the high bit set on each
    /// byte but the last.
    public static func appendRemainingLength(_ length: Int, to buffer: inout [UInt8]) {
        precondition((0...maximumRemainingLength).contains(length), "a Remaining Length is 0 to 268,435,455")
        var rest = length
        repeat {
            var byte = UInt8(rest % 128)
            rest /= 128
            if rest > 0 { byte |= 0x80 }
            buffer.append(byte)
        } while rest > 0
    }

    static func check(_ packetID: UInt16) throws(MQTTError) {
        guard packetID != 0 else { throw MQTTError(.field, "a packet identifier is 1 to 65535, never 0") }
    }
}

/// A packet's variable header and payload as they are written.
struct Writer {
    var bytes: [UInt8] = []

    mutating func uint16(_ value: UInt16) { bytes += [UInt8(value >> 8), UInt8(value & 0xFF)] }

    /// A UTF-8 string: its length in two bytes, then its bytes.
    mutating func string(_ text: String) throws(MQTTError) {
        guard text.utf8.count <= 65_535 else {
            throw MQTTError(.string, "a string is at most 65535 bytes long: this is \(text.utf8.count)")
        }
        guard !text.utf8.contains(0) else { throw MQTTError(.string, "a string may not hold U+0000") }
        uint16(UInt16(text.utf8.count))
        bytes += text.utf8
    }

    /// Binary data: its length in two bytes, then the bytes.
    mutating func binary(_ data: [UInt8], _ what: String) throws(MQTTError) {
        guard data.count <= 65_535 else {
            throw MQTTError(.field, "\(what) is at most 65535 bytes long: this is \(data.count)")
        }
        uint16(UInt16(data.count))
        bytes += data
    }

    mutating func connect(_ connect: Connect) throws(MQTTError) {
        if connect.password != nil && connect.userName == nil {
            throw MQTTError(.field, "MQTT 3.1.1 sends a password only with a user name")
        }
        var flags: UInt8 = connect.cleanSession ? 0x02 : 0
        if let will = connect.will {
            try Topic.checkName(will.topic)
            flags |= 0x04 | will.qos.rawValue << 3 | (will.retain ? 0x20 : 0)
        }
        if connect.password != nil { flags |= 0x40 }
        if connect.userName != nil { flags |= 0x80 }
        try string("MQTT")
        bytes += [4, flags]
        uint16(connect.keepAlive)
        try string(connect.clientID)
        if let will = connect.will {
            try string(will.topic)
            try binary(will.payload, "a will's message")
        }
        if let userName = connect.userName { try string(userName) }
        if let password = connect.password { try binary(password, "a password") }
    }
}
