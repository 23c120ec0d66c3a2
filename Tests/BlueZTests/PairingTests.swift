import BlueZ
import DBus
import Foundation
import Locking
import Logging
import SimulatedBlueZ
import TestRequirements
import Testing
import VitalCore
import VitalDevices
import VitalSimulation
import VitalTestSupport

/// A person who answers a pairing dialogue as scripted, and keeps what they were shown and asked.
final class ScriptedPairingUser: PairingUser {
    let typedPasskey: UInt32?
    let typedPIN: String?
    let confirms: Bool
    /// Waits, instead of answering, until the question is cancelled.
    let waitsForCancel: Bool
    let heard = Locked<[String]>([])

    init(passkey: UInt32? = nil, pin: String? = nil, confirms: Bool = false, waitsForCancel: Bool = false) {
        typedPasskey = passkey
        typedPIN = pin
        self.confirms = confirms
        self.waitsForCancel = waitsForCancel
    }

    func show(passkey: UInt32, entered: Int, for device: MACAddress) async {
        heard.withLock { $0.append("show \(PairingPasskey.text(passkey)) on \(device)") }
    }

    func show(pinCode: String, for device: MACAddress) async {
        heard.withLock { $0.append("show PIN \(pinCode) on \(device)") }
    }

    func passkey(for device: MACAddress) async -> UInt32? {
        heard.withLock { $0.append("passkey of \(device)?") }
        if waitsForCancel {
            while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(10)) }
            heard.withLock { $0.append("cancelled") }
            return nil
        }
        return typedPasskey
    }

    func pinCode(for device: MACAddress) async -> String? {
        heard.withLock { $0.append("PIN of \(device)?") }
        return typedPIN
    }

    func confirm(passkey: UInt32, for device: MACAddress) async -> Bool {
        heard.withLock { $0.append("confirm \(PairingPasskey.text(passkey)) on \(device)?") }
        return confirms
    }
}

/// Keeps the messages logged, at every level.
struct KeptLog: LogHandler {
    let messages: Locked<[String]>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) { messages.withLock { $0.append("\(event.level): \(event.message)") } }
}

@Suite(
    "Pairing through the hub's agent, and passing BlueZ errors retried, on a simulated BlueZ", .serialized,
    .needs(Requirement.bus))
struct PairingTests {
    static let justWorks = MACAddress("004D3208E001")!
    static let passkey = MACAddress("004D3208E002")!
    static let display = MACAddress("004D3208E003")!
    static let displayMistyped = MACAddress("004D3208E004")!
    static let confirm = MACAddress("004D3208E005")!
    static let abortsPairing = MACAddress("004D3208E006")!
    static let abortsConnection = MACAddress("004D3208E007")!
    static let failsConnection = MACAddress("004D3208E008")!
    static let pinCode = MACAddress("004D3208E009")!

    /// Heart-rate sensors that pair each in their own way.
    static let fleet = Fleet.pairingSensors

    /// Runs `body` with a central on a bench serving ``fleet``, whose log is kept and which retries quickly.
    static func withCentral(_ body: (BlueZCentral, Locked<[String]>) async throws -> Void) async throws {
        try await BlueZBench.with(fleet: fleet) { bench in
            let messages = Locked<[String]>([])
            let central = BlueZCentral(
                bus: .address(bench.bus.address), scanDuration: .seconds(2), connectTimeout: .seconds(5),
                logger: Logger(label: "test") { _ in KeptLog(messages: messages) },
                retryPolicy: BlueZRetryPolicy(retries: 3, firstDelay: .milliseconds(20)))
            do {
                try await body(central, messages)
                await central.close()
            } catch {
                await central.close()
                throw error
            }
        }
    }

    /// The error `body` throws, or `nil`.
    static func failure(_ body: () async throws(DeviceError) -> Void) async -> DeviceError? {
        do {
            try await body()
            return nil
        } catch {
            return error
        }
    }

