import LayeredProtocol
import Logging
import VitalCore
import VitalDevices
import VitalStore

/// Delivery: chooses what a callback carries within the URL budget (reserving it for the request), hands the
/// callback over with no lock held, and only then journals it; a failed hand-off returns the readings to pending.
struct CallbackDelivery: Sendable {
    let store: VitalStore
    let handOff: any CallbackHandOff
    let logger: Logger
    let now: @Sendable () -> Timestamp

    /// What a callback carries, chosen and (unless re-sent with `since`) reserved for this request.
    struct Chosen {
        var url: String
        var readingIDs: [Int64]
        var delivered: [Reading]
        var remaining: Int
    }

    func deliver(
        _ request: LayeredRequest, run: StageRunner.Run, to addressee: Addressee, owner: ReservationOwner, budget: Int
    ) async -> HubOutcome {
        // whatever this request reserved goes back to pending unless a callback carries it
        var handedOver = false
        defer {
            if !handedOver { try? store.journal.releaseReservations(of: owner) }
        }
        let action = request.action
        guard let status = ActionStatus(action: action, ran: run.outcomes) else {
            return await finish(
                addressee, action: action, status: .fail, reason: run.reason ?? .internal, device: run.device,
                budget: budget)
        }
        guard run.outcomes.count == action.stages.count, run.outcomes.allSatisfy({ $0 == .success }),
            let mac = run.device
        else {
            return await finish(
                addressee, action: action, status: status, reason: run.reason, device: run.device, budget: budget)
        }
        let chosen: Chosen
        do {
            let base = try LayeredCallback(
                destination: addressee.destination, echo: addressee.echo, status: status, mac: mac)
            if !action.includes(.sync) && run.live == nil {
                chosen = Chosen(url: base.url, readingIDs: [], delivered: [], remaining: 0)
            } else if let since = request.since {
                // asked again from a time: re-sent as asked, not reserved
                chosen = try store.readings.withDeliverable(device: mac, since: since, caller: addressee.caller) {
                    stored in
                    // the live reading is in the stream when it is recent enough; the callback carries it first
                    let liveInStream = run.live.map { $0.reading.measuredAt >= since } ?? false
                    return try choose(
                        stored.count - (liveInStream ? 1 : 0), from: &stored, live: run.live, base: base, request,
                        budget)
                }
            } else {
                chosen = try store.journal.reservePending(device: mac, caller: addressee.caller, for: owner) {
                    pending in
                    // the live reading is reserved by this request, so the pending stream does not hold it
                    let chosen = try choose(pending.count, from: &pending, live: run.live, base: base, request, budget)
                    return (chosen, chosen.readingIDs)
                }
            }
        } catch let error as LayeredError {
            return await finish(
                addressee, action: action,
                status: ActionStatus(action: action, ran: run.outcomes.dropLast() + [.fail])!,
                reason: error.reason, device: mac, budget: budget)
        } catch {
            return await finish(
                addressee, action: action,
                status: ActionStatus(action: action, ran: run.outcomes.dropLast() + [.fail])!,
                reason: .answering(error, logger), device: mac, budget: budget)
        }
        let report = HubReport(
            status: status, reason: nil, device: mac, delivered: chosen.delivered, remaining: chosen.remaining)
        do {
            try await handOff.handOver(chosen.url)
        } catch {
            logger.error("the callback was not handed over; its readings stay pending", metadata: ["error": "\(error)"])
            return .handOffFailed(chosen.url, report, "\(error)")
        }
        handedOver = true
        do {
            try store.journal.record(
                caller: addressee.caller, device: mac, action: .layered(cmd: action.rawValue), status: status.rawValue,
                at: now(),
                readingIDs: chosen.readingIDs, remaining: chosen.remaining, owner: owner)
        } catch {
            // handed over but not journaled: the reservation expires and the readings are delivered again
            logger.error(
                "the delivery was not journaled; its readings will be delivered again", metadata: ["error": "\(error)"])
        }
        return .callback(chosen.url, report)
    }

