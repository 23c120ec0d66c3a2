extension SmartbandDriver {
    /// The `band reset` path as the engine's factory reset: everything the band holds is synced and stored, then
    /// ``BandCommand/reset`` is sent on the same link, so the band erases nothing unstored.
    public func resetToFactory(storingInto sink: any RecordSink) async throws(DeviceError) -> Int {
        let stored = try await sync(into: sink) { _ in }
        _ = try await run(.reset, storingInto: sink)
        return stored
    }
}
