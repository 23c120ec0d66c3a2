extension Reading {
    /// Whether the reading is of an instant, which a device's clock may have given (not a whole day: an activity
    /// or band day).
    public var isOfInstant: Bool { !kind.isDay }

    /// The reading taken at `time` instead: its values and annotations unchanged. A day's reading
    /// (``isOfInstant`` is `false`) is returned as it is.
    public func retimed(to time: Timestamp) -> Reading {
        var reading = self
        reading.update(Retime(time: time))
        return reading
    }

    private struct Retime: PayloadUpdate {
        let time: Timestamp
        func update<Payload: KindReading>(_ payload: inout Payload) { payload.retime(to: time) }
    }
}