    /// Packs the live reading (first, always) and as many of the `count` readings of `stored` other than it as
    /// fit, oldest first, into the callback, reading from the stream only as far as the callback fits.
    func choose(
        _ count: Int, from stored: inout ReadingStream, live: StoredReading?, base: LayeredCallback,
        _ request: LayeredRequest, _ budget: Int
    ) throws -> Chosen {
        let liveReadings = live.map { [$0.reading] } ?? []
        let combined = request.action.includes(.sync) && request.action.includes(.measure)
        var taken: [StoredReading] = []
        let packed = try LayeredCallback.packingOldestFirst(
            base, count: count,
            next: {
                while let reading = try stored.next() {
                    guard reading.id != live?.id else { continue }
                    taken.append(reading)
                    return reading.reading
                }
                return nil
            }, measured: combined ? liveReadings : nil, leading: combined ? [] : liveReadings, unit: request.unit,
            maximumLength: budget)
        let included = taken.prefix(packed.includedCount)
        return Chosen(
            url: packed.url, readingIDs: (live.map { [$0.id] } ?? []) + included.map(\.id),
            delivered: liveReadings + included.map(\.reading), remaining: packed.callback.remaining ?? 0)
    }

    /// Hands a provider's answer over (`url`), carrying `readings` that `owner` reserved for `caller`, then journals
    /// it as `kind`'s; when the hand-off fails, whatever `owner` reserved goes back to pending.
    func deliverAnswer(
        _ url: String, to caller: String, carrying readings: [StoredReading], as kind: ProviderProtocol,
        succeeded: Bool, note: String?, owner: ReservationOwner
    ) async -> HubOutcome {
        let status: ActionStatus = succeeded ? .success : .fail
        let report = HubReport(
            status: status, reason: nil, device: readings.first?.device, delivered: readings.map(\.reading),
            remaining: 0, note: note)
        do {
            try await handOff.handOver(url)
        } catch {
            try? store.journal.releaseReservations(of: owner)
            logger.error("the answer was not handed over; its readings stay pending", metadata: ["error": "\(error)"])
            return .handOffFailed(url, report, "\(error)")
        }
        do {
            // the reservations the answer does not carry end with it: those readings are pending again
            try store.journal.record(
                caller: caller, device: report.device, action: .provider(code: kind.rawValue), status: status.rawValue,
                at: now(),
                readingIDs: readings.map(\.id), remaining: 0, owner: owner)
        } catch {
            logger.error(
                "the answer was not journaled; its readings will be delivered again", metadata: ["error": "\(error)"])
        }
        return .callback(url, report)
    }

    /// Hands over a callback without readings (fail, cancel, add), then journals it.
    func finish(
        _ addressee: Addressee, action: LayeredAction?, status: ActionStatus, reason: LayeredReason?,
        device: MACAddress?, budget: Int
    ) async -> HubOutcome {
        let outcome = await Self.handOver(
            addressee, status: status, reason: reason, device: device, budget: budget, through: handOff)
        guard case .callback = outcome else { return outcome }
        do {
            try store.journal.record(
                caller: addressee.caller, device: device, action: action.map { .layered(cmd: $0.rawValue) } ?? .unknown,
                status: status.rawValue,
                at: now(), readingIDs: [], remaining: 0)
        } catch {
            logger.error("a callback without readings was not journaled", metadata: ["error": "\(error)"])
        }
        return outcome
    }

    /// Hands over a callback without readings to `addressee`, if it fits `budget`.
    static func handOver(
        _ addressee: Addressee, status: ActionStatus, reason: LayeredReason?, device: MACAddress?, budget: Int,
        through handOff: any CallbackHandOff
    ) async -> HubOutcome {
        guard
            let callback = try? LayeredCallback(
                destination: addressee.destination, echo: addressee.echo, status: status, mac: device, reason: reason)
        else { return .noCallback("the callback cannot be written") }
        let url = callback.url
        guard url.utf8.count <= budget else {
            return .noCallback("the callback would be longer than \(budget) characters")
        }
        let report = HubReport(status: status, reason: reason, device: device, delivered: [], remaining: 0)
        do {
            try await handOff.handOver(url)
        } catch {
            return .handOffFailed(url, report, "\(error)")
        }
        return .callback(url, report)
    }
}

extension LayeredReason {
    /// The answer to a failure of the hub's own storage (`error`, logged with `logger`): `ERROR_STORE_BUSY` when
    /// the store was held too long by other requests (worth sending again), else `ERROR_STORE`.
    static func answering(_ error: any Error, _ logger: Logger) -> LayeredReason {
        let reason: LayeredReason = (error as? StoreError)?.code == .busy ? .storeBusy : .store
        logger.error(
            "the hub's storage failed", metadata: ["answer": "\(reason)", "error": "\(error)"])
        return reason
    }
}

extension ActionStatus {
    /// The status of `action` stopped by a failure at its first stage; plain fail when the action is unknown.
    static func failedFirst(_ action: LayeredAction?) -> ActionStatus {
        action.flatMap { ActionStatus(action: $0, ran: [.fail]) } ?? .fail
    }
}