    @Test("Just Works pairs without a question; the agent is unregistered after, so a second pairing works too")
    func justWorksTwice() async throws {
        try await Self.withCentral { central, messages in
            let user = ScriptedPairingUser()
            let result = try await central.pair(Self.justWorks, user: user)
            #expect(
                result
                    == PairingResult(
                        device: Self.justWorks, paired: true, bonded: true, trusted: true, wasPaired: false))
            #expect(user.heard.withLock { $0 }.isEmpty)
            // a second pairing registers its agent again: BlueZ refuses a second agent of one client
            let pin = ScriptedPairingUser(pin: "4321")
            let second = try await central.pair(Self.pinCode, user: pin)
            #expect(second.paired && second.trusted && !second.wasPaired)
            #expect(pin.heard.withLock { $0 } == ["PIN of \(Self.pinCode)?"])
            let again = try await central.pair(Self.justWorks, user: user)
            #expect(again.wasPaired && again.paired)
            #expect(!messages.withLock { $0 }.contains { $0.contains("unregister") })
        }
    }

    @Test("a passkey the device shows, typed right, pairs it; before that it refuses to connect")
    func passkeyTyped() async throws {
        try await Self.withCentral { central, _ in
            let refused = await Self.failure { () async throws(DeviceError) in
                _ = try await central.connect(to: Self.passkey)
            }
            #expect(refused?.code == .authenticationFailed, "\(String(describing: refused))")
            let user = ScriptedPairingUser(passkey: 123456)
            let result = try await central.pair(Self.passkey, user: user)
            #expect(result.paired && result.bonded == true && result.trusted)
            #expect(user.heard.withLock { $0 } == ["passkey of \(Self.passkey)?"])
            let connection = try await central.connect(to: Self.passkey)
            await connection.disconnect()
        }
    }

    @Test("a wrong passkey fails with AuthenticationFailed, is not retried, and leaves the device unpaired")
    func passkeyWrong() async throws {
        try await Self.withCentral { central, messages in
            let user = ScriptedPairingUser(passkey: 123457)
            let error = await Self.failure { () async throws(DeviceError) in
                _ = try await central.pair(Self.passkey, user: user)
            }
            #expect(error?.code == .authenticationFailed)
            #expect(
                error?.message.contains("org.bluez.Error.AuthenticationFailed") == true, "\(String(describing: error))")
            #expect(user.heard.withLock { $0 }.count == 1)
            #expect(!messages.withLock { $0 }.contains { $0.contains("retry") })
            // not paired: the right passkey then pairs it for the first time
            let right = try await central.pair(Self.passkey, user: ScriptedPairingUser(passkey: 123456))
            #expect(right.paired && !right.wasPaired)
        }
    }

    @Test("a passkey the hub shows is shown to the person; typed wrong on the device, the pairing fails")
    func passkeyDisplayed() async throws {
        try await Self.withCentral { central, _ in
            let user = ScriptedPairingUser()
            let result = try await central.pair(Self.display, user: user)
            #expect(result.paired)
            #expect(user.heard.withLock { $0 } == ["show 654321 on \(Self.display)"])
            let mistyped = ScriptedPairingUser()
            let error = await Self.failure { () async throws(DeviceError) in
                _ = try await central.pair(Self.displayMistyped, user: mistyped)
            }
            #expect(error?.code == .authenticationFailed)
            #expect(mistyped.heard.withLock { $0 } == ["show 654321 on \(Self.displayMistyped)"])
        }
    }

    @Test("numeric comparison: declined fails naming the decline, accepted pairs")
    func confirmation() async throws {
        try await Self.withCentral { central, _ in
            let declining = ScriptedPairingUser(confirms: false)
            let error = await Self.failure { () async throws(DeviceError) in
                _ = try await central.pair(Self.confirm, user: declining)
            }
            #expect(error?.code == .authenticationFailed)
            #expect(error?.message.contains("declined") == true, "\(String(describing: error))")
            #expect(declining.heard.withLock { $0 } == ["confirm 024680 on \(Self.confirm)?"])
            let accepting = ScriptedPairingUser(confirms: true)
            let result = try await central.pair(Self.confirm, user: accepting)
            #expect(result.paired)
        }
    }

    @Test("a first attempt aborted by the controller is retried, and the retry logged, for Pair and for Connect")
    func abortedFirstAttempt() async throws {
        try await Self.withCentral { central, messages in
            let result = try await central.pair(Self.abortsPairing, user: ScriptedPairingUser())
            #expect(result.paired)
            let connection = try await central.connect(to: Self.abortsConnection)
            await connection.disconnect()
            let retries = messages.withLock { $0 }.filter { $0.contains("retry 1 of 3") }
            #expect(retries.count == 2, "\(messages.withLock { $0 })")
            #expect(retries.allSatisfy { $0.contains("le-connection-abort-by-local") })
            #expect(retries.first?.contains("pairing with \(Self.abortsPairing)") == true)
            #expect(retries.last?.contains("connecting to \(Self.abortsConnection)") == true)
        }
    }

    @Test("a connection failure that is not passing is not retried")
    func notRetried() async throws {
        try await Self.withCentral { central, messages in
            let error = await Self.failure { () async throws(DeviceError) in
                _ = try await central.connect(to: Self.failsConnection)
            }
            #expect(error?.code == .connectionFailed)
            #expect(!messages.withLock { $0 }.contains { $0.contains("retry") })
            // the device fails once only: a retry would have connected
            let connection = try await central.connect(to: Self.failsConnection)
            await connection.disconnect()
        }
    }

    @Test("BlueZ cancelling the pairing (CancelPairing) cancels the question being asked")
    func cancelled() async throws {
        try await BlueZBench.with(fleet: Self.fleet) { bench in
            let user = ScriptedPairingUser(waitsForCancel: true)
            let pairing = Task {
                await Self.failure { () async throws(DeviceError) in
                    _ = try await bench.central.pair(Self.passkey, user: user)
                }
            }
            while !user.heard.withLock({ $0.contains("passkey of \(Self.passkey)?") }) {
                try await Task.sleep(for: .milliseconds(20))
            }
            let other = try await DBusConnection.open(.address(bench.bus.address))
            _ = try await other.call(
                BlueZNames.service, BlueZNames.devicePath(Self.passkey, adapter: SimulatedBlueZ.adapterPath),
                BlueZNames.device, "CancelPairing")
            other.close()
            let error = await pairing.value
            #expect(error?.code == .authenticationFailed)
            #expect(error?.message.contains("AuthenticationCanceled") == true, "\(String(describing: error))")
            #expect(user.heard.withLock { $0 }.last == "cancelled")
        }
    }

    @Test("the fleet's pairing field is read, checked and written back")
    func fleetField() throws {
        let json = #"""
            {"devices": [{"model": "HRS", "mac": "004D3208E002", "abortFirstConnection": true,
              "pairing": {"method": "display", "passkey": 42, "typed": 41, "required": true}}]}
            """#
        let fleet = try Fleet(json: Array(json.utf8))
        #expect(try Fleet(json: fleet.json) == fleet)
        let world = try SimulatedWorld(fleet: fleet, start: Timestamp(parsing: "2026-11-20 08:00:00")!)
        let device = try #require(world.configurations.first)
        #expect(device.pairing?.method == .display && device.pairing?.passkey == 42 && device.pairing?.typed == 41)
        #expect(device.pairing?.required == true && device.abortFirstConnection && !device.paired)
        for (bad, message) in [
            (#"{"method": "bluetooth"}"#, "devices[0].pairing.method must be justWorks"),
            (#"{"method": "passkey", "passkey": 1000000}"#, "devices[0].pairing.passkey must be from 0 to 999999"),
            (#"{"method": "confirm", "typed": 1}"#, "devices[0].pairing.typed is for the display method only"),
            (#"{"method": "pinCode", "pinCode": ""}"#, "devices[0].pairing.pinCode must be 1–16"),
        ] {
            let text = #"{"devices": [{"model": "HRS", "mac": "004D3208E002", "pairing": "# + bad + "}]}"
            #expect(throws: FleetError.self) {
                _ = try SimulatedWorld(
                    fleet: try Fleet(json: Array(text.utf8)), start: Timestamp(parsing: "2026-11-20 08:00:00")!)
            }
            do {
                _ = try SimulatedWorld(
                    fleet: try Fleet(json: Array(text.utf8)), start: Timestamp(parsing: "2026-11-20 08:00:00")!)
            } catch {
                #expect("\(error)".contains(message), "\(error)")
            }
        }
    }
}
