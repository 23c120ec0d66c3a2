import VitalSimulation

extension Fleet {
    /// Heart-rate sensors that pair each in their own way, for the pairing tests in process and through the real
    /// `vitalbridge pair`: Just Works (…E001), a passkey to type that the device requires before it connects
    /// (…E002, 123456), a passkey shown by the hub (…E003) or mistyped on the device (…E004), numeric comparison
    /// (…E005), a first pairing (…E006) or connection (…E007) the controller aborts, a connection that always fails
    /// (…E008), and a PIN code (…E009, 4321).
    public static let pairingSensors = Fleet(devices: [
        FleetDevice(model: "HRS", mac: "004D3208E001", pairing: PairingScript(method: "justWorks")),
        FleetDevice(
            model: "HRS", mac: "004D3208E002",
            pairing: PairingScript(method: "passkey", passkey: 123456, required: true)),
        FleetDevice(model: "HRS", mac: "004D3208E003", pairing: PairingScript(method: "display", passkey: 654321)),
        FleetDevice(
            model: "HRS", mac: "004D3208E004", pairing: PairingScript(method: "display", passkey: 654321, typed: 654320)
        ),
        FleetDevice(model: "HRS", mac: "004D3208E005", pairing: PairingScript(method: "confirm", passkey: 24680)),
        FleetDevice(
            model: "HRS", mac: "004D3208E006", pairing: PairingScript(method: "justWorks"), abortFirstConnection: true),
        FleetDevice(model: "HRS", mac: "004D3208E007", abortFirstConnection: true),
        FleetDevice(model: "HRS", mac: "004D3208E008", failures: FailureScript(atConnect: true)),
        FleetDevice(model: "HRS", mac: "004D3208E009", pairing: PairingScript(method: "pinCode", pinCode: "4321")),
    ])
}
