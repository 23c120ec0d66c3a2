import Foundation
import Testing
import VitalCore
import VitalTestSupport

/// A band command for a band the hub has not added tells how to add it, as the band's own model.
@Suite("vitalbridge band: a band the hub does not know")
struct UnknownBandTests {
    @Test("a band the hub does not know is told the request for its own model: a Smartee Training 9616N is 702")
    func unknownBand() throws {
        let home = try TestHome()
        #expect(try home.run(["init", "--home", home.path]).status == 0)
        for model in [DeviceModel.fitPro9614N, .fitPulse9615N, .smarteeTraining9616N] {
            let mac = macOf(model)
            let output = try home.run(["band", "info", "--home", home.path, "--mac", mac])
            let advice =
                "vitalbridge open --scan-qr \(mac) "
                + "'ihealth-layer://?cmd=1&addtype=1&devicemodel=\(model.rawValue)&scheme=vitalbridge-demo'"
            #expect(output.status == 1 && output.stdout.isEmpty)
            #expect(
                output.stderr
                    == "\(mac) is not a device of this hub: add it first (it is a \(model.name)): \(advice)\n",
                "\(output.stderr)")
            // the advice, followed as written, adds the band as its own model
            let added = try home.run(
                [
                    "open", "--home", home.path, "--scan-qr", mac,
                    "ihealth-layer://?cmd=1&addtype=1&devicemodel=\(model.rawValue)&scheme=vitalbridge-demo",
                ])
            #expect(added.status == 0 && added.stdout.hasSuffix("&status=0&mac=\(mac)\n"), "\(added.stderr)")
            let info = try home.run(["band", "info", "--home", home.path, "--mac", mac])
            #expect(info.status == 0 && info.stdout.hasPrefix("\(model.name) (devicemodel \(model.rawValue)), serial"))
        }
        // no band of that address in range: the three models to choose from, none of them guessed
        let away = try home.run(["band", "info", "--home", home.path, "--mac", "004D3208D3FF"])
        #expect(away.status == 1)
        #expect(
            away.stderr
                == "004D3208D3FF is not a device of this hub: add it first with a layered request for its model, "
                + "devicemodel 700 (FitPro9614N), 701 (FitPulse9615N) or 702 (SmarteeTraining9616N); no band of that "
                + "address is in range\n")
    }
}
