import ArgumentParser
import HealthGATTJSON
import VitalCore
import VitalDevices

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `vitalbridge gatt`: Bluetooth SIG characteristic tools for device integrators.
struct GATTCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gatt",
        abstract: "Decode Bluetooth SIG health-profile characteristic values.",
        subcommands: [GATTDecodeCommand.self]
    )
}

/// `vitalbridge gatt decode <characteristic> <hex>`.
struct GATTDecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode one characteristic value and print it as JSON.",
        discussion: """
            <characteristic> is a 16-bit UUID (2A35, 0x2a35) or sfloat / float for a bare IEEE 11073 number. \
            <hex> is the value as captured, byte by byte (spaces, ':' and '-' between bytes are ignored).

            Keys are the SIG field names in snake case; units are in a "unit" key; time stamps are objects \
            with year, month, day, hours, minutes and seconds; special float values are strings ("NaN", \
            "NRes", "+INFINITY", "-INFINITY", "reserved"). Bytes that do not decode print one line on stderr \
            naming the field and byte offset, and exit 1.

            A measurement the hub keeps (2A18, 2A1C, 2A35, 2A5E, 2A9C, 2A9D) has a "vitalbridge" key with what \
            the hub keeps beyond its values, when there is any: "status", the statuses by the names of readings \
            and fleet files (bodyMovement, cuffTooLoose, irregularPulse, pulseRateTooHigh, pulseRateTooLow, \
            improperPosition; the glucose annunciation's deviceBatteryLow ... timeFault; the temperature site \
            armpit ... tympanum; the PLX statuses and deviceClockNotSet; measurementUnsuccessful); "unavailable", \
            each field sent as a special value by its result key ("systolic": "NaN"; the names are NaN, NRes, \
            +INF, -INF and reserved, and a scale's 65535 is NaN); "user_index", the user ID (255: unknown user).

            Characteristics: \(GATTDecoder.all.sorted { ($0.value.uuid ?? .max, $0.key) < ($1.value.uuid ?? .max, $1.key) }
                .map { $1.uuid == nil ? "\($0.lowercased()) (\($1.name))" : "\($0) \($1.name)" }
                .joined(separator: ", ")).

            Examples:
              vitalbridge gatt decode 2A35 '1E 8A00 5800 7800 0000 04 11 14 29 3B 3C00 01 2700'
              vitalbridge gatt decode sfloat BDF0
            """
    )

    @Argument(help: "The characteristic: a 16-bit UUID such as 2A35, or sfloat / float.")
    var characteristic: String

    @Argument(help: "The value's bytes in hexadecimal, as captured.")
    var hex: String

    func validate() throws {
        guard GATTDecoder.named(characteristic) != nil else {
            throw ValidationError(
                "unknown characteristic '\(characteristic)'; use a 16-bit UUID such as 2A35, or sfloat / float")
        }
    }

    func run() throws {
        guard let bytes = GATTDecoder.bytes(hex: hex) else {
            throw CommandError("invalid hex: expected pairs of hexadecimal digits, got '\(hex)'")
        }
        guard let decoder = GATTDecoder.named(characteristic) else { return }  // validate() refused it
        do {
            let document = AnnotatedJSON.document(try decoder.decode(bytes), of: bytes, uuid: decoder.uuid)
            print(String(decoding: try gattJSON(document).serialized(pretty: true), as: UTF8.self), terminator: "")
        } catch {
            throw CommandError("cannot decode: \(error)")
        }
    }
}
