import Foundation

/// The independent implementations the tests compare with (`Tests/Oracles`), in their virtual environment.
public enum Oracles {
    /// The repository's root folder.
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The oracles' Python, set up by `Tests/Oracles/setup.sh` (which CI runs; it runs here too if needed, once a
    /// test process).
    public static func python() throws -> String { try ready.get() }

    private static let ready = Result { () throws(OracleMissing) -> String in
        let setup = Process()
        setup.executableURL = URL(fileURLWithPath: "/bin/bash")
        setup.arguments = [root.appendingPathComponent("Tests/Oracles/setup.sh").path]
        do {
            try setup.run()
        } catch {
            throw OracleMissing(message: "cannot run Tests/Oracles/setup.sh: \(error)")
        }
        setup.waitUntilExit()
        guard setup.terminationStatus == 0 else {
            throw OracleMissing(message: "Tests/Oracles/setup.sh failed: the oracles are not available")
        }
        return root.appendingPathComponent(".oracles/venv/bin/python").path
    }

    /// The path of the script `name` in `Tests/Oracles`.
    public static func script(_ name: String) -> String { root.appendingPathComponent("Tests/Oracles/" + name).path }

    public struct OracleMissing: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }
}
