import SinkSettings
import Testing

@Suite("MQTTAddress")
struct MQTTAddressTests {
    /// Each form an address may take, and its canonical form, which reads back as the same address.
    static let accepted: [(String, String)] = [
        ("mqtt://localhost", "mqtt://localhost:1883/vitalbridge?discovery=homeassistant"),
        ("MQTT://hub@127.0.0.1:1884/home/health", "mqtt://hub@127.0.0.1:1884/home/health?discovery=homeassistant"),
        ("mqtt://hub@[::1]/", "mqtt://hub@[::1]:1883/vitalbridge?discovery=homeassistant"),
        (
            "mqtts://hub@broker.example?cafile=/etc/ssl/broker%20ca.pem",
            "mqtts://hub@broker.example:8883/vitalbridge?discovery=homeassistant&cafile=/etc/ssl/broker%20ca.pem"
        ),
        (
            "mqtt://h%C3%BCb@nas.local:1999/p?cleartext=allow&discovery=ha/x",
            "mqtt://h%C3%BCb@nas.local:1999/p?discovery=ha/x&cleartext=allow"
        ),
    ]

    @Test(
        "the forms an address may take, each written back in one canonical form that reads as itself",
        arguments: accepted)
    func canonical(text: String, canonical: String) throws {
        let address = try MQTTAddress(text)
        #expect(address.description == canonical)
        #expect(try MQTTAddress(canonical) == address)
    }

    @Test("the parts of an address")
    func parts() throws {
        let address = try MQTTAddress("mqtts://h%C3%BCb@broker.example:9883/home/health?discovery=ha&cafile=/ca.pem")
        #expect(address.host == "broker.example" && address.port == 9883 && address.tls)
        #expect(address.user == "hüb" && address.prefix == "home/health" && address.discoveryPrefix == "ha")
        #expect(address.caFile == "/ca.pem" && !address.cleartextAllowed)
        #expect(address.serverDescription == "broker.example:9883")
        let anonymous = try MQTTAddress("mqtt://localhost")
        #expect(anonymous.user == nil && !anonymous.tls && anonymous.caFile == nil)
    }

    static let refused: [(String, SinkError.Code, String)] = [
        (
            "postgresql://hub@db/health", .unknownScheme,
            "the address is not an mqtt:// or mqtts:// URL (mqtt://[USER@]HOST[/PREFIX])"
        ),
        (
            "mqtt:/localhost", .unknownScheme,
            "the address is not an mqtt:// or mqtts:// URL (mqtt://[USER@]HOST[/PREFIX])"
        ),
        (
            "mqtt://hub:pw@localhost", .passwordInAddress,
            "the address contains a password: give it with --password-file, never in the address"
        ),
        (
            "mqtt://localhost?password=pw", .passwordInAddress,
            "the address contains a password: give it with --password-file, never in the address"
        ),
        ("mqtt://@localhost", .missingUser, "the address's user is empty: mqtt://USER@HOST"),
        ("mqtt://hub@", .badHost, "the address names no broker host: mqtt://[USER@]HOST[:PORT][/PREFIX]"),
        ("mqtt://hub@localhost:99999", .badPort, "the address's port is not a number from 1 to 65535"),
        ("mqtt://loc alhost", .badHost, "the address's host is not a host name or IP address"),
        // a password's text is never echoed, wherever its : @ / ? put it
        ("mqtts://hub:hunter2?x@broker.example", .badPort, "the address's port is not a number from 1 to 65535"),
        (
            "mqtts://hub:s3cr/et@broker.example", .passwordInAddress,
            "the address contains a password: give it with --password-file, never in the address"
        ),
        (
            "mqtts://hub:12345/x@broker.example", .passwordInAddress,
            "the address contains a password: give it with --password-file, never in the address"
        ),
        (
            "mqtt://localhost/a@b", .malformedAddress,
            "the address's user holds a / (write it %2F), or its prefix an @ (write it %40)"
        ),
        (
            "mqtt://127.0.0.08", .conflictingParameter,
            "mqtt:// to 127.0.0.08 would send the password and the readings in clear: use mqtts://, or add ?cleartext=allow if the network is yours"
        ),
        ("mqtt://localhost/a//b", .malformedAddress, "the prefix has an empty level (// or a / at an end)"),
        ("mqtt://localhost/a/", .malformedAddress, "the prefix has an empty level (// or a / at an end)"),
        (
            "mqtt://localhost/%23", .malformedAddress,
            "the prefix may not hold + or #: MQTT's wildcards are not topic names"
        ),
        (
            "mqtt://localhost/$SYS", .malformedAddress,
            "the prefix may not begin with $: such topics are the broker's own"
        ),
        ("mqtt://localhost/a#b", .malformedAddress, "the address has a fragment (#): an mqtt:// URL has none"),
        (
            "mqtt://localhost?discovery=ha/+", .malformedAddress,
            "discovery= may not hold + or #: MQTT's wildcards are not topic names"
        ),
        (
            "mqtt://localhost?qos=2", .unknownParameter,
            "the address's parameter qos is not one the MQTT sink reads (cafile, discovery, cleartext)"
        ),
        ("mqtt://localhost?discovery=a&discovery=b", .unknownParameter, "the address gives discovery twice"),
        (
            "mqtt://localhost?discovery", .malformedAddress,
            "the address's parameter discovery has no value (discovery=…)"
        ),
        ("mqtt://localhost?cafile=/ca.pem", .conflictingParameter, "cafile applies only to mqtts:// (TLS)"),
        ("mqtts://localhost?cafile=ca.pem", .conflictingParameter, "cafile= must be an absolute path (from /)"),
        (
            "mqtts://localhost?cleartext=allow", .conflictingParameter,
            "cleartext=allow applies only to mqtt://; mqtts:// is TLS"
        ),
        ("mqtt://nas.local?cleartext=yes", .conflictingParameter, "cleartext= has one value: allow"),
        (
            "mqtt://192.168.1.5", .conflictingParameter,
            "mqtt:// to 192.168.1.5 would send the password and the readings in clear: use mqtts://, or add ?cleartext=allow if the network is yours"
        ),
        ("mqtt://local\u{7}host", .controlCharacter, "the address contains a control character"),
        (
            "mqtt://localhost/" + String(repeating: "a", count: 129), .malformedAddress,
            "the prefix is 129 bytes long: at most 128"
        ),
        (
            "mqtt://localhost/" + String(repeating: "a", count: 2_048), .addressTooLong,
            "the address is 2065 bytes long: at most 2048 are read"
        ),
    ]

    @Test("what an address may not be is refused, naming the part", arguments: refused)
    func refusals(text: String, code: SinkError.Code, message: String) {
        #expect(throws: SinkError(code, message)) { try MQTTAddress(text) }
    }
}
