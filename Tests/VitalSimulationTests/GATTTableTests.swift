import Testing
import VitalCore
import VitalDevices
import VitalSimulation

/// The GATT table each simulated peripheral serves, exactly: the services and characteristics in their order, with
/// their properties (what the BlueZ-compatible service exports, handle by handle).
@Suite("Simulated GATT tables")
struct GATTTableTests {
    typealias Service = (uuid: UInt16, characteristics: [(uuid: UInt16, properties: GATTProperties)])

    static let deviceInformation: Service = (0x180A, [(0x2A25, .read), (0x2A26, .read)])
    static let battery: Service = (0x180F, [(0x2A19, .read)])
    static let vendor: Service = (0xFFF0, [(0xFFF1, .write), (0xFFF2, .notify)])
    static let racp: (uuid: UInt16, properties: GATTProperties) = (0x2A52, [.write, .indicate])
    /// The Current Time Service, readable and writable (unless the fleet says `clockWritable: false`), last: on
    /// every device that dates its readings with a clock the hub may read (not the PO3, whose protocol only sets its
    /// clock, nor a generic device without a clock).
    static let currentTime: Service = (0x1805, [(0x2A2B, [.read, .write])])
    /// The User Data Service of a generic blood pressure monitor or weight scale that keeps users, after its
    /// profile's services: First Name, Age, Date of Birth, Gender, Height, Database Change Increment, User Index,
    /// User Control Point.
    static let userData: Service = (
        0x181C,
        [
            (0x2A8A, [.read, .write]), (0x2A80, [.read, .write]), (0x2A85, [.read, .write]), (0x2A8C, [.read, .write]),
            (0x2A8E, [.read, .write]), (0x2A99, [.read, .write, .notify]), (0x2A9A, .read),
            (0x2A9F, [.write, .indicate]),
        ]
    )

    /// One device of each family, and of each variant whose table differs: model, MAC, fleet options, table.
    static let devices: [(device: FleetDevice, services: [Service])] = [
        (
            FleetDevice(model: "BP5", mac: "A00000000001"),
            [deviceInformation, battery, (0x1810, [(0x2A35, .indicate), (0x2A36, .notify)]), vendor, currentTime]
        ),
        (
            FleetDevice(model: "BPS", mac: "A00000000002"),
            [deviceInformation, battery, (0x1810, [(0x2A35, .indicate), (0x2A36, .notify)]), currentTime]
        ),
        (
            FleetDevice(model: "BG5", mac: "A00000000003"),
            [deviceInformation, battery, (0x1808, [(0x2A18, .notify), (0x2A34, .notify), racp]), vendor, currentTime]
        ),
        (
            FleetDevice(model: "HS4S", mac: "A00000000004"),
            [deviceInformation, battery, (0x181B, [(0x2A9C, .indicate)]), vendor, currentTime]
        ),
        (
            FleetDevice(model: "HS2", mac: "A00000000005"),
            [deviceInformation, battery, (0x181D, [(0x2A9D, .indicate)]), vendor, currentTime]
        ),
        (
            FleetDevice(model: "WSS", mac: "A00000000006", bodyComposition: "afterWeight"),
            [
                deviceInformation, battery, (0x181D, [(0x2A9D, .indicate)]), (0x181B, [(0x2A9C, .indicate)]),
                currentTime,
            ]
        ),
        (
            FleetDevice(model: "THV3", mac: "A00000000007"),
            [deviceInformation, battery, (0x1809, [(0x2A1C, .indicate)]), vendor, currentTime]
        ),
        (
            FleetDevice(model: "PO3", mac: "A00000000008"),
            [deviceInformation, battery, (0x1822, [(0x2A5E, .indicate), (0x2A5F, .notify), racp]), vendor]
        ),
        (
            FleetDevice(model: "PLXS", mac: "A00000000009", spotCheck: false),
            [deviceInformation, battery, (0x1822, [(0x2A5F, .notify)])]
        ),
        (
            FleetDevice(model: "AM4", mac: "A0000000000A"),
            [deviceInformation, battery, vendor, (0xFFE0, [(0xFFE2, .notify)])]
        ),
        (
            FleetDevice(model: "FitPro9614N", mac: "A0000000000B"),
            [deviceInformation, battery, (0xFFD0, [(0xFFD1, .write), (0xFFD2, .notify), (0xFFD3, [.read, .write])])]
        ),
        (
            FleetDevice(model: "HRS", mac: "A0000000000C"),
            [deviceInformation, battery, (0x180D, [(0x2A37, .notify)])]
        ),
        (
            FleetDevice(model: "PLXS", mac: "A0000000000D"),
            [
                deviceInformation, battery, (0x1822, [(0x2A5E, .indicate), (0x2A5F, .notify), racp]), currentTime,
            ]
        ),
        (
            FleetDevice(model: "BPS", mac: "A0000000000E", clock: false),
            [deviceInformation, battery, (0x1810, [(0x2A35, .indicate), (0x2A36, .notify)])]
        ),
        (
            // it dates its readings, but serves no Current Time
            FleetDevice(model: "BPS", mac: "A00000000011", currentTime: false),
            [deviceInformation, battery, (0x1810, [(0x2A35, .indicate), (0x2A36, .notify)])]
        ),
        (
            FleetDevice(model: "BPS", mac: "A0000000000F", userData: UserDataScript(slots: 2)),
            [deviceInformation, battery, (0x1810, [(0x2A35, .indicate), (0x2A36, .notify)]), userData, currentTime]
        ),
        (
            FleetDevice(
                model: "WSS", mac: "A00000000010", bodyComposition: "afterWeight", userData: UserDataScript(slots: 4)),
            [
                deviceInformation, battery, (0x181D, [(0x2A9D, .indicate)]), (0x181B, [(0x2A9C, .indicate)]), userData,
                currentTime,
            ]
        ),
    ]

    @Test("each peripheral serves exactly its family's table")
    func tables() throws {
        let world = try SimulatedWorld(fleet: Fleet(devices: Self.devices.map(\.device)), start: start)
        for (device, services) in Self.devices {
            let expected = services.map { service in
                GATTServiceLayout(
                    uuid: service.uuid,
                    characteristics: service.characteristics.map {
                        GATTCharacteristicLayout(uuid: $0.uuid, properties: $0.properties)
                    })
            }
            #expect(world.services(of: MACAddress(device.mac)!) == expected, "\(device.model)")
        }
        #expect(world.services(of: MACAddress("A0000000FFFF")!).isEmpty)
    }
}
