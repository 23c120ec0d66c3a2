import DBus
import LayeredProtocol
import VitalDevices

/// The names of BlueZ's D-Bus API (`doc/org.bluez.*.rst` in BlueZ).
enum BlueZ {
    static let service = "org.bluez"
    static let adapter = "org.bluez.Adapter1"
    static let device = "org.bluez.Device1"
    static let gattService = "org.bluez.GattService1"
    static let characteristic = "org.bluez.GattCharacteristic1"
    static let descriptor = "org.bluez.GattDescriptor1"
    static let objectManager = "org.freedesktop.DBus.ObjectManager"
    static let properties = "org.freedesktop.DBus.Properties"
    static let introspectable = "org.freedesktop.DBus.Introspectable"

    /// The full 128-bit UUID text of a 16-bit SIG UUID, as BlueZ writes it.
    static func uuid(_ short: UInt16) -> String {
        let hex = String(short, radix: 16)
        return "0000" + String(repeating: "0", count: 4 - hex.count) + hex + "-0000-1000-8000-00805f9b34fb"
    }

    /// BlueZ's object path of device `mac` on `adapter`: `/org/bluez/hci0/dev_00_4D_32_08_D2_F4`.
    static func devicePath(_ mac: MACAddress, adapter: String) -> String {
        adapter + "/dev_" + address(mac, separator: "_")
    }

    /// A MAC as BlueZ writes it: `00:4D:32:08:D2:F4`.
    static func address(_ mac: MACAddress, separator: String = ":") -> String {
        let hex = mac.description
        return stride(from: 0, to: 12, by: 2).map { offset -> String in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return String(hex[start..<hex.index(start, offsetBy: 2)])
        }.joined(separator: separator)
    }

    /// BlueZ's flag names of `properties`.
    static func flags(_ properties: GATTProperties) -> [String] {
        [
            (GATTProperties.read, "read"), (.writeWithoutResponse, "write-without-response"), (.write, "write"),
            (.notify, "notify"), (.indicate, "indicate"),
        ].compactMap { properties.contains($0.0) ? $0.1 : nil }
    }

    static func error(_ name: String, _ message: String) -> DBusError {
        DBusError(name: "org.bluez.Error." + name, message: message)
    }
}
