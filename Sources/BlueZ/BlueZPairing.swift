import DBus
import Locking
import Logging
import VitalCore
import VitalDevices

/// The person who answers a pairing dialogue: what BlueZ's agent shows and asks while a device pairs.
///
/// ``BlueZCentral/pair(_:user:timeout:)`` calls it from the pairing agent it registers; `vitalbridge pair`
/// implements it with the terminal, a test with scripted answers. A question that is cancelled (BlueZ's
/// `Agent1.Cancel`: the pairing was given up) cancels the task that asks it: an implementation that waits for a
/// person checks `Task.isCancelled`.
public protocol PairingUser: Sendable {
    /// Shows `passkey` (six digits), which the person types on `device` (`Agent1.DisplayPasskey`); `entered` is how
    /// many digits the device reported typed so far.
    func show(passkey: UInt32, entered: Int, for device: MACAddress) async
    /// Shows the PIN code `pinCode`, which the person types on `device` (`Agent1.DisplayPinCode`).
    func show(pinCode: String, for device: MACAddress) async
    /// The passkey `device` shows, as the person types it (`Agent1.RequestPasskey`); `nil` declines.
    func passkey(for device: MACAddress) async -> UInt32?
    /// The PIN code of `device`, as the person types it (`Agent1.RequestPinCode`); `nil` declines.
    func pinCode(for device: MACAddress) async -> String?
    /// Whether `device` shows `passkey` too (`Agent1.RequestConfirmation`, numeric comparison).
    func confirm(passkey: UInt32, for device: MACAddress) async -> Bool
}

/// Six-digit passkeys as people read them: `012345`.
public enum PairingPasskey {
    /// The largest passkey, `999999`.
    public static let maximum: UInt32 = 999_999

    /// `passkey` as six digits, with leading zeros.
    public static func text(_ passkey: UInt32) -> String {
        let digits = String(passkey)
        return String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }

    /// The passkey `text` writes: one to six decimal digits (surrounding spaces ignored); `nil` for anything else.
    public static func parse(_ text: some StringProtocol) -> UInt32? {
        let digits = text.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()
        guard (1...6).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return UInt32(String(digits))
    }
}

/// What BlueZ reports of a device once ``BlueZCentral/pair(_:user:timeout:)`` is done.
public struct PairingResult: Hashable, Sendable {
    public let device: MACAddress
    /// `Paired`: always `true` in a result (a device left unpaired is an error).
    public let paired: Bool
    /// `Bonded`: whether the keys were stored, so that the next connection needs no pairing; `nil` for a BlueZ
    /// older than 5.59, which has no such property.
    public let bonded: Bool?
    /// `Trusted`: whether BlueZ lets the device connect without asking.
    public let trusted: Bool
    /// Whether the device was paired already, so that BlueZ was not asked to pair it again.
    public let wasPaired: Bool

    public init(device: MACAddress, paired: Bool, bonded: Bool?, trusted: Bool, wasPaired: Bool) {
        self.device = device
        self.paired = paired
        self.bonded = bonded
        self.trusted = trusted
        self.wasPaired = wasPaired
    }

    /// The one line `vitalbridge pair` prints: `paired 00:4D:32:08:D3:10 (already paired, bonded, trusted)`.
    public var summary: String {
        var notes: [String] = []
        if wasPaired { notes.append("already paired") }
        if let bonded { notes.append(bonded ? "bonded" : "not bonded") }
        notes.append(trusted ? "trusted" : "not trusted")
        return "paired \(BlueZNames.address(device)) (\(notes.joined(separator: ", ")))"
    }
}

