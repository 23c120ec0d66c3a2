import BlueZ
import VitalCore
import VitalDevices

/// Pairing a real device, as `vitalbridge pair` does.
extension Hub {
    /// Pairs `device` through the home's BlueZ adapter and marks it trusted, the hub being BlueZ's pairing agent
    /// while `user` answers the device's dialogue; the connection to BlueZ is closed afterwards.
    ///
    /// - Throws: ``HomeError`` saying `cannot pair <address>: ` and why: the home reaches simulated devices, or the
    ///   pairing failed (a wrong passkey, a declined dialogue, a device BlueZ does not hear, no adapter, no bus).
    public func pair(_ device: MACAddress, user: any PairingUser) async throws(HomeError) -> PairingResult {
        let address = BlueZNames.address(device)
        guard case .bluez(let central) = transport else {
            throw HomeError(
                "cannot pair \(address): the home reaches simulated devices; pairing is for a BlueZ home "
                    + "(vitalbridge init --adapter hci0)")
        }
        let result: PairingResult
        do {
            result = try await central.pair(device, user: user)
        } catch {
            await central.close()
            throw HomeError("cannot pair \(address): \(error.message)")
        }
        await central.close()
        return result
    }
}
