import LayeredProtocol
import Logging
import VitalBridge
import VitalCore
import VitalStore

/// The guided run `vitalbridge demo` shows: a caller app's requests to a fresh home, each with its callback.
extension Hub {
    /// The demo's requests, each with what it shows, as the whitelisted demo caller `vitalbridge-demo://`.
    public static let demoSteps: [(title: String, url: String)] = [
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

    /// Creates a home in `directory` with the built-in fleet (one simulated device of each model) and sends it each
    /// of ``demoSteps`` as the demo caller, telling through `say`, a few lines at a time: each step and its request
    /// before it runs, then its callback (cut at 160 characters, with its length), its status, reason and device,
    /// and its readings as a table; then how many readings and devices the store holds.
    ///
    /// - Throws: ``HomeError`` when the home cannot be created or its store read.
    public static func demo(
        in directory: String, logger: Logger, report: @escaping @Sendable (String) -> Void,
        say: (String) -> Void
    ) async throws(HomeError) {
        let home = try Home(directory, create: true)
        let hub = try Hub(home: home, whitelist: try home.whitelist(), logger: logger, report: report)
        say("VitalBridge demo: a caller app (vitalbridge-demo://) asks the hub for vital signs.\n")
        for (index, (title, url)) in demoSteps.enumerated() {
            say("\(index + 1). \(title)\n   request:  \(url)")
            var lines: [String] = []
            let outcome = await hub.bridge(handOff: ShownHandOff()).handle(url: url, platform: .ios)
            if case .callback(let callbackURL, let report) = outcome {
                let shown = callbackURL.count > 160 ? String(callbackURL.prefix(157)) + "..." : callbackURL
                lines.append("   callback: \(shown)  (\(callbackURL.utf8.count) characters)")
                var summary = "   status \(report.status.rawValue)"
                if let reason = report.reason { summary += ", reason \(reason)" }
                if let device = report.device { summary += ", device \(device)" }
                lines.append(summary)
                if let callback = try? LayeredCallback(parsing: callbackURL), let result = callback.result {
                    lines += Self.table(of: result).split(separator: "\n", omittingEmptySubsequences: false).map {
                        "   " + $0
                    }
                }
            } else {
                lines.append("   no callback")
            }
            say(lines.joined(separator: "\n") + "\n")
        }
        do {
            let (readings, devices) = (try hub.store.readings.all().count, try hub.store.devices().count)
            say("The store now holds \(readings) readings from \(devices) devices.")
        } catch {
            throw HomeError("cannot read the demo home's store: \(error.message)")
        }
    }

    /// The readings of a result as a table without titles: one row per object, one column per key
    /// (``LayeredResult/rows``).
    static func table(of result: LayeredResult) -> String {
        let rows = result.rows
        guard let width = rows.map(\.count).max(), width > 0 else { return "(no readings)" }
        return TextTable(Array(repeating: "", count: width), rows).body
    }
}
