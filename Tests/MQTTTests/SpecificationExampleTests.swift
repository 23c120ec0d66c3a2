import MQTT
import Testing

/// Bytes from hex digits, spaces ignored: "00 0A" is [0x00, 0x0A].
func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.utf8.filter { $0 != UInt8(ascii: " ") })
    return stride(from: 0, to: digits.count, by: 2).map {
        UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16)!
    }
}

/// The examples of the OASIS MQTT Version 3.1.1 standard (with Errata 01), byte for byte: each figure or table
/// named in a test's name.
@Suite("MQTT 3.1.1: the specification's examples")
struct SpecificationExampleTests {
    /// Table 2.4, Size of Remaining Length field: the smallest and largest value of each size.
    static let remainingLengths: [(Int, String)] = [
        (0, "00"), (127, "7F"), (128, "80 01"), (16_383, "FF 7F"), (16_384, "80 80 01"), (2_097_151, "FF FF 7F"),
        (2_097_152, "80 80 80 01"), (268_435_455, "FF FF FF 7F"),
    ]

    @Test("Table 2.4: each Remaining Length is encoded in the bytes the table gives", arguments: remainingLengths)
    func remainingLengthEncoded(length: Int, bytes: String) {
        var buffer: [UInt8] = []
        Packet.appendRemainingLength(length, to: &buffer)
        #expect(buffer == hex(bytes))
    }