extension BlueZCentral {
    /// Pairs the device `mac` and marks it trusted, asking `user` whatever the device's pairing method needs.
    ///
    /// For the duration, a pairing agent (`org.bluez.Agent1`, capability `KeyboardDisplay`) of this process is
    /// registered with `AgentManager1.RegisterAgent` and made the default one (`RequestDefaultAgent`); it is
    /// unregistered at the end whatever happened. It answers BlueZ's requests for `mac` only, and rejects any other:
    ///
    /// | BlueZ asks | the agent |
    /// | --- | --- |
    /// | `RequestAuthorization`, `AuthorizeService` (Just Works) | accepts: the person asked to pair this device |
    /// | `DisplayPasskey`, `DisplayPinCode` | ``PairingUser/show(passkey:entered:for:)``, ``PairingUser/show(pinCode:for:)`` |
    /// | `RequestPasskey`, `RequestPinCode` | ``PairingUser/passkey(for:)``, ``PairingUser/pinCode(for:)`` |
    /// | `RequestConfirmation` | ``PairingUser/confirm(passkey:for:)`` |
    /// | `Cancel` | cancels the question being asked |
    ///
    /// A device BlueZ does not know yet is listened for first (for ``scanDuration``). `Device1.Pair` may take
    /// `timeout` (BlueZ gives the person 60 s per question); it is tried again after a passing error, as the
    /// central's ``BlueZRetryPolicy`` says. A device paired already is not paired again. Then `Trusted` is set, and
    /// `Paired`, `Bonded` and `Trusted` are read back.
    ///
    /// - Throws: `DeviceError` naming what went wrong: `notFound` (no adapter, a device BlueZ does not hear),
    ///   `connectionFailed` (the bus cannot be reached, the device does not answer), `authenticationFailed` (a wrong
    ///   passkey, a declined or cancelled dialogue), `busy`, `transportFailed`.
    public func pair(_ mac: MACAddress, user: any PairingUser, timeout: Duration = .seconds(120))
        async throws(DeviceError) -> PairingResult
    {
        try await client.pair(mac, user: user, timeout: timeout, scanDuration: scanDuration)
    }
}

extension BlueZClient {
    func pair(_ mac: MACAddress, user: any PairingUser, timeout: Duration, scanDuration: Duration)
        async throws(DeviceError) -> PairingResult
    {
        let bus = try await started()
        let adapter = try await adapterPath()
        let path = BlueZNames.devicePath(mac, adapter: adapter)
        try await heard(mac, at: path, scanDuration: scanDuration)
        let agent = BlueZAgent(path: nextAgentPath(), device: path, mac: mac, user: user, logger: logger)
        try await agent.register(on: bus)
        let result: Result<PairingResult, DeviceError>
        do {
            result = .success(try await pairWithAgent(mac, path: path, bus: bus, agent: agent, timeout: timeout))
        } catch {
            result = .failure(error)
        }
        await agent.unregister(from: bus)
        return try result.get()
    }

    private func pairWithAgent(
        _ mac: MACAddress, path: String, bus: DBusConnection, agent: BlueZAgent, timeout: Duration
    ) async throws(DeviceError) -> PairingResult {
        let wasPaired = objects[path]?[BlueZNames.device]?["Paired"]?.bool == true
        if !wasPaired {
            do {
                _ = try await retrying("pairing with \(mac)") { () async throws(DBusError) in
                    try await bus.call(BlueZNames.service, path, BlueZNames.device, "Pair", timeout: timeout)
                }
            } catch  where error.name == "org.bluez.Error.AlreadyExists" {
                // paired meanwhile (by BlueZ itself, or another program): what counts is what BlueZ reports below
            } catch {
                // a Pair given up still runs in BlueZ: cancelled there too
                if error.name == DBusError.cancelled { await bus.undo(path, BlueZNames.device, "CancelPairing") }
                throw Self.pairingError(error, mac, declined: agent.declined)
            }
        }
        do {
            _ = try await bus.call(
                BlueZNames.service, path, BlueZNames.properties, "Set",
                [.string(BlueZNames.device), .string("Trusted"), .variant(.boolean(true))])
        } catch {
            throw Self.deviceError(error, doing: "marking \(mac) trusted")
        }
        let properties: [String: DBusValue]
        do {
            properties = try await deviceProperties(path)
        } catch {
            throw Self.deviceError(error, doing: "reading the state of \(mac)")
        }
        guard properties["Paired"]?.bool == true else {
            throw DeviceError(.authenticationFailed, message: "BlueZ answered the pairing, but \(mac) is not paired")
        }
        return PairingResult(
            device: mac, paired: true, bonded: properties["Bonded"]?.bool,
            trusted: properties["Trusted"]?.bool ?? false, wasPaired: wasPaired)
    }

