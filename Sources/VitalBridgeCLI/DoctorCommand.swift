import ArgumentParser
import Foundation
import VitalCore
import VitalHome

#if canImport(Glibc)
    import Glibc
#endif

/// `vitalbridge doctor`: what stands between this machine and a first reading, each with the command that fixes it.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the home and this machine, and say how to fix what would stop a request.",
        discussion: """
            One line a check: ok, warning or fail, what was found, and the command that fixes it. The home: it \
            exists, is private, its store is sound and of this release's schema, its whitelist and fleet read. The \
            URL handler of each scheme. For a home that reaches devices through BlueZ: libsystemd, the system bus, \
            bluetoothd, the adapter, and each added device known to BlueZ and bonded where its profile needs it. \
            Nothing is changed. Exit 0 when the home can serve requests with its transport (warnings allowed), \
            1 otherwise.

            Examples:
              vitalbridge doctor
              vitalbridge doctor --home /tmp/hub --json
            """)

    @OptionGroup var homeOptions: HomeOptions

    @Flag(help: "Print one JSON object: the home, whether it is ready, and every check.")
    var json = false

    func run() async throws {
        let doctor = Doctor(directory: Home.directory(option: homeOptions.home))
        let findings = await doctor.examine()
        if json { print(doctor.json(findings)) } else { for finding in findings { print(finding.line) } }
        if !Doctor.isReady(findings) { throw CommandError(ending: .refused) }
    }
}
