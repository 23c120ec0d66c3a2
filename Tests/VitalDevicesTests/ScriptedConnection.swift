import HealthGATT
import Locking
import Testing
import VitalCore
import VitalDevices

/// One step of a peripheral's script, in the order the link carries them.
enum ScriptStep: Sendable {
    /// The driver's next write must be these bytes to this characteristic.
    case write(CharacteristicID, [UInt8])
    /// The driver's next write must be these bytes to this characteristic, and fails with the error.
    case failWrite(CharacteristicID, [UInt8], DeviceError)
    /// The device notifies a value.
    case notify(CharacteristicID, [UInt8])
    /// The device indicates a value; it sends nothing more until the driver confirms it.
    case indicate(CharacteristicID, [UInt8])
    /// The device sends nothing within the driver's wait: `nextEvent(within:)` answers `nil`.
    case quiet
    /// The link drops: this wait and every later operation throw ``DeviceError/Code/disconnected``.
    case disconnect
    /// The task running the driver is cancelled when the driver next waits for an event; the script goes on.
    case cancel
}

/// What a driver did on the link, in order.
enum LinkOperation: Hashable, Sendable {
    case read(CharacteristicID)
    case write(CharacteristicID, [UInt8])
    case subscribe(CharacteristicID)
    /// The confirmation of the indication with this token (tokens count from 1 in script order).
    case confirm(UInt64)
    case disconnect
}

/// A test-only `BluetoothConnection` that replays a script and records what the driver did.
///
/// Writes must come exactly as the script says, in its order; waits get the script's notifications and
/// indications. A driver that waits while an indication is unconfirmed, waits where the script expects a write,
/// writes what the script does not expect or runs past the script's end is a test failure (recorded as an issue)
/// and gets an error, so a test never hangs.
final class ScriptedConnection: BluetoothConnection, Sendable {
    let peripheral: MACAddress
    private let negotiatedMTU: Int
    /// The characteristics of the device's GATT table.
    private let table: [CharacteristicID]
    /// What reads answer.
    private let values: [CharacteristicID: [UInt8]]
    private let state: Locked<State>

    private struct State {
        var steps: [ScriptStep]
        var position = 0
        var log: [LinkOperation] = []
        var unconfirmed: UInt64?
        var nextToken: UInt64 = 1
        var dropped = false
    }

    init(
        _ steps: [ScriptStep], offering table: [CharacteristicID], reads values: [CharacteristicID: [UInt8]] = [:],
        mtu: Int = 247, peripheral: MACAddress = MACAddress("004D3208D308")!
    ) {
        self.peripheral = peripheral
        self.negotiatedMTU = mtu
        self.table = table
        self.values = values
        self.state = Locked(State(steps: steps))
    }

    /// Everything the driver did, in order.
    var operations: [LinkOperation] { state.withLock { $0.log } }
    /// The driver's writes, in order.
    var writes: [LinkOperation] { operations.filter { if case .write = $0 { true } else { false } } }
    /// The tokens of the indications the driver confirmed, in order.
    var confirmations: [UInt64] { operations.compactMap { if case .confirm(let token) = $0 { token } else { nil } } }
    /// The characteristics the driver subscribed to, in order.
    var subscriptions: [CharacteristicID] {
        operations.compactMap { if case .subscribe(let id) = $0 { id } else { nil } }
    }
    /// How many steps of the script the driver did not reach.
    var unplayed: Int { state.withLock { $0.steps.count - $0.position } }

    var mtu: Int { get async { negotiatedMTU } }

    func read(_ characteristic: CharacteristicID) async throws(DeviceError) -> [UInt8] {
        try state.withLock { state throws(DeviceError) in
            try Self.checkLink(state)
            state.log.append(.read(characteristic))
        }
        guard let value = values[characteristic] else {
            throw DeviceError(.protocolViolation, message: "\(characteristic) cannot be read")
        }
        return value
    }

    func write(_ characteristic: CharacteristicID, _ value: [UInt8]) async throws(DeviceError) {
        let outcome: Result<Void, DeviceError>? = try state.withLock { state throws(DeviceError) in
            try Self.checkLink(state)
            state.log.append(.write(characteristic, value))
            guard state.position < state.steps.count else { return nil }
            switch state.steps[state.position] {
            case .write(characteristic, value):
                state.position += 1
                return .success(())
            case .failWrite(characteristic, value, let error):
                state.position += 1
                return .failure(error)
            default:
                return nil
            }
        }
        switch outcome {
        case .success: return
        case .failure(let error): throw error
        case nil:
            let expected = state.withLock { $0.position < $0.steps.count ? "\($0.steps[$0.position])" : "the end" }
            Issue.record("unscripted write \(value.hex) to \(characteristic); the script expects \(expected)")
            throw DeviceError(.protocolViolation, message: "an unscripted write")
        }
    }

    func subscribe(_ characteristic: CharacteristicID) async throws(DeviceError) {
        try state.withLock { state throws(DeviceError) in
            try Self.checkLink(state)
            guard table.contains(characteristic) else {
                throw DeviceError(.unsupported, message: "no characteristic \(characteristic)")
            }
            state.log.append(.subscribe(characteristic))
        }
    }