    /// The `DeviceError` for a failed `Device1.Pair`, with what it means for the person; `declined` when the agent
    /// declined a question (the person said no, or did not answer).
    static func pairingError(_ error: DBusError, _ mac: MACAddress, declined: Bool) -> DeviceError {
        let hint: String? =
            switch error.name {
            case "org.bluez.Error.AuthenticationFailed" where declined: "the pairing was declined here"
            case "org.bluez.Error.AuthenticationFailed": "a wrong passkey or PIN, or the device refused"
            case "org.bluez.Error.AuthenticationRejected": "the device or the person rejected the pairing"
            case "org.bluez.Error.AuthenticationCanceled": "the pairing was cancelled"
            case "org.bluez.Error.AuthenticationTimeout": "nobody answered in time"
            case "org.bluez.Error.ConnectionAttemptFailed": "the device did not answer: is it on and in range?"
            default: nil
            }
        let mapped = deviceError(error, doing: "pairing with \(mac)", connecting: true)
        return DeviceError(mapped.code, message: mapped.message + (hint.map { " (\($0))" } ?? ""))
    }
}

/// A pairing agent (`org.bluez.Agent1`) served on the central's bus connection while one device pairs.
///
/// BlueZ calls it on this connection's unique name. `Cancel` and `Release` are answered on the bus's thread at
/// once; the other requests are answered one at a time by a task, which a `Cancel` cancels.
final class BlueZAgent: Sendable {
    let path: String
    /// The object path of the device being paired: requests about any other are rejected.
    let device: String
    let mac: MACAddress
    let user: any PairingUser
    let logger: Logger
    private let state = Locked(State())

    private struct State {
        var serving: DBusSubscription?
        /// The requests' stream, ended when the agent stops.
        var arrived: AsyncStream<DBusMethodCall>.Continuation?
        var handling: Task<Void, Never>?
        /// The question being asked, which `Cancel` cancels.
        var asking: Task<Void, Never>?
        /// Requests received, and requests whose task has started: a `Cancel` between the two is for the request
        /// about to be asked.
        var received = 0
        var started = 0
        var cancelNext = false
        var declined = false
    }

    init(path: String, device: String, mac: MACAddress, user: any PairingUser, logger: Logger) {
        self.path = path
        self.device = device
        self.mac = mac
        self.user = user
        self.logger = logger
    }

    /// Whether the agent declined one of BlueZ's questions.
    var declined: Bool { state.withLock { $0.declined } }

    /// The capability the agent registers with: it can show a passkey and read one typed.
    static let capability = "KeyboardDisplay"

    /// Serves the agent's object on `bus` and registers it with BlueZ as the default agent.
    func register(on bus: DBusConnection) async throws(DeviceError) {
        let (calls, arrived) = AsyncStream.makeStream(of: DBusMethodCall.self, bufferingPolicy: .unbounded)
        let serving: DBusSubscription
        do {
            serving = try await bus.serve(path) { [weak self] call in
                guard let self else { return call.fail(Self.rejected("the pairing is over")) }
                switch (call.message.interface, call.message.member) {
                case (BlueZNames.agent, "Cancel"):
                    self.logger.info("BlueZ cancelled the pairing request to the agent")
                    self.state.withLock { state in
                        if let asking = state.asking {
                            asking.cancel()
                        } else if state.received > state.started {
                            state.cancelNext = true
                        }
                    }
                    call.reply()
                case (BlueZNames.agent, "Release"):
                    call.reply()
                default:
                    self.state.withLock { $0.received += 1 }
                    arrived.yield(call)
                }
            }
        } catch {
            throw DeviceError(.transportFailed, message: "serving the pairing agent: \(error)")
        }
        // a task started here keeps the caller's executor (the CLI's main thread)
        let handling = Task { for await call in calls { await self.handle(call) } }
        state.withLock {
            $0.serving = serving
            $0.arrived = arrived
            $0.handling = handling
        }
        do {
            _ = try await bus.call(
                BlueZNames.service, BlueZNames.managerPath, BlueZNames.agentManager, "RegisterAgent",
                [.objectPath(path), .string(Self.capability)])
        } catch {
            await stop()
            throw BlueZClient.deviceError(error, doing: "registering the pairing agent with BlueZ")
        }
        do {
            _ = try await bus.call(
                BlueZNames.service, BlueZNames.managerPath, BlueZNames.agentManager, "RequestDefaultAgent",
                [.objectPath(path)])
        } catch {
            // the agent still answers this client's own Pair (BlueZ asks the agent of the caller first)
            logger.notice("BlueZ did not make the pairing agent the default one: \(error)")
        }
    }

