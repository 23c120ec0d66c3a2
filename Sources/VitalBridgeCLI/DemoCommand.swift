import ArgumentParser
import Foundation
import VitalHome

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

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "vitalbridge-demo-\(UUID().uuidString)")
        defer { if !keep { try? FileManager.default.removeItem(at: directory) } }
        do {
            try await Hub.demo(in: directory.path, logger: hubLogger(), report: printError) { print($0) }
        } catch {
            throw CommandError("cannot run the demo: \(error)")
        }
        if keep {
            print("Home kept at \(directory.path): try vitalbridge records --home '\(directory.path)'")
        }
    }
}
