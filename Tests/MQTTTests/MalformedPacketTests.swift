import MQTT
import Testing

/// Bytes no MQTT 3.1.1 peer may send, and values no packet can carry: each refused with the field named.
@Suite("MQTT 3.1.1: malformed packets and values that cannot be sent")
struct MalformedPacketTests {
    /// One packet of every type, each field used.
    static let everyType: [Packet] = [
        .connect(
            Connect(
                clientID: "vitalbridge-1", cleanSession: true, keepAlive: 30,
                will: Will(topic: "vitalbridge/hub/availability", payload: Array("offline".utf8)), userName: "hub",
                password: Array("secret".utf8))),
        .connect(Connect(clientID: "", keepAlive: 0)),
        // the fuzzer's: a server refuses it (identifier rejected), but it is a packet, and encodes
        .connect(Connect(clientID: "", cleanSession: false, keepAlive: 10)),
        .connAck(sessionPresent: false, returnCode: .badUserNameOrPassword),
        .publish(Publish(topic: "a/b", payload: Array("{}".utf8), qos: .atLeastOnce, retain: true, packetID: 7)),
        .publish(Publish(topic: "a", payload: [])),
        .pubAck(packetID: 1), .pubRec(packetID: 2), .pubRel(packetID: 3), .pubComp(packetID: 4),
        .subscribe(packetID: 5, subscriptions: [Subscription(topicFilter: "#", qos: .atMostOnce)]),
        .subAck(packetID: 5, returnCodes: [.granted(.atLeastOnce)]),
        .unsubscribe(packetID: 6, topicFilters: ["+/x"]), .unsubAck(packetID: 6), .pingReq, .pingResp, .disconnect,
    ]

    @Test("every proper prefix of every packet is waited for, never refused; the whole is the packet")
    func everyPrefix() throws {
        let decoder = PacketDecoder()
        for packet in Self.everyType {
            let bytes = try packet.encoded()
            for end in 0..<bytes.count {
                #expect(try decoder.decode(bytes[..<end]) == nil, "\(packet.name) cut at \(end)")
            }
            let decoded = try #require(try decoder.decode(bytes))
            #expect(decoded.packet == packet && decoded.length == bytes.count)
        }
    }

    @Test("packets back to back in one stream are decoded one after another, each from its own length")
    func stream() throws {
        var stream: [UInt8] = []
        for packet in Self.everyType { try packet.encode(into: &stream) }
        var rest = stream[...]
        var decoded: [Packet] = []
        while let (packet, length) = try PacketDecoder().decode(rest) {
            decoded.append(packet)
            rest = rest.dropFirst(length)
        }
        #expect(decoded == Self.everyType && rest.isEmpty)
    }