    /// Stops serving: the question being asked is cancelled, and the requests still to come are not answered.
    private func stop() async {
        let (serving, arrived, asking, handling) = state.withLock { ($0.serving, $0.arrived, $0.asking, $0.handling) }
        arrived?.finish()
        asking?.cancel()
        serving?.cancel()
        await handling?.value
    }

    /// Unregisters the agent from BlueZ and stops serving it; a failure is logged (BlueZ forgets the agent anyway
    /// when this process leaves the bus).
    func unregister(from bus: DBusConnection) async {
        if let error = await bus.undo(
            BlueZNames.managerPath, BlueZNames.agentManager, "UnregisterAgent", [.objectPath(path)])
        {
            logger.notice("cannot unregister the pairing agent from BlueZ: \(error)")
        }
        await stop()
    }

    static func rejected(_ message: String) -> DBusError {
        DBusError(name: "org.bluez.Error.Rejected", message: message)
    }
    static let canceled = DBusError(name: "org.bluez.Error.Canceled", message: "the question was cancelled")

    /// Answers one request, in a task that `Cancel` cancels.
    private func handle(_ call: DBusMethodCall) async {
        let asking = Task { await self.answer(call) }
        state.withLock { state in
            state.started += 1
            state.asking = asking
            if state.cancelNext {
                state.cancelNext = false
                asking.cancel()
            }
        }
        await asking.value
        state.withLock { $0.asking = nil }
    }

    private func answer(_ call: DBusMethodCall) async {
        let message = call.message
        let arguments = message.arguments
        guard message.interface == BlueZNames.agent else {
            return call.fail(
                DBusError(name: DBusError.unknownMethod, message: "the agent has no interface \(message.interface)"))
        }
        guard arguments.first?.string == device else {
            logger.notice("the pairing agent rejected \(message.member) for another device")
            return call.fail(Self.rejected("the agent answers for \(mac) only"))
        }
        switch (message.member, arguments.count) {
        case ("RequestAuthorization", 1), ("AuthorizeService", 2):
            // Just Works: the person asked to pair this very device
            call.reply()
        case ("DisplayPasskey", 3):
            guard case .uint32(let passkey) = arguments[1] else { return invalid(call) }
            await user.show(passkey: passkey, entered: arguments[2].integer ?? 0, for: mac)
            call.reply()
        case ("DisplayPinCode", 2):
            guard let pinCode = arguments[1].string else { return invalid(call) }
            await user.show(pinCode: pinCode, for: mac)
            call.reply()
        case ("RequestPasskey", 1):
            let passkey = await user.passkey(for: mac)
            guard let passkey, passkey <= PairingPasskey.maximum else { return decline(call) }
            call.reply([.uint32(passkey)])
        case ("RequestPinCode", 1):
            let pinCode = await user.pinCode(for: mac)
            guard let pinCode, (1...16).contains(pinCode.utf8.count) else { return decline(call) }
            call.reply([.string(pinCode)])
        case ("RequestConfirmation", 2):
            guard case .uint32(let passkey) = arguments[1] else { return invalid(call) }
            guard await user.confirm(passkey: passkey, for: mac) else { return decline(call) }
            call.reply()
        default:
            call.fail(
                DBusError(name: DBusError.unknownMethod, message: "the agent has no method \(message.member)"))
        }
    }

    private func invalid(_ call: DBusMethodCall) {
        call.fail(DBusError(name: DBusError.invalidArgs, message: "unexpected arguments to \(call.message.member)"))
    }

    /// The person declined, or the question was cancelled.
    private func decline(_ call: DBusMethodCall) {
        state.withLock { $0.declined = true }
        call.fail(Task.isCancelled ? Self.canceled : Self.rejected("declined by the user"))
    }
}
