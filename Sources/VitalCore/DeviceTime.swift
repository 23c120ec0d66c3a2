extension Reading {
    /// Whether the reading is of an instant, which a device's clock may have given (not a whole day: an activity
    /// or band day).
    public var isOfInstant: Bool {
        switch self {
        case .activity, .band: false
        case .bloodPressure, .glucose, .weight, .oximetry, .temperature, .heartRate: true
        }
    }

    /// The reading taken at `time` instead: its values and annotations unchanged. A day's reading
    /// (``isOfInstant`` is `false`) is returned as it is.
    public func retimed(to time: Timestamp) -> Reading {
        switch self {
        case .bloodPressure(var reading):
            reading.measuredAt = time
            return .bloodPressure(reading)
        case .glucose(var reading):
            reading.measuredAt = time
            return .glucose(reading)
        case .weight(var reading):
            reading.measuredAt = time
            return .weight(reading)
        case .oximetry(var reading):
            reading.measuredAt = time
            return .oximetry(reading)
        case .temperature(var reading):
            reading.measuredAt = time
            return .temperature(reading)
        case .heartRate(var reading):
            reading.measuredAt = time
            return .heartRate(reading)
        case .activity, .band:
            return self
        }
    }
}