    func nextEvent() async throws(DeviceError) -> GATTEvent {
        guard let event = try next(waiting: false) else {
            preconditionFailure("a wait without a deadline ends with an event or an error")
        }
        return event
    }

    func nextEvent(within timeout: Duration) async throws(DeviceError) -> GATTEvent? {
        try next(waiting: true)
    }

    func offers(_ characteristic: CharacteristicID) async -> Bool { table.contains(characteristic) }

    func confirm(_ token: IndicationToken) async throws(DeviceError) {
        let matched = try state.withLock { state throws(DeviceError) in
            try Self.checkLink(state)
            state.log.append(.confirm(token.id))
            guard state.unconfirmed == token.id else { return false }
            state.unconfirmed = nil
            return true
        }
        if !matched {
            Issue.record("confirmed indication \(token.id), which is not waiting for a confirmation")
            throw DeviceError(.protocolViolation, message: "no such indication")
        }
    }

    func disconnect() async {
        state.withLock {
            $0.log.append(.disconnect)
            $0.dropped = true
        }
    }

    private static func checkLink(_ state: State) throws(DeviceError) {
        if state.dropped { throw DeviceError(.disconnected, message: "the scripted link is down") }
    }

    /// What a wait gets from the script.
    private enum Outcome {
        case event(GATTEvent)
        case quiet
        case cancel
        case drop
        case misuse(String)
    }

    /// The script's next event; `waiting` is whether the driver gave a timeout.
    private func next(waiting: Bool) throws(DeviceError) -> GATTEvent? {
        while true {
            let outcome = try state.withLock { state throws(DeviceError) -> Outcome in
                try Self.checkLink(state)
                if let token = state.unconfirmed {
                    return .misuse("waited for an event while indication \(token) is unconfirmed")
                }
                guard state.position < state.steps.count else { return .misuse("waited past the script's end") }
                let step = state.steps[state.position]
                switch step {
                case .notify(let id, let value):
                    state.position += 1
                    return .event(.notification(id, value))
                case .indicate(let id, let value):
                    state.position += 1
                    let token = state.nextToken
                    state.nextToken += 1
                    state.unconfirmed = token
                    return .event(.indication(id, value, IndicationToken(id: token)))
                case .quiet:
                    state.position += 1
                    return .quiet
                case .disconnect:
                    state.position += 1
                    state.dropped = true
                    return .drop
                case .cancel:
                    state.position += 1
                    return .cancel
                case .write, .failWrite:
                    return .misuse("waited for an event where the script expects \(step)")
                }
            }
            switch outcome {
            case .event(let event): return event
            case .quiet:
                guard waiting else {
                    Issue.record("the script is quiet where the driver waits without a timeout")
                    throw DeviceError(.timedOut, message: "nothing came")
                }
                return nil
            case .cancel:
                withUnsafeCurrentTask { $0?.cancel() }
            case .drop:
                throw DeviceError(.disconnected, message: "the scripted link dropped")
            case .misuse(let message):
                Issue.record("\(message)")
                throw DeviceError(.timedOut, message: message)
            }
        }
    }
}

extension [UInt8] {
    /// The bytes in hex, for messages.
    var hex: String { map { String($0, radix: 16) }.joined(separator: " ") }
}

/// A sink that keeps what it is given, in order, optionally refusing everything.
final class RecordingSink: RecordSink, Sendable {
    private let batches = Locked<[[DeviceRecord]]>([])
    private let items = Locked<[[BandItem]]>([])
    let refuses: Bool

    init(refuses: Bool = false) { self.refuses = refuses }

    func store(_ records: [DeviceRecord]) async throws {
        if refuses { throw Refusal() }
        batches.withLock { $0.append(records) }
    }

    func storeDayItems(_ batch: DayItemBatch) async throws {
        if refuses { throw Refusal() }
        let items = try batch.items.map { try BandItem(storedBytes: $0.bytes) }
        self.items.withLock { $0.append(items) }
    }

    /// The records stored, in order.
    var records: [DeviceRecord] { batches.withLock { $0.flatMap { $0 } } }
    /// The readings stored, in order.
    var readings: [Reading] { records.map(\.reading) }
    /// How many records each store call carried.
    var batchSizes: [Int] { batches.withLock { $0.map(\.count) } }
    /// The band items stored, by batch.
    var bandBatches: [[BandItem]] { items.withLock { $0 } }

    struct Refusal: Error {}
}

/// A UTC time of 2026-11-20 as a device sends it and as the driver reads it.
func time(_ hour: UInt8, _ minute: UInt8) -> (device: DateTime, host: Timestamp) {
    (
        DateTime(year: 2026, month: 11, day: 20, hours: hour, minutes: minute, seconds: 0),
        Timestamp(year: 2026, month: 11, day: 20, hour: Int(hour), minute: Int(minute), second: 0)!
    )
}
