import HealthGATT
import VitalCore

/// A Bluetooth SIG Heart Rate Service sensor (VitalBridge's devicemodel 905): it notifies Heart Rate Measurement
/// (0x2A37) with each beat's rate and RR intervals while the central is subscribed, and stores nothing.
///
/// A measurement records for ``measurementSeconds``; ``record(seconds:observer:)`` records for as long as asked (a DDS
/// measurement takes 300 s). The time is the heart's own, the sum of the RR intervals, or the host's clock for a
/// sensor that reports none, whichever reaches it first. The reading is the mean reported rate and every RR
/// interval, in ms.
public struct HeartRateDriver: DeviceDriver {
    public let entry: CatalogEntry
    public let connection: any BluetoothConnection
    /// The host's clock: a recording lasts until it has moved on by the seconds asked.
    public let clock: @Sendable () -> Timestamp
    /// How long a live measurement records: 30 s.
    public var measurementSeconds = 30

    public init(
        entry: CatalogEntry, connection: any BluetoothConnection, clock: @escaping @Sendable () -> Timestamp
    ) {
        self.entry = entry
        self.connection = connection
        self.clock = clock
    }

    /// Records for the options' ``MeasureOptions/recordingSeconds``, else ``measurementSeconds``, and stores the
    /// reading before returning it.
    public func measure(
        _ options: MeasureOptions, into sink: any RecordSink, observer: @escaping @Sendable (LiveSample) -> Void
    ) async throws(DeviceError) -> DeviceRecord {
        let seconds = options.recordingSeconds ?? measurementSeconds
        let record = DeviceRecord(reading: .heartRate(try await record(seconds: seconds, observer: observer)))
        try await store([record], in: sink)
        return record
    }

    public func sync(into sink: any RecordSink, progress: @escaping @Sendable (SyncProgress) -> Void)
        async throws(DeviceError) -> Int
    {
        throw DeviceError(.unsupported, message: "\(entry.model.name) keeps no records to sync")
    }

    /// Collects the sensor's notifications until its RR intervals add up to `seconds`, or the host's clock has
    /// moved on by as much; `observer` hears each notification as a ``LiveSample/heartRate(beatsPerMinute:rrIntervals:)``.
    ///
    /// - Throws: ``DeviceError/Code/protocolViolation`` for a value that does not decode;
    ///   ``DeviceError/Code/deviceReported`` when the sensor reported no rate at all; a dropped link as
    ///   ``DeviceError/Code/disconnected``.
    public func record(seconds: Int, observer: @Sendable (LiveSample) -> Void = { _ in }) async throws(DeviceError)
        -> HeartRateReading
    {
        try await connection.subscribe(GATTCharacteristics.heartRateMeasurement)
        let start = clock()
        var rates: [Int] = []
        var intervals: [Double] = []
        var beats = 0.0
        while beats < Double(seconds) * 1_000, clock().secondsSince1970 - start.secondsSince1970 < Int64(seconds) {
            try checkCancellation()
            guard
                case .notification(GATTCharacteristics.heartRateMeasurement, let bytes) =
                    try await connection.nextEvent()
            else { continue }
            let measurement = try decode(HeartRateMeasurement.self, bytes)
            let rate = measurement.sensorContact != .notDetected && measurement.heartRate > 0
            if rate { rates.append(Int(measurement.heartRate)) }
            let milliseconds = measurement.rrIntervals.map { Double($0) * 1_000 / 1_024 }
            intervals += milliseconds
            beats += milliseconds.reduce(0, +)
            observer(.heartRate(beatsPerMinute: rate ? Int(measurement.heartRate) : nil, rrIntervals: milliseconds))
        }
        guard !rates.isEmpty else {
            throw DeviceError(.deviceReported, message: "the sensor reported no heart rate in \(seconds) s")
        }
        let mean = (Double(rates.reduce(0, +)) / Double(rates.count)).rounded()
        return HeartRateReading(heartRate: Int(mean), rrIntervals: intervals, measuredAt: start)
    }
}
