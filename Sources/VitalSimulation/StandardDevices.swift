import HealthGATT
import VitalCore
import VitalDevices

/// VitalBridge's generic SIG devices (900–904) as any maker builds them: only the Bluetooth SIG profile, no vendor
/// service, so nothing the hub writes starts a measurement. The user does, on the device.
///
/// - A push device (blood pressure, scale, thermometer) indicates its unsent readings as soon as the hub subscribes,
///   each forgotten when confirmed, and announces no end: it goes quiet.
/// - While the hub waits on a quiet link, the user measures once: the reading comes 30 s (putting the cuff on,
///   stepping on, inserting the strip) plus the measurement's own time later, and a meter or oximeter keeps it in
///   memory as a new record as well. A user whose script cancels at `measure` walks away instead.
/// - Then a push device, with nothing more to send, ends the session by disconnecting, as real ones do.
/// - A fleet's `disconnectAfter` drops the link during the stored records' transfer, or, if that has none left to
///   send, instead of the user's measurement.
extension SimulatedWorld {
    /// How long after the hub starts waiting the simulated user's reading arrives.
    static func userDelay(_ runtime: DeviceRuntime) -> Duration { .seconds(30) + runtime.measurementDuration }

    /// Lets the world's time pass to what the device on `link` sends next by itself and queues it, unless that
    /// comes after `deadline` (a point of the world's elapsed time); `false` when it sends nothing by then.
    func waitForMore(on link: Link, until deadline: Duration?) -> Bool {
        let runtime = link.runtime
        guard runtime.entry.model.isStandardProfile, runtime.entry.family != .heartRateSensor else {
            return link.peripheral.waitForMore(on: link)
        }
        guard link.transfer == nil, link.outstanding == nil,
            link.subscribed.contains(runtime.liveCharacteristic)
        else { return false }
        let pushes = runtime.entry.family.traits.pushesStoredRecords
        if link.userMeasured || user.cancelAt == .measure {
            // nothing more to say: a push device hangs up, a meter waits for the next command
            guard pushes else { return false }
            link.enqueue(.drop)
            return true
        }
        let delay = Self.userDelay(runtime)
        if let deadline, clock.elapsedTime + delay > deadline { return false }
        if runtime.configuration.failures.disconnectAfter != nil, runtime.spend("disconnectAfter") {
            link.enqueue(.drop)
            return true
        }
        clock.advance(by: delay)
        link.userMeasured = true
        link.peripheral.sendLiveSamples(on: link)
        let reading = runtime.nextMeasurement(at: clock.wallTime)
        link.peripheral.sendMeasurement(StoredRecord(sequenceNumber: 0, reading: reading), on: link)
        return true
    }
}
