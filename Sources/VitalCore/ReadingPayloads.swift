/// A reading type of one kind (``BloodPressureReading``, ``BandDay``…): how it sits in a ``Reading``, and what
/// every kind's reading has. Work that is the same for every kind is written once against it, through
/// ``Reading/visit(_:)`` and ``Reading/update(_:)``, instead of a `switch` over the kinds.
protocol KindReading: Sendable {
    static func extract(_ reading: Reading) -> Self?
    var embedded: Reading { get }
    /// When it was taken; the start of its day (UTC) for a day's reading.
    var measuredAt: Timestamp { get }
    var annotations: ReadingAnnotations { get set }
    /// Makes it taken at `time`; a day's reading stays as it is.
    mutating func retime(to time: Timestamp)
}

/// Work done on a reading as its kind's own type, without a `switch` over the kinds.
protocol PayloadVisitor {
    associatedtype Result
    func visit<Payload: KindReading>(_ payload: Payload) -> Result
}

/// A change made to a reading as its kind's own type.
protocol PayloadUpdate {
    func update<Payload: KindReading>(_ payload: inout Payload)
}

extension Reading {
    /// `visitor`'s answer for the reading as its kind's type: the one `switch` over a reading's cases that work
    /// common to every kind needs.
    func visit<Visitor: PayloadVisitor>(_ visitor: Visitor) -> Visitor.Result {
        switch self {
        case .bloodPressure(let payload): visitor.visit(payload)
        case .glucose(let payload): visitor.visit(payload)
        case .weight(let payload): visitor.visit(payload)
        case .oximetry(let payload): visitor.visit(payload)
        case .temperature(let payload): visitor.visit(payload)
        case .activity(let payload): visitor.visit(payload)
        case .band(let payload): visitor.visit(payload)
        case .heartRate(let payload): visitor.visit(payload)
        }
    }

    /// Applies `change` to the reading as its kind's type.
    mutating func update(_ change: some PayloadUpdate) {
        self = visit(Updated(change: change))
    }

    private struct Updated<Change: PayloadUpdate>: PayloadVisitor {
        let change: Change
        func visit<Payload: KindReading>(_ payload: Payload) -> Reading {
            var payload = payload
            change.update(&payload)
            return payload.embedded
        }
    }
}

extension BloodPressureReading: KindReading {
    static func extract(_ reading: Reading) -> Self? {
        if case .bloodPressure(let value) = reading { value } else { nil }
    }
    var embedded: Reading { .bloodPressure(self) }
    mutating func retime(to time: Timestamp) { measuredAt = time }
}

extension GlucoseReading: KindReading {
    static func extract(_ reading: Reading) -> Self? {
        if case .glucose(let value) = reading { value } else { nil }
    }
    var embedded: Reading { .glucose(self) }
    mutating func retime(to time: Timestamp) { measuredAt = time }
}

extension WeightReading: KindReading {
    static func extract(_ reading: Reading) -> Self? {
        if case .weight(let value) = reading { value } else { nil }
    }
    var embedded: Reading { .weight(self) }
    mutating func retime(to time: Timestamp) { measuredAt = time }
}

extension TemperatureReading: KindReading {
    static func extract(_ reading: Reading) -> Self? {
        if case .temperature(let value) = reading { value } else { nil }
    }
    var embedded: Reading { .temperature(self) }
    mutating func retime(to time: Timestamp) { measuredAt = time }
}

extension OximetryReading: KindReading {
    static func extract(_ reading: Reading) -> Self? {
        if case .oximetry(let value) = reading { value } else { nil }
    }
    var embedded: Reading { .oximetry(self) }
    mutating func retime(to time: Timestamp) { measuredAt = time }
}

extension HeartRateReading: KindReading {
    static func extract(_ reading: Reading) -> Self? {
        if case .heartRate(let value) = reading { value } else { nil }
    }
    var embedded: Reading { .heartRate(self) }
    mutating func retime(to time: Timestamp) { measuredAt = time }
}

extension ActivityDay: KindReading {
    static func extract(_ reading: Reading) -> Self? {
        if case .activity(let value) = reading { value } else { nil }
    }
    var embedded: Reading { .activity(self) }
    var measuredAt: Timestamp { Timestamp(secondsSince1970: date.daysSince1970 * 86_400) }
    mutating func retime(to time: Timestamp) {}
}

extension BandDay: KindReading {
    static func extract(_ reading: Reading) -> Self? {
        if case .band(let value) = reading { value } else { nil }
    }
    var embedded: Reading { .band(self) }
    var measuredAt: Timestamp { Timestamp(secondsSince1970: date.daysSince1970 * 86_400) }
    mutating func retime(to time: Timestamp) {}
}
