import Foundation
import LayeredProtocol
import Testing
import VitalCore
import VitalDevices
import VitalSimulation
import VitalStore
import VitalTestSupport

/// `vitalbridge add` and `measure`: a person's commands, through the real process, thin over the engine.
@Suite("vitalbridge add and measure")
struct PersonCommandTests {
    @Test("add --qr adds the device the code names, its records left on it for sync")
    func addByQRCode() throws {
        let home = try TestHome()
        _ = try home.run(["init", "--home", home.path])
        let added = try home.run(["add", "--home", home.path, "--qr", "BP5:004D3208D2F4"])
        #expect(added.status == 0 && added.stdout == "added 004D3208D2F4 (BP5), serial BP5-D2F4\n", "\(added.stderr)")
        #expect(try home.store().device(MACAddress("004D3208D2F4")!)?.serialNumber == "BP5-D2F4")
        #expect(try home.store().readings.all().isEmpty)
        let synced = try home.run(["sync", "--home", home.path, "--mac", "004D3208D2F4"])
        #expect(synced.stdout == "004D3208D2F4: synced, 5 new records\n", "\(synced.stderr)")
        // a bare MAC with --model, and an ID:MAC
        let bare = try home.run(["add", "--home", home.path, "--qr", "004D3208D314", "--model", "900"])
        #expect(bare.status == 0 && bare.stdout.hasPrefix("added 004D3208D314 (BPS)"), "\(bare.stderr)")
        let identified = try home.run(["add", "--home", home.path, "--qr", "X7:004D3208D308", "--model", "BG5"])
        #expect(identified.status == 0, "\(identified.stderr)")
    }

    @Test("add refuses what it cannot add, by name, and adds nothing")
    func addRefusals() throws {
        let home = try TestHome()
        _ = try home.run(["init", "--home", home.path])
        let cases: [([String], Int32, String)] = [
            (["--qr", "004D3208D2F4"], 2, "the QR code names no model: give --model"),
            (
                ["--qr", "BP5:004D3208D2F4", "--model", "BPS"], 2,
                "--qr: the QR code names model BP5, not the requested BPS"
            ),
            (["--qr", "BP5:004D32"], 2, "--qr: the QR code's MAC is not 12 hexadecimal digits"),
            (["--model", "BP99"], 2, "--model: 'BP99' is not a model of the catalog"),
            ([], 2, "give --qr or --model"),
            (["--model", "AM4"], 1, "AM4 devices are bound to a user profile"),
            (["--qr", "BP5:004D3208D3AA"], 1, "004D3208D3AA"),
        ]
        for (arguments, status, message) in cases {
            let output = try home.run(["add", "--home", home.path] + arguments)
            #expect(output.status == status && output.stderr.contains(message), "\(arguments): \(output.stderr)")
        }
        #expect(try home.store().devices().isEmpty)
    }

    @Test(
        "add --model adds the one paired device of the model in range; with several and nobody to choose, it says which"
    )
    func addByScan() throws {
        let home = try TestHome()
        _ = try home.run(["init", "--home", home.path])
        let added = try home.run(["add", "--home", home.path, "--model", "BPS"])
        #expect(added.status == 0 && added.stdout.hasPrefix("added 004D3208D314 (BPS)"), "\(added.stderr)")
        var two = Fleet.default
        var twin = two.devices.first { $0.model == "BPS" }!
        twin.mac = "004D3208D3FE"
        two.devices.append(twin)
        let several = try TestHome(fleet: two)
        _ = try several.run(["init", "--home", several.path])
        let refused = try several.run(["add", "--home", several.path, "--model", "BPS"])
        #expect(
            refused.status == 1 && refused.stderr.contains("2 paired BPS devices are in range"), "\(refused.stderr)")
        #expect(refused.stderr.contains("004D3208D3FE") && refused.stderr.contains("004D3208D314"))
    }

    @Test("measure stores a reading, shows it, and a caller then gets it once")
    func measure() throws {
        let home = try TestHome()
        try home.add(.bp5)
        try home.add(.bg5)
        let measured = try home.run(["measure", "--home", home.path, "--mac", macOf(.bp5)])
        #expect(measured.status == 0 && measured.stdout.contains("\"systolic\":"), "\(measured.stderr)")
        let callback = try home.callback(request(.sync, .bp5))
        guard case .list(let objects)? = callback.result else {
            Issue.record("no result")
            return
        }
        #expect(objects.contains { "\($0.json)\n" == measured.stdout })
        let noCode = try home.run(["measure", "--home", home.path, "--mac", macOf(.bg5)])
        #expect(noCode.status == 1 && noCode.stderr.contains("needs the strip's code (--code)"), "\(noCode.stderr)")
        let withCode = try home.run(["measure", "--home", home.path, "--mac", macOf(.bg5), "--code", "QR-1234"])
        #expect(withCode.status == 0 && withCode.stdout.contains("\"blood_glucose\":"), "\(withCode.stderr)")
        let unknown = try home.run(["measure", "--home", home.path, "--mac", macOf(.hs4)])
        #expect(unknown.status == 1 && unknown.stderr.contains("is not a device of this hub"))
    }
}
