import VitalCore
import VitalDevices

/// BlueZ's D-Bus names and how it writes UUIDs, addresses and paths (`doc/org.bluez.*.rst` in BlueZ), shared by
/// the central and the simulated service.
public enum BlueZNames {
    public static let service = "org.bluez"
    public static let adapter = "org.bluez.Adapter1"
    public static let device = "org.bluez.Device1"
    public static let gattService = "org.bluez.GattService1"
    public static let characteristic = "org.bluez.GattCharacteristic1"
    public static let descriptor = "org.bluez.GattDescriptor1"
    public static let objectManager = "org.freedesktop.DBus.ObjectManager"
    public static let properties = "org.freedesktop.DBus.Properties"
    public static let introspectable = "org.freedesktop.DBus.Introspectable"
    /// The object of BlueZ's managers: `AgentManager1` is there.
    public static let managerPath = "/org/bluez"
    public static let agentManager = "org.bluez.AgentManager1"
    /// The interface of a pairing agent, served by the client and called by BlueZ.
    public static let agent = "org.bluez.Agent1"
    /// The Bluetooth base UUID's tail: a 16-bit UUID `xxxx` is `0000xxxx` followed by it.
    static let baseUUIDTail = "-0000-1000-8000-00805f9b34fb"

    /// The full 128-bit UUID text of a 16-bit SIG UUID, as BlueZ writes it: `00001810-0000-1000-8000-00805f9b34fb`.
    public static func uuid(_ short: UInt16) -> String {
        let hex = String(short, radix: 16)
        return "0000" + String(repeating: "0", count: 4 - hex.count) + hex + baseUUIDTail
    }

    /// The 16-bit form of a UUID on the Bluetooth base, if it is one.
    public static func shortUUID(_ text: String) -> UInt16? {
        let lower = text.lowercased()
        guard lower.count == 36, lower.hasPrefix("0000"), lower.hasSuffix(baseUUIDTail) else { return nil }
        return UInt16(lower.dropFirst(4).prefix(4), radix: 16)
    }

    /// A MAC from BlueZ's `Address`, `00:4D:32:08:D2:F4`.
    public static func mac(_ address: String) -> MACAddress? {
        MACAddress(String(address.filter { $0 != ":" }))
    }

    /// The MAC a person writes (`vitalbridge pair --mac`): 12 hexadecimal digits, or six pairs of them separated by
    /// colons as BlueZ writes it (`00:4D:32:08:D2:F4`); `nil` for anything else.
    public static func mac(written text: String) -> MACAddress? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count == 6 {
            guard parts.allSatisfy({ $0.count == 2 }) else { return nil }
            return MACAddress(parts.joined())
        }
        return parts.count == 1 ? MACAddress(text) : nil
    }

    /// A MAC as BlueZ writes it: `00:4D:32:08:D2:F4`, or with `_` in a path.
    public static func address(_ mac: MACAddress, separator: String = ":") -> String {
        let hex = Array(mac.description)
        return stride(from: 0, to: 12, by: 2).map { String(hex[$0..<$0 + 2]) }.joined(separator: separator)
    }

    /// The object path of device `mac` on the adapter at `adapter`: `/org/bluez/hci0/dev_00_4D_32_08_D2_F4`.
    public static func devicePath(_ mac: MACAddress, adapter: String) -> String {
        adapter + "/dev_" + address(mac, separator: "_")
    }

    /// BlueZ's flag names of `properties`: `read`, `write-without-response`, `write`, `notify`, `indicate`.
    public static func flags(_ properties: GATTProperties) -> [String] {
        [
            (GATTProperties.read, "read"), (.writeWithoutResponse, "write-without-response"), (.write, "write"),
            (.notify, "notify"), (.indicate, "indicate"),
        ].compactMap { properties.contains($0.0) ? $0.1 : nil }
    }
}
