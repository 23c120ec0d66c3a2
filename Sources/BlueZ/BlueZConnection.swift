import DBus
import Locking
import VitalCore
import VitalDevices

/// A link to one device through BlueZ.
final class BlueZConnection: BluetoothConnection, @unchecked Sendable {
    /// A characteristic of the device: its UUIDs and BlueZ's flags (`read`, `write`, `notify`, `indicate`, …).
    struct Characteristic: Sendable {
        let id: CharacteristicID
        let flags: Set<String>
    }

    let peripheral: MACAddress
    let path: String
    private let bus: DBusConnection
    /// By object path.
    private let characteristics: [String: Characteristic]
    private let negotiatedMTU: Int
    private let state = Locked(State())

    private typealias Waiting = CheckedContinuation<Result<GATTEvent?, DeviceError>, Never>

    private struct State {
        var events: [GATTEvent] = []
        var head = 0
        var waiting: Waiting?
        /// Which wait ``waiting`` is, so that a timer resumes only its own.
        var wait: UInt64 = 0
        /// The timer of a wait with a timeout: cancelled as soon as the wait ends otherwise.
        var timer: Task<Void, Never>?
        var ended: DeviceError?
        var subscribed: Set<String> = []
        var nextToken: UInt64 = 1

        /// The driver's wait, ended here: its timer is not needed any more.
        mutating func takeWaiting() -> Waiting? {
            timer?.cancel()
            timer = nil
            defer { waiting = nil }
            return waiting
        }
    }

    init(peripheral: MACAddress, path: String, bus: DBusConnection, characteristics: [String: Characteristic], mtu: Int)
    {
        self.peripheral = peripheral
        self.path = path
        self.bus = bus
        self.characteristics = characteristics
        negotiatedMTU = mtu
    }

    var mtu: Int { get async { negotiatedMTU } }

    private func objectPath(_ id: CharacteristicID) throws(DeviceError) -> (String, Characteristic) {
        guard let (path, characteristic) = characteristics.first(where: { $0.value.id == id }) else {
            throw DeviceError(.unsupported, message: "\(peripheral) has no characteristic \(id)")
        }
        return (path, characteristic)
    }

    private func call(_ path: String, _ member: String, _ arguments: [DBusValue], doing what: String)
        async throws(DeviceError) -> [DBusValue]
    {
        if let ended = state.withLock({ $0.ended }) { throw ended }
        do {
            return try await bus.call(BlueZNames.service, path, BlueZNames.characteristic, member, arguments)
        } catch {
            let mapped = BlueZClient.deviceError(error, doing: what)
            // an object of a connected device vanishes when the device does: the link dropped
            guard mapped.code == .notFound else { throw mapped }
            throw DeviceError(.disconnected, message: "\(peripheral) is gone (\(mapped.message))")
        }
    }

    func read(_ characteristic: CharacteristicID) async throws(DeviceError) -> [UInt8] {
        let (path, _) = try objectPath(characteristic)
        let reply = try await call(path, "ReadValue", [.properties([])], doing: "reading \(characteristic)")
        guard let value = reply.first?.byteArray else {
            throw DeviceError(.protocolViolation, message: "BlueZ answered a read of \(characteristic) without bytes")
        }
        return value
    }

    func write(_ characteristic: CharacteristicID, _ value: [UInt8]) async throws(DeviceError) {
        let (path, found) = try objectPath(characteristic)
        let type = found.flags.contains("write") ? "request" : "command"
        _ = try await call(
            path, "WriteValue", [.bytes(value), .properties(["type": .string(type)])],
            doing: "writing \(characteristic)")
    }

    func subscribe(_ characteristic: CharacteristicID) async throws(DeviceError) {
        let (path, _) = try objectPath(characteristic)
        guard state.withLock({ $0.subscribed.insert(path).inserted }) else { return }
        do {
            _ = try await call(path, "StartNotify", [], doing: "subscribing to \(characteristic)")
        } catch {
            state.withLock { _ = $0.subscribed.remove(path) }
            throw error
        }
    }

