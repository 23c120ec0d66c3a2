import VitalCore
import VitalDevices
import VitalExports
import VitalHome

/// Writes `records` output to standard output as it is produced, 64 KiB at a time, so that any number of readings
/// takes the same memory. A closed pipe (`records | head`) ends the listing: writing then throws
/// ``ExitStatus/done`` (and ``closed`` says so, where a store wraps what its reader threw).
struct StreamingOutput {
    private var buffer: [UInt8] = []
    /// Whether standard output was closed.
    private(set) var closed = false

    init() { buffer.reserveCapacity(1 << 16) }

    mutating func write(_ text: String) throws(CommandError) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { try flush() }
    }

    /// Lets `body` append bytes to the buffer, then flushes it if it is full.
    mutating func append(_ body: (inout [UInt8]) -> Void) throws(CommandError) {
        body(&buffer)
        if buffer.count >= 1 << 16 { try flush() }
    }

    mutating func flush() throws(CommandError) {
        guard !buffer.isEmpty else { return }
        guard writeAll(buffer, to: 1) else {
            closed = true
            throw CommandError(ending: .done)
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

extension RecordRow {
    /// The heart-rate minutes of a band's stored item, one row each with a value (a minute without one is not
    /// listed); none for an item that is not an hour of heart rate.
    ///
    /// - Throws: `GATTError` if the stored bytes are not a band item.
    static func heartRateMinutes(of item: DayItem, device: MACAddress) throws -> [RecordRow] {
        guard case .heartRate(let hour) = try BandItem(storedBytes: item.bytes) else { return [] }
        let start = hour.date.daysSince1970 * 86_400 + Int64(hour.hour) * 3_600
        return hour.minutes.enumerated().compactMap { minute, rate in
            rate.map {
                RecordRow(
                    device: device, kind: "heart_rate_minute",
                    time: Timestamp(secondsSince1970: start + Int64(minute) * 60),
                    values: [(.heartRate, .number(Double($0)))])
            }
        }
    }
}
