import BlueZ
import Testing
import VitalCore

/// What a person writes of a Bluetooth address, and what a pairing says it did: no bus needed.
@Suite("BlueZ: addresses as people write them, a pairing's result as one line")
struct BlueZNamesTests {
    @Test(
        "an address is 12 hexadecimal digits or six colon-separated pairs; anything else is none",
        arguments: [
            ("004D3208D310", "004D3208D310"), ("00:4d:32:08:d3:10", "004D3208D310"), ("004d3208d310", "004D3208D310"),
            ("00:4D:32:08:D3", nil), ("004:D3:20:8D:31:0", nil), ("00-4D-32-08-D3-10", nil), ("00:4D:32:08:D3:1G", nil),
            ("", nil), (":::::", nil),
        ])
    func writtenAddress(text: String, mac: String?) {
        #expect(BlueZNames.mac(written: text)?.description == mac)
    }

    @Test("a pairing's line says whether it was paired already, bonded and trusted")
    func summary() {
        let mac = MACAddress("004D3208D310")!
        #expect(
            PairingResult(device: mac, paired: true, bonded: true, trusted: true, wasPaired: false).summary
                == "paired 00:4D:32:08:D3:10 (bonded, trusted)")
        #expect(
            PairingResult(device: mac, paired: true, bonded: nil, trusted: false, wasPaired: true).summary
                == "paired 00:4D:32:08:D3:10 (already paired, not trusted)")
        #expect(
            PairingResult(device: mac, paired: true, bonded: false, trusted: true, wasPaired: false).summary
                == "paired 00:4D:32:08:D3:10 (not bonded, trusted)")
    }
}
