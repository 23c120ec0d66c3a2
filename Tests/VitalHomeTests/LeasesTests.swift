import Foundation
import LayeredProtocol
import Locking
import Testing
import VitalBridge
import VitalCore
import VitalHome
import VitalTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Device leases across processes (``FileLeases``) forgetting a device the hub removes.
@Suite("VitalHome: leases that forget a device")
struct LeasesTests {
    static let mac = MACAddress("004D3208D2F4")!

    /// A simulated home in `folder` with a saved state for the BP5 (its content is not read).
    static func hub(in folder: TemporaryDirectory) throws -> Hub {
        let home = try Home(folder.file("home"), create: true)
        try Home.writeFile(Array("{}".utf8), to: home.statePath(mac))
        return try Hub(home: home, whitelist: Whitelist.default, logger: testLogger) { _ in }
    }

    @Test("on a simulated home the saved state goes while the device is held; the lock file stays")
    func simulated() async throws {
        let folder = try TemporaryDirectory("leases")
        defer { folder.remove() }
        let hub = try Self.hub(in: folder)
        let other = FileLeases(home: hub.home, world: hub.transport.world, timeout: .zero) { _ in }
        let held = try await hub.leases.forgetting(Self.mac) {
            // another process's lease is refused meanwhile, and the state is still there
            let busy = await (try? other.withLease(Self.mac) { true }) == nil
            return busy && Home.exists(hub.home.statePath(Self.mac))
        }
        #expect(held)
        #expect(!Home.exists(hub.home.statePath(Self.mac)))
        #expect(Home.exists(hub.home.locksDirectory + "/\(Self.mac).lock"))
        // a device without a saved state is forgotten all the same
        #expect(try await hub.leases.forgetting(Self.mac) { 7 } == 7)
    }

    @Test("a real transport's leases touch no simulated state; a failing body forgets nothing")
    func keeps() async throws {
        let folder = try TemporaryDirectory("leases")
        defer { folder.remove() }
        let hub = try Self.hub(in: folder)
        let real = FileLeases(home: hub.home, world: nil) { _ in }
        #expect(try await real.forgetting(Self.mac) { 1 } == 1)
        #expect(Home.exists(hub.home.statePath(Self.mac)))
        struct Refused: Error {}
        await #expect(throws: Refused.self) { try await hub.leases.forgetting(Self.mac) { throw Refused() } }
        #expect(Home.exists(hub.home.statePath(Self.mac)))
    }

    @Test("a device another process holds is waited for, then refused: nothing is run or forgotten")
    func busy() async throws {
        let folder = try TemporaryDirectory("leases")
        defer { folder.remove() }
        let hub = try Self.hub(in: folder)
        let lock = open(hub.home.locksDirectory + "/\(Self.mac).lock", O_CREAT | O_RDWR, 0o600)
        defer { close(lock) }
        #expect(flock(lock, LOCK_EX) == 0)
        let leases = FileLeases(home: hub.home, world: hub.transport.world, timeout: .milliseconds(100)) { _ in }
        let ran = Locked(false)
        await #expect {
            try await leases.forgetting(Self.mac) { ran.withLock { $0 = true } }
        } throws: { "\($0)".contains("in use by another request") }
        #expect(!ran.withLock { $0 } && Home.exists(hub.home.statePath(Self.mac)))
    }

    @Test("a [y/N] answer is yes only for y or yes, in any case")
    func yes() {
        for answer in ["y", "Y", "yes", "YES", "Yes"] { #expect(TerminalUser.isYes(answer), "\(answer)") }
        for answer in ["", "n", "no", "yep", " y", "oui"] { #expect(!TerminalUser.isYes(answer), "\(answer)") }
    }
}