    /// A value BlueZ reported for the characteristic at `path`: an event, if the driver subscribed to it.
    func received(_ value: [UInt8], on path: String) {
        guard let characteristic = characteristics[path] else { return }
        let waiting: Waiting?
        let event: GATTEvent
        (waiting, event) = state.withLock { state in
            let event: GATTEvent
            if characteristic.flags.contains("indicate") && !characteristic.flags.contains("notify") {
                // BlueZ has already confirmed it: the token only keeps the drivers' flow
                event = .indication(characteristic.id, value, IndicationToken(id: state.nextToken))
                state.nextToken += 1
            } else {
                event = .notification(characteristic.id, value)
            }
            guard state.subscribed.contains(path), state.ended == nil else { return (nil, event) }
            if let waiting = state.takeWaiting() { return (waiting, event) }
            state.events.append(event)
            return (nil, event)
        }
        waiting?.resume(returning: .success(event))
    }

    /// The link ended: a driver waiting, or waiting next, gets `error`.
    func end(_ error: DeviceError) {
        let waiting = state.withLock { state in
            if state.ended == nil { state.ended = error }
            return state.takeWaiting()
        }
        waiting?.resume(returning: .failure(error))
    }

    func nextEvent() async throws(DeviceError) -> GATTEvent {
        while true {
            if let event = try await next(within: nil) { return event }
        }
    }

    func nextEvent(within timeout: Duration) async throws(DeviceError) -> GATTEvent? {
        try await next(within: timeout)
    }

    /// The next event; `nil` when `timeout` passes first; `DeviceError.Code.cancelled` when the task is cancelled
    /// while it waits (no value is in hand then: one that arrives stays queued for the next call).
    private func next(within timeout: Duration?) async throws(DeviceError) -> GATTEvent? {
        let cancelled = DeviceError(.cancelled, message: "waiting for \(peripheral) was cancelled")
        let result: Result<GATTEvent?, DeviceError> = await withTaskCancellationHandler {
            await nextResult(within: timeout, cancelled: cancelled)
        } onCancel: {
            state.withLock { $0.takeWaiting() }?.resume(returning: .failure(cancelled))
        }
        return try result.get()
    }

    private func nextResult(within timeout: Duration?, cancelled: DeviceError) async -> Result<GATTEvent?, DeviceError>
    {
        await withCheckedContinuation { continuation in
            let ready: Result<GATTEvent?, DeviceError>? = state.withLock { state in
                if state.head < state.events.count {
                    defer {
                        state.head += 1
                        if state.head == state.events.count {
                            state.events.removeAll(keepingCapacity: true)
                            state.head = 0
                        }
                    }
                    return .success(state.events[state.head])
                }
                if let ended = state.ended { return .failure(ended) }
                // cancelled before this wait was registered: the handler found nothing to end
                if Task.isCancelled { return .failure(cancelled) }
                state.waiting = continuation
                state.wait += 1
                if let timeout {
                    let wait = state.wait
                    state.timer = Task { await self.expire(wait, after: timeout) }
                }
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Ends wait number `wait` with `nil` after `timeout`, if no event or end came first.
    private func expire(_ wait: UInt64, after timeout: Duration) async {
        guard (try? await Task.sleep(for: timeout)) != nil else { return }
        let expired = state.withLock { state -> Waiting? in
            guard state.wait == wait else { return nil }
            return state.takeWaiting()
        }
        expired?.resume(returning: .success(nil))
    }

    func offers(_ characteristic: CharacteristicID) async -> Bool {
        characteristics.values.contains { $0.id == characteristic }
    }

    func confirm(_ token: IndicationToken) async throws(DeviceError) {}

    func disconnect() async {
        end(DeviceError(.disconnected, message: "the hub disconnected"))
        await bus.undo(path, BlueZNames.device, "Disconnect")
    }
}