    @Test("Table 2.4: each Remaining Length decodes to its value", arguments: remainingLengths)
    func remainingLengthDecoded(length: Int, bytes: String) throws {
        // (0 is a PINGREQ's: fixedForms)
        guard length > 0 else { return }
        // a decoder allowing one byte less refuses the packet naming the length it read, before its body arrives
        let decoder = PacketDecoder(maximumRemainingLength: length - 1)
        #expect(
            throws: MQTTError(
                .remainingLength,
                "a PUBLISH of \(length) bytes is longer than the \(length - 1) this connection accepts")
        ) {
            try decoder.decode([0x30] + hex(bytes))
        }
        // one that allows it waits for the body
        #expect(try PacketDecoder().decode([0x30] + hex(bytes)) == nil)
        // and a whole packet of that length decodes (those a test can hold)
        if length >= 5 && length <= 16_384 {
            let payload = [UInt8](repeating: 0x2A, count: length - 5)
            let packet = Packet.publish(Publish(topic: "a/b", payload: payload))
            #expect(try Packet(decoding: [0x30] + hex(bytes) + hex("00 03 61 2F 62") + payload) == packet)
        }
    }

    @Test("2.2.3: a Remaining Length that runs past four bytes is malformed")
    func remainingLengthTooLong() {
        #expect(throws: MQTTError(.remainingLength, "a PUBLISH's Remaining Length runs past four bytes")) {
            try PacketDecoder().decode(hex("30 FF FF FF FF 7F"))
        }
    }

    @Test("Figure 1.3, UTF-8 encoded string: A𪛔 is 00 05 41 F0 AA 9B 94")
    func utf8String() throws {
        let bytes = try Packet.publish(Publish(topic: "A\u{2A6D4}", payload: [])).encoded()
        #expect(bytes == hex("30 07 00 05 41 F0 AA 9B 94"))
        #expect(try Packet(decoding: bytes) == .publish(Publish(topic: "A\u{2A6D4}", payload: [])))
    }

    @Test(
        "Figure 3.6, CONNECT variable header: MQTT, level 4, flags CE (user, password, will QoS 1, clean), keep alive 10"
    )
    func connectVariableHeader() throws {
        let connect = Connect(
            clientID: "hub", cleanSession: true, keepAlive: 10,
            will: Will(topic: "w", payload: [0x21], qos: .atLeastOnce, retain: false), userName: "u",
            password: [0x70])
        let bytes = try Packet.connect(connect).encoded()
        let variableHeader = hex("00 04 4D 51 54 54 04 CE 00 0A")
        // then the payload in its order: client identifier, will topic, will message, user name, password
        let payload = hex("00 03 68 75 62  00 01 77  00 01 21  00 01 75  00 01 70")
        #expect(bytes == [0x10, UInt8(variableHeader.count + payload.count)] + variableHeader + payload)
        #expect(try Packet(decoding: bytes) == .connect(connect))
    }

    @Test("Figure 3.11, PUBLISH variable header: topic a/b, packet identifier 10")
    func publishVariableHeader() throws {
        let publish = Publish(topic: "a/b", payload: Array("22.5".utf8), qos: .atLeastOnce, packetID: 10)
        let bytes = try Packet.publish(publish).encoded()
        #expect(bytes == hex("32 0B") + hex("00 03 61 2F 62 00 0A") + Array("22.5".utf8))
        #expect(try Packet(decoding: bytes) == .publish(publish))
        // the first byte's flags: DUP 3, QoS 2–1, RETAIN 0
        let again = Publish(
            topic: "a/b", payload: [], qos: .exactlyOnce, retain: true, duplicate: true, packetID: 10)
        #expect(try Packet.publish(again).encoded().first == 0x3D)
    }

    @Test("Figures 3.20 and 3.22, SUBSCRIBE: packet identifier 10, a/b at QoS 1 and c/d at QoS 2")
    func subscribe() throws {
        let packet = Packet.subscribe(
            packetID: 10,
            subscriptions: [
                Subscription(topicFilter: "a/b", qos: .atLeastOnce),
                Subscription(topicFilter: "c/d", qos: .exactlyOnce),
            ])
        let bytes = hex("82 0E 00 0A 00 03 61 2F 62 01 00 03 63 2F 64 02")
        #expect(try packet.encoded() == bytes)
        #expect(try Packet(decoding: bytes) == packet)
    }

    @Test("Figure 3.26, SUBACK payload: success QoS 0, success QoS 2, failure")
    func subAck() throws {
        let packet = Packet.subAck(
            packetID: 10, returnCodes: [.granted(.atMostOnce), .granted(.exactlyOnce), .failure])
        let bytes = hex("90 05 00 0A 00 02 80")
        #expect(try packet.encoded() == bytes)
        #expect(try Packet(decoding: bytes) == packet)
    }

    @Test("Figure 3.30, UNSUBSCRIBE payload: a/b and c/d")
    func unsubscribe() throws {
        let packet = Packet.unsubscribe(packetID: 10, topicFilters: ["a/b", "c/d"])
        let bytes = hex("A2 0C 00 0A 00 03 61 2F 62 00 03 63 2F 64")
        #expect(try packet.encoded() == bytes)
        #expect(try Packet(decoding: bytes) == packet)
    }

    /// Each packet with a fixed form: its first byte (type and required flags) and its Remaining Length.
    static let fixedPackets: [(Packet, String)] = [
        (.connAck(sessionPresent: false, returnCode: .accepted), "20 02 00 00"),
        (.connAck(sessionPresent: true, returnCode: .accepted), "20 02 01 00"),
        (.connAck(sessionPresent: false, returnCode: .notAuthorized), "20 02 00 05"),
        (.pubAck(packetID: 10), "40 02 00 0A"), (.pubRec(packetID: 10), "50 02 00 0A"),
        (.pubRel(packetID: 10), "62 02 00 0A"), (.pubComp(packetID: 65_535), "70 02 FF FF"),
        (.unsubAck(packetID: 10), "B0 02 00 0A"), (.pingReq, "C0 00"), (.pingResp, "D0 00"), (.disconnect, "E0 00"),
    ]

    @Test("Tables 2.1 and 2.2: each type's first byte, flags and fixed fields", arguments: fixedPackets)
    func fixedForms(packet: Packet, bytes: String) throws {
        #expect(try packet.encoded() == hex(bytes))
        #expect(try Packet(decoding: hex(bytes)) == packet)
    }

    @Test("Table 3.1, the CONNACK return codes 0–5 and the specification's words for each")
    func connectReturnCodes() throws {
        #expect(ConnectReturnCode.allCases.map(\.rawValue) == [0, 1, 2, 3, 4, 5])
        #expect(ConnectReturnCode.badUserNameOrPassword.description == "Connection Refused, bad user name or password")
        #expect(throws: MQTTError(.field, "a CONNACK's return code 6 is reserved")) {
            try Packet(decoding: hex("20 02 00 06"))
        }
    }

    @Test(
        "4.7.1: the topic filters the specification calls valid are accepted",
        arguments: [
            "sport/tennis/player1/#", "sport/tennis/#", "sport/#", "#", "+", "+/tennis/#", "sport/+/player1", "/+",
            "+/+",
            "/finance", "sport/+", "sport/",
        ])
    func validFilters(filter: String) throws {
        try Topic.checkFilter(filter)
    }

    @Test(
        "4.7.1: the topic filters the specification calls invalid are refused",
        arguments: [
            ("sport/tennis#", "a topic filter's # must be the whole of its last level"),
            ("sport/tennis/#/ranking", "a topic filter's # must be the whole of its last level"),
            ("sport+", "a topic filter's + must be the whole of its level"),
            ("", "a topic filter is at least one character long"),
        ])
    func invalidFilters(filter: String, message: String) {
        #expect(throws: MQTTError(.topic, message)) { try Topic.checkFilter(filter) }
    }

    @Test("4.7: a topic name has no wildcard, is not empty and holds no U+0000; / and $ are ordinary characters")
    func names() throws {
        for name in ["sport/tennis/player1", "/", "$SYS/broker", "sport/ tennis"] { try Topic.checkName(name) }
        #expect(throws: MQTTError(.topic, "a topic name may not hold the wildcard +: only a filter")) {
            try Topic.checkName("sport/+")
        }
        #expect(throws: MQTTError(.topic, "a topic name may not hold the wildcard #: only a filter")) {
            try Topic.checkName("#")
        }
        #expect(throws: MQTTError(.topic, "a topic name is at least one character long")) { try Topic.checkName("") }
        #expect(throws: MQTTError(.topic, "a topic name may not hold U+0000")) { try Topic.checkName("a\u{0}b") }
        let long = String(repeating: "a", count: 65_536)
        #expect(throws: MQTTError(.topic, "a topic name is at most 65535 bytes long: this is 65536")) {
            try Topic.checkName(long)
        }
    }
}
