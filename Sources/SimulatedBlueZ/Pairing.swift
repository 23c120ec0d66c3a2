import BlueZ
import DBus
import VitalCore
import VitalSimulation

/// A pairing agent a client registered: where BlueZ calls it.
struct RegisteredAgent {
    /// The unique bus name of the client that serves it.
    let owner: String
    let path: String
    let capability: String
}

/// A pairing under way: the agent it asks, and whether the client cancelled it.
struct PairingDialogue {
    let agent: RegisteredAgent?
    var cancelled = false
}

extension SimulatedBlueZ {
    /// The capabilities `RegisterAgent` accepts (empty is `KeyboardDisplay`).
    static let agentCapabilities: Set<String> = [
        "", "DisplayOnly", "DisplayYesNo", "KeyboardOnly", "NoInputNoOutput", "KeyboardDisplay",
    ]

    /// How long BlueZ waits for an agent's answer: 60 s, as bluetoothd does.
    static let agentTimeout: Duration = .seconds(60)

    // MARK: org.bluez.AgentManager1

    func agentManager(_ call: DBusMethodCall) throws(DBusError) {
        let message = call.message
        let sender = message.sender
        switch message.member {
        case "RegisterAgent":
            guard message.arguments.count == 2, case .objectPath(let path) = message.arguments[0],
                let capability = message.arguments[1].string
            else { throw bluezError("InvalidArguments", "Invalid arguments in method call") }
            guard Self.agentCapabilities.contains(capability) else {
                throw bluezError("InvalidArguments", "Invalid arguments in method call")
            }
            guard agents[sender] == nil else { throw bluezError("AlreadyExists", "Already Exists") }
            agents[sender] = RegisteredAgent(owner: sender, path: path, capability: capability)
            call.reply()
        case "UnregisterAgent":
            guard message.arguments.count == 1, case .objectPath(let path) = message.arguments[0] else {
                throw bluezError("InvalidArguments", "Invalid arguments in method call")
            }
            guard let agent = agents[sender], agent.path == path else {
                throw bluezError("DoesNotExist", "Does Not Exist")
            }
            agentLeft(sender)
            call.reply()
            // bluetoothd tells an agent it unregisters that it is released (a call it wants no answer to)
            let bus = bus
            Task { _ = try? await bus.call(agent.owner, agent.path, BlueZNames.agent, "Release", timeout: .seconds(5)) }
        case "RequestDefaultAgent":
            guard message.arguments.count == 1, case .objectPath(let path) = message.arguments[0] else {
                throw bluezError("InvalidArguments", "Invalid arguments in method call")
            }
            guard agents[sender]?.path == path else { throw bluezError("DoesNotExist", "No such agent") }
            defaultAgent = sender
            call.reply()
        default:
            throw DBusError(name: DBusError.unknownMethod, message: "Unknown method \(message.member)")
        }
    }

    /// The agent of client `name` is gone: unregistered, or its client left the bus.
    func agentLeft(_ name: String) {
        agents[name] = nil
        if defaultAgent == name { defaultAgent = nil }
    }

    // MARK: Pairing

    func configuration(of mac: MACAddress) -> SimulatedDeviceConfiguration? {
        world.configurations.first { $0.mac == mac }
    }

    /// Fails the first attempt to reach a device the fleet says aborts it, as a controller that gave up on the
    /// link does.
    func abortFirstAttempt(_ mac: MACAddress) throws(DBusError) {
        guard configuration(of: mac)?.abortFirstConnection == true, aborted.insert(mac).inserted else { return }
        throw bluezError("Failed", "le-connection-abort-by-local")
    }

