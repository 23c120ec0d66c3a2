import Logging
import VitalCore
import VitalDevices
import VitalStore

extension DeviceDesk {
    /// The reason a device's readings are deleted with it: `device 004D3208D2F4 removed`.
    public static func removalReason(_ mac: MACAddress) -> String { "device \(mac) removed" }

    /// Removes device `mac` from the hub: it is no longer served nor offered, no caller is owed anything of it, and
    /// a request for it is one for a device never added (`VitalStore.forgetDevice(_:deletingReadings:at:)`
    /// says what is kept). Its readings stay in the store unless `deletingReadings`: then each is deleted through
    /// the change feed, so the sinks receive the deletions, with the reason ``removalReason(_:)``.
    ///
    /// Everything happens under the device's lease: a device another request is using (a transfer in progress) is
    /// waited for, as long as any request waits, and never forgotten in the middle. Still under it, the store
    /// forgets the device in one transaction, and the leases forget what they keep of it
    /// (``DeviceLeases/forgetting(_:_:)``: a simulated device's saved state, so that it starts again as its fleet
    /// file says; nothing on a real transport, whose devices keep their own memory). The device is never connected,
    /// so any transport can remove any device.
    ///
    /// Before readings are deleted, `confirm` is given their count and says whether to go on; it is not asked when
    /// there are none, nor when the readings stay.
    ///
    /// - Returns: the device as the hub knew it, and how many readings stayed or were deleted.
    /// - Throws: ``DeviceDeskError`` with ``DeviceDeskError/Code/unknownDevice`` (`… is not a device of this hub`),
    ///   ``DeviceDeskError/Code/declined`` when `confirm` said no, ``DeviceDeskError/Code/device`` when another
    ///   request held the device too long, ``DeviceDeskError/Code/store`` when the store or the home's files
    ///   failed; nothing was removed then.
    public func remove(
        _ mac: MACAddress, deletingReadings: Bool, confirm: @escaping @Sendable (_ readings: Int) async -> Bool
    ) async throws(DeviceDeskError) -> ForgottenDevice {
        // a device the hub does not know takes no lease (and leaves no lock file)
        let known: StoredDevice?
        do {
            known = try store.device(mac)
        } catch {
            logger.error("the hub's storage failed", metadata: ["error": "\(error)"])
            throw DeviceDeskError(.store, "\(mac) was not removed: \(error)")
        }
        guard known != nil else { throw Self.unknown(mac) }
        let (store, now) = (store, now)
        do {
            return try await leases.forgetting(mac) {
                guard try store.device(mac) != nil else { throw Self.unknown(mac) }
                if deletingReadings {
                    let count = try store.readingCount(device: mac)
                    if count > 0, await !confirm(count) {
                        throw DeviceDeskError(
                            .declined, "\(mac) was not removed: the deletion of its \(count) readings was not confirmed"
                        )
                    }
                }
                return try store.forgetDevice(
                    mac, deletingReadings: deletingReadings ? Self.removalReason(mac) : nil, at: now())
            }
        } catch let error as DeviceDeskError {
            throw error
        } catch let error as DeviceError {
            throw DeviceDeskError(.device, "\(mac) was not removed: \(error.message)")
        } catch {
            logger.error("the hub's storage failed", metadata: ["device": "\(mac)", "error": "\(error)"])
            throw DeviceDeskError(.store, "\(mac) was not removed: \(error)")
        }
    }

    /// `… is not a device of this hub`.
    private static func unknown(_ mac: MACAddress) -> DeviceDeskError {
        DeviceDeskError(.unknownDevice, "\(mac) is not a device of this hub")
    }
}

extension ForgottenDevice {
    /// What `devices remove` prints: `removed 004D3208D2F4 (BP5); its 12 readings stay in the store`, or
    /// `removed 004D3208D2F4 (BP5) and deleted its 12 readings`.
    public var line: String {
        let removed = "removed \(device.mac) (\(device.model.name))"
        let noun = readings == 1 ? "reading" : "readings"
        if readings == 0 { return removed + "; it had no readings" }
        if readingsDeleted { return removed + " and deleted its \(readings) \(noun)" }
        return removed + "; its \(readings) \(noun) \(readings == 1 ? "stays" : "stay") in the store"
    }
}