    static let malformed: [(String, MQTTError)] = [
        ("00 00", MQTTError(.reservedType, "packet type 0 is reserved: not an MQTT 3.1.1 packet")),
        ("F0 00", MQTTError(.reservedType, "packet type 15 is reserved: not an MQTT 3.1.1 packet")),
        // 2.2.2: flags every type but PUBLISH fixes
        ("41 02 00 0A", MQTTError(.flags, "a PUBACK's flags are 0, not 1")),
        ("60 02 00 0A", MQTTError(.flags, "a PUBREL's flags are 2, not 0")),
        ("80 06 00 0A 00 01 23 00", MQTTError(.flags, "a SUBSCRIBE's flags are 2, not 0")),
        ("A0 05 00 0A 00 01 23", MQTTError(.flags, "an UNSUBSCRIBE's flags are 2, not 0")),
        ("C8 00", MQTTError(.flags, "a PINGREQ's flags are 0, not 8")),
        // 3.3.1: QoS 3, and DUP at QoS 0
        ("36 05 00 01 61 00 01", MQTTError(.flags, "a PUBLISH's QoS is 3: it must be 0, 1 or 2")),
        ("38 03 00 01 61", MQTTError(.flags, "a QoS 0 PUBLISH is never a DUP")),
        // 3.3.2: a topic name with a wildcard, not UTF-8, with U+0000; a packet identifier of 0
        (
            "30 05 00 03 61 2F 23",
            MQTTError(.topic, "a PUBLISH's topic name may not hold the wildcard #: only a filter")
        ),
        ("30 04 00 02 C0 80", MQTTError(.string, "a PUBLISH's topic name is not UTF-8")),
        ("30 04 00 02 61 00", MQTTError(.string, "a PUBLISH's topic name holds U+0000")),
        ("30 02 00 00", MQTTError(.topic, "a PUBLISH's topic name is at least one character long")),
        ("32 05 00 01 61 00 00", MQTTError(.field, "a PUBLISH's packet identifier is 0: it is 1 to 65535")),
        ("32 04 00 01 61 00", MQTTError(.length, "a PUBLISH ends before its packet identifier")),
        ("30 03 00 05 61", MQTTError(.length, "a PUBLISH ends inside its topic name: 5 bytes said, 1 left")),
        // fixed lengths
        ("40 03 00 0A 00", MQTTError(.length, "a PUBACK has 1 bytes after its last field")),
        ("40 01 00", MQTTError(.length, "a PUBACK ends before its packet identifier")),
        ("C0 01 00", MQTTError(.length, "a PINGREQ has 1 bytes after its last field")),
        ("E0 01 00", MQTTError(.length, "a DISCONNECT has 1 bytes after its last field")),
        // 3.2.2: CONNACK
        ("20 02 02 00", MQTTError(.field, "a CONNACK's acknowledge flags 7–1 are reserved: they are not 0")),
        ("20 02 01 04", MQTTError(.field, "a CONNACK that refuses has no session present")),
        ("20 01 00", MQTTError(.length, "a CONNACK ends before its return code")),
        // 3.8.3: SUBSCRIBE with no filter, a reserved QoS byte, a filter breaking the rules
        ("82 02 00 0A", MQTTError(.length, "a SUBSCRIBE ends before its topic filter")),
        ("82 06 00 0A 00 01 23 03", MQTTError(.field, "a SUBSCRIBE's requested QoS byte is 3: it must be 0, 1 or 2")),
        ("82 06 00 0A 00 01 23 81", MQTTError(.field, "a SUBSCRIBE's requested QoS byte is 129: it must be 0, 1 or 2")),
        (
            "82 08 00 0A 00 03 23 2F 61 00",
            MQTTError(.topic, "a SUBSCRIBE's topic filter's # must be the whole of its last level")
        ),
        // 3.9.3: SUBACK
        ("90 02 00 0A", MQTTError(.length, "a SUBACK answers at least one filter")),
        ("90 03 00 0A 03", MQTTError(.field, "a SUBACK's return code 3 is reserved")),
        // 3.10.3: UNSUBSCRIBE with no filter
        ("A2 02 00 0A", MQTTError(.length, "an UNSUBSCRIBE ends before its topic filter")),
        // 3.1.2: CONNECT's protocol name and level, reserved flag, will flags without a will, password without user
        (
            "10 0A 00 06 4D 51 49 73 64 70 03 02 00 0A",
            MQTTError(.field, "a CONNECT's protocol name is not MQTT: not MQTT 3.1.1")
        ),
        (
            "10 0A 00 04 4D 51 54 54 05 02 00 0A 00 00",
            MQTTError(.field, "a CONNECT's protocol level is 5, not 4 (3.1.1)")
        ),
        ("10 0C 00 04 4D 51 54 54 04 03 00 0A 00 00", MQTTError(.field, "a CONNECT's reserved flag is not 0")),
        (
            "10 0C 00 04 4D 51 54 54 04 0A 00 0A 00 00",
            MQTTError(.field, "a CONNECT without a will has a will QoS or will retain")
        ),
        (
            "10 0C 00 04 4D 51 54 54 04 22 00 0A 00 00",
            MQTTError(.field, "a CONNECT without a will has a will QoS or will retain")
        ),
        (
            "10 0C 00 04 4D 51 54 54 04 1C 00 0A 00 00",
            MQTTError(.field, "a CONNECT's will QoS is 3: it must be 0, 1 or 2")
        ),
        (
            "10 0C 00 04 4D 51 54 54 04 42 00 0A 00 00",
            MQTTError(.field, "a CONNECT has a password without a user name")
        ),
        ("10 0A 00 04 4D 51 54 54 04 02 00 0A", MQTTError(.length, "a CONNECT ends before its client identifier")),
        (
            "10 10 00 04 4D 51 54 54 04 06 00 0A 00 00 00 01 2B 00 00",
            MQTTError(.topic, "a CONNECT's will topic may not hold the wildcard +: only a filter")
        ),
    ]