    /// `Device1.Pair`: answered once the dialogue the device's pairing method needs is over, by a task of its own,
    /// so that the service answers other calls meanwhile. The agent asked is the caller's, else the default one.
    func pair(_ call: DBusMethodCall, _ device: ServedDevice) throws(DBusError) {
        guard objects[device.path]?[BlueZNames.device]?["Paired"] != .boolean(true) else {
            throw bluezError("AlreadyExists", "Already Exists")
        }
        guard device.pairing == nil else { throw bluezError("InProgress", "In Progress") }
        guard let configuration = configuration(of: device.mac), configuration.isInRange(at: world.clock.wallTime)
        else {
            throw bluezError("ConnectionAttemptFailed", "Page Timeout")
        }
        try abortFirstAttempt(device.mac)
        let agent = agents[call.message.sender] ?? defaultAgent.flatMap { agents[$0] }
        devices[device.path]?.pairing = PairingDialogue(agent: agent)
        let script = configuration.pairing
        Task {
            let failure = await self.dialogue(script, device: device.path, agent: agent)
            self.paired(call, device.path, failure: failure)
        }
    }

    /// The dialogue is over: `Pair` is answered, and the device is paired and bonded unless it `failure`.
    private func paired(_ call: DBusMethodCall, _ path: String, failure: DBusError?) {
        let cancelled = devices[path]?.pairing?.cancelled == true
        devices[path]?.pairing = nil
        if cancelled {
            call.fail(bluezError("AuthenticationCanceled", "Authentication Canceled"))
        } else if let failure {
            call.fail(failure)
        } else {
            set(path, BlueZNames.device, [("Paired", .boolean(true)), ("Bonded", .boolean(true))])
            call.reply()
        }
    }

    /// `Device1.CancelPairing`: the agent is told (`Agent1.Cancel`), and `Pair` fails with `AuthenticationCanceled`.
    func cancelPairing(_ device: ServedDevice) throws(DBusError) {
        guard let dialogue = device.pairing else { throw bluezError("DoesNotExist", "Does Not Exist") }
        devices[device.path]?.pairing?.cancelled = true
        if let agent = dialogue.agent {
            let bus = bus
            Task { _ = try? await bus.call(agent.owner, agent.path, BlueZNames.agent, "Cancel", timeout: .seconds(5)) }
        }
    }

    /// Runs the dialogue of `script` with `agent` for the device at `path`; the error `Pair` answers, or `nil` when
    /// the device paired.
    func dialogue(_ script: SimulatedPairing?, device path: String, agent: RegisteredAgent?) async -> DBusError? {
        let failed = bluezError("AuthenticationFailed", "Authentication Failed")
        guard let script, script.method != .justWorks else { return nil }
        // without an agent BlueZ can neither show nor ask anything: the device's method fails
        guard let agent else { return failed }
        let device = DBusValue.objectPath(path)
        switch script.method {
        case .justWorks:
            return nil
        case .passkey:
            switch await ask(agent, "RequestPasskey", [device]) {
            case .success(let values):
                guard case .uint32(let typed)? = values.first else { return failed }
                return typed == script.passkey ? nil : failed
            case .failure(let error): return error
            }
        case .display:
            if case .failure(let error) = await ask(
                agent, "DisplayPasskey", [device, .uint32(script.passkey), .uint16(0)])
            {
                return error
            }
            // the device's user types what the fleet says on the device's keypad
            return script.typed == script.passkey ? nil : failed
        case .confirm:
            if case .failure(let error) = await ask(agent, "RequestConfirmation", [device, .uint32(script.passkey)]) {
                return error
            }
            return nil
        case .pinCode:
            switch await ask(agent, "RequestPinCode", [device]) {
            case .success(let values): return values.first?.string == script.pinCode ? nil : failed
            case .failure(let error): return error
            }
        }
    }

    /// Calls `member` of the agent; an error answer becomes the error `Pair` answers, as bluetoothd's: the agent's
    /// refusal fails the authentication, no answer in time is a timeout.
    private func ask(_ agent: RegisteredAgent, _ member: String, _ arguments: [DBusValue]) async -> Result<
        [DBusValue], DBusError
    > {
        do {
            return .success(
                try await bus.call(
                    agent.owner, agent.path, BlueZNames.agent, member, arguments, timeout: Self.agentTimeout))
        } catch {
            if error.name == DBusError.noReply {
                return .failure(bluezError("AuthenticationTimeout", "Authentication Timeout"))
            }
            return .failure(bluezError("AuthenticationFailed", "Authentication Failed"))
        }
    }
}
