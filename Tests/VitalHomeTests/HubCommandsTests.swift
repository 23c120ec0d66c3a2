import Foundation
import LayeredProtocol
import Locking
import ShareVitalSigns
import Testing
import VitalBridge
import VitalCore
import VitalHome
import VitalStore
import VitalTestSupport

/// The ShareVitalSigns board in memory: a request is shared without the user's runtime folder.
private final class MemoryBoard: SharedBoard {
    let board = Locked<Board?>(nil)
    var location: String { "memory" }
    func read() throws -> Board? { board.withLock { $0 } }
    func write(_ board: Board) throws { self.board.withLock { $0 = board } }
}

/// What the commands ask of the hub beyond a request, in process: the callers it answers, the doctor's report, the
/// scans and the fleet, the sinks' status, a ShareVitalSigns request, the adapter, the pairing dialogue.
@Suite("VitalHome: what the commands show and change")
struct HubCommandsTests {
    /// A hub on a new simulated home in `folder`.
    static func hub(in folder: TemporaryDirectory) throws -> Hub {
        let home = try Home(folder.file("home"), create: true)
        return try Hub(home: home, whitelist: try home.whitelist(), logger: testLogger, report: { _ in })
    }

    @Test("the scans list what the simulated world hears; the fleet shows each device; an adapter is set and unset")
    func scansAndFleet() async throws {
        let folder = try TemporaryDirectory("commands")
        defer { folder.remove() }
        let hub = try Self.hub(in: folder)
        let health = try await hub.healthDeviceRows()
        let bp5 = try #require(health.first { $0[0] == "004D3208D2F4" })
        #expect(bp5[2] == "Blood Pressure (0x1810)" && bp5[5] == "100")
        #expect(Set(health.map { $0[0] }).count == health.count)
        let bands = try await hub.bandRows()
        let band = try #require(bands.first { $0[0] == "004D3208D310" })
        #expect(band[2].hasSuffix(" dBm") && band[4] == "no")
        let fleet = try await hub.fleetRows()
        let monitor = try #require(fleet.first { $0[0] == "004D3208D2F4" })
        #expect(monitor[1] == "BP5" && monitor.count == 7 && Int(monitor[6])! > 0)
    }

    @Test("the pairing dialogue: a passkey shown once, typed ones asked again until valid, a comparison confirmed")
    func pairingDialogue() async {
        let device = MACAddress("004D3208D313")!
        let answers = Locked(["12345678", "042", "", "y", String(repeating: "9", count: 17), "1234"])
        let told = Locked<[String]>([])
        let user = TerminalPairingUser(
            acceptsComparison: false,
            ask: { _ in answers.withLock { $0.isEmpty ? nil : $0.removeFirst() } },
            tell: { line in told.withLock { $0.append(line) } })
        await user.show(passkey: 42, entered: 0, for: device)
        await user.show(passkey: 42, entered: 1, for: device)
        #expect(await user.passkey(for: device) == 42)
        #expect(await user.passkey(for: device) == nil, "an empty answer cancels")
        #expect(await user.confirm(passkey: 42, for: device))
        #expect(await user.pinCode(for: device) == "1234")
        #expect(await user.pinCode(for: device) == nil, "the end of input cancels")
        #expect(
            told.withLock { $0 } == [
                "Enter 000042 on the device 00:4D:32:08:D3:13, then Enter there",
                "'12345678' is not a passkey: type the 6 digits the device shows",
                "a PIN code has 1 to 16 characters",
            ])
        let accepting = TerminalPairingUser(acceptsComparison: true, ask: { _ in nil }, tell: { _ in })
        #expect(await accepting.confirm(passkey: 1, for: device))
    }
}