    @Test("bytes no peer may send are refused, naming the packet and the field", arguments: malformed)
    func refused(bytes: String, error: MQTTError) {
        #expect(throws: error) { try Packet(decoding: hex(bytes)) }
    }

    @Test("bytes after a whole packet, or a packet cut short, are not one packet")
    func notOnePacket() {
        #expect(throws: MQTTError(.length, "1 bytes follow the PINGRESP")) { try Packet(decoding: hex("D0 00 D0")) }
        #expect(throws: MQTTError(.length, "the bytes end before the packet does")) {
            try Packet(decoding: hex("40 02 00"))
        }
    }

    static let unsendable: [(Packet, MQTTError)] = [
        (
            .publish(Publish(topic: "a", payload: [], qos: .atLeastOnce)),
            MQTTError(.field, "a QoS 1 PUBLISH needs a packet identifier")
        ),
        (
            .publish(Publish(topic: "a", payload: [], packetID: 1)),
            MQTTError(.field, "a QoS 0 PUBLISH has no packet identifier")
        ),
        (
            .publish(Publish(topic: "a", payload: [], duplicate: true)),
            MQTTError(.flags, "a QoS 0 PUBLISH is never a DUP")
        ),
        (
            .publish(Publish(topic: "a", payload: [], qos: .atLeastOnce, packetID: 0)),
            MQTTError(.field, "a packet identifier is 1 to 65535, never 0")
        ),
        (
            .publish(Publish(topic: "a/#", payload: [])),
            MQTTError(.topic, "a topic name may not hold the wildcard #: only a filter")
        ),
        (.publish(Publish(topic: "", payload: [])), MQTTError(.topic, "a topic name is at least one character long")),
        (.pubAck(packetID: 0), MQTTError(.field, "a packet identifier is 1 to 65535, never 0")),
        (.subscribe(packetID: 1, subscriptions: []), MQTTError(.field, "a SUBSCRIBE names at least one filter")),
        (
            .unsubscribe(packetID: 1, topicFilters: ["a#"]),
            MQTTError(.topic, "a topic filter's # must be the whole of its last level")
        ),
        (.subAck(packetID: 1, returnCodes: []), MQTTError(.field, "a SUBACK answers at least one filter")),
        (
            .connect(Connect(clientID: "c", password: [1])),
            MQTTError(.field, "MQTT 3.1.1 sends a password only with a user name")
        ),
        (
            .connAck(sessionPresent: true, returnCode: .notAuthorized),
            MQTTError(.field, "a CONNACK that refuses has no session present")
        ),
        (
            .connect(Connect(clientID: String(repeating: "c", count: 65_536))),
            MQTTError(.string, "a string is at most 65535 bytes long: this is 65536")
        ),
        (
            .connect(Connect(clientID: "c", userName: "u", password: [UInt8](repeating: 0, count: 65_536))),
            MQTTError(.field, "a password is at most 65535 bytes long: this is 65536")
        ),
        (
            .connect(Connect(clientID: "c", will: Will(topic: "w/+", payload: []))),
            MQTTError(.topic, "a topic name may not hold the wildcard +: only a filter")
        ),
    ]

    @Test("values no packet can carry are refused before a byte is written", arguments: unsendable)
    func unsendableValues(packet: Packet, error: MQTTError) {
        var buffer: [UInt8] = [0xAA]
        #expect(throws: error) { try packet.encode(into: &buffer) }
        #expect(buffer == [0xAA])
    }
}
