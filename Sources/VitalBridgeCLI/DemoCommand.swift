import ArgumentParser
import Foundation
import LayeredProtocol
import VitalBridge
import VitalHome
import VitalStore

/// `vitalbridge demo`: a guided run on a fresh temporary home.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "A guided run: add a device, measure, sync, with each request, callback and reading shown.",
        discussion: """
            Runs on a fresh temporary home with the built-in fleet (one simulated device of each model), as the \
            whitelisted demo caller vitalbridge-demo://, and removes the home afterwards unless --keep is given.

            Example:
              vitalbridge demo
            """)

    @Flag(help: "Keep the temporary home and print its path, to explore it with the other commands.")
    var keep = false

    static let steps: [(String, String)] = [
        (
            "Add the paired BP5 found by a Bluetooth scan (cmd 1, addtype 0)",
            "ihealth-layer://?cmd=1&addtype=0&devicemodel=100&ver=100&popflag=0&scheme=vitalbridge-demo"
        ),
        (
            "Measure blood pressure on it, in mmHg (cmd 0); its five stored readings are kept on the way",
            "ihealth-layer://?cmd=0&devicemodel=100&mac=004D3208D2F4&unit=2&ver=100&scheme=vitalbridge-demo"
        ),
        (
            "Sync the BP5's stored readings, in kPa (cmd 2)",
            "ihealth-layer://?cmd=2&devicemodel=100&mac=004D3208D2F4&unit=3&ver=100&scheme=vitalbridge-demo"
        ),
        (
            "Add a BG5 glucose meter and sync it, in mmol/L (cmd 4): status 61455 is add success, sync success",
            "ihealth-layer://?cmd=4&addtype=0&devicemodel=400&unit=0&ver=100&scheme=vitalbridge-demo"
        ),
        (
            "Sync and measure the PO3 oximeter (cmd 6): the combined result",
            "ihealth-layer://?cmd=6&devicemodel=300&mac=004D3208D307&ver=100&scheme=vitalbridge-demo"
        ),
        (
            "Add the Fit Pro 9614N smartband and sync what it pushed (cmd 4, VitalBridge's devicemodel 700): a day each",
            "ihealth-layer://?cmd=4&addtype=0&devicemodel=700&unit=10&ver=100&scheme=vitalbridge-demo"
        ),
        (
            "A request the hub rejects: kilograms for a blood pressure monitor",
            "ihealth-layer://?cmd=0&devicemodel=100&mac=004D3208D2F4&unit=4&ver=100&scheme=vitalbridge-demo"
        ),
    ]

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "vitalbridge-demo-\(UUID().uuidString)")
        defer { if !keep { try? FileManager.default.removeItem(at: directory) } }
        let hub: Hub
        do {
            let home = try Home(directory.path, create: true)
            hub = try Hub(home: home, whitelist: try home.whitelist(), logger: hubLogger(), report: printError)
        } catch {
            throw CommandError("cannot create the demo home: \(error)")
        }
        print("VitalBridge demo: a caller app (vitalbridge-demo://) asks the hub for vital signs.\n")
        for (index, (title, url)) in Self.steps.enumerated() {
            print("\(index + 1). \(title)")
            print("   request:  \(url)")
            let outcome = await hub.bridge(handOff: ShownHandOff()).handle(url: url, platform: .ios)
            guard case .callback(let callbackURL, let report) = outcome else {
                print("   no callback\n")
                continue
            }
            let shown = callbackURL.count > 160 ? String(callbackURL.prefix(157)) + "..." : callbackURL
            print("   callback: \(shown)  (\(callbackURL.utf8.count) characters)")
            var summary = "   status \(report.status.rawValue)"
            if let reason = report.reason { summary += ", reason \(reason)" }
            if let device = report.device { summary += ", device \(device)" }
            print(summary)
            if let callback = try? LayeredCallback(parsing: callbackURL), let result = callback.result {
                print(indent(resultTable(result)))
            }
            print()
        }
        let records = try hub.store.readings.all()
        print("The store now holds \(records.count) readings from \(try hub.store.devices().count) devices.")
        if keep {
            print("Home kept at \(directory.path): try vitalbridge records --home '\(directory.path)'")
        }
    }

    func indent(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { "   " + $0 }.joined(separator: "\n")
    }
}

/// The readings of a result as a table: one row per object, one column per key (``LayeredResult/rows``).
func resultTable(_ result: LayeredResult) -> String {
    let all = result.rows
    guard let width = all.map(\.count).max(), width > 0 else { return "(no readings)" }
    let padded = all.map { $0 + Array(repeating: "", count: width - $0.count) }
    return table(Array(repeating: "", count: width), padded).split(separator: "\n", omittingEmptySubsequences: false)
        .dropFirst(2).joined(separator: "\n")
}
