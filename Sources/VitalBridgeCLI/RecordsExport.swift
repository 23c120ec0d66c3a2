import LayeredProtocol
import VitalCore
import VitalDevices
import VitalStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A field's value as `records` writes it.
enum RecordValue {
    case number(Double)
    case flag(Bool)
    /// Text without commas, quotes or line breaks (a band day's sports).
    case text(String)
    /// A pulse wave's samples: a JSON list, space-separated in CSV (`12 40 77`), their count in the table.
    case samples([Int])
}

extension ReadingColumn {
    /// How many columns there are.
    static let count = allCases.count

    /// The fields `reading` has, in column order.
    static func values(of reading: LayeredReading) -> [(column: ReadingColumn, value: RecordValue)] {
        let fields = reading.kind.fieldsInColumnOrder
        var values: [(column: ReadingColumn, value: RecordValue)] = []
        values.reserveCapacity(fields.count)
        for field in fields {
            guard let column = field.column, let value = field.value(in: reading).flatMap(RecordValue.init) else {
                continue
            }
            values.append((column, value))
        }
        return values
    }
}

extension RecordValue {
    /// A field's value as `records` writes it: sports as `type start-end kcal`, then what the band sent of steps,
    /// metres, repetitions and activity (`1 08:10-08:45 120kcal 4100steps 2870m; 2 12:05-12:15 80kcal 0steps 0m
    /// 220reps 10activity`), RR intervals as their count (the series itself is in
    /// the store, and `vitalbridge hrv` reads one); a band day's sport totals as `type steps kcal metres`
    /// (`1 8421steps 312kcal 6120m; 2 0steps 80kcal 0m 220reps`) and its sleep segments as `BandDay.SleepSegment.text(dash:)` writes
    /// them, `; `-separated; a pulse wave as its samples; `nil` for a day without sports (or totals, or segments)
    /// and a reading without a wave, whose column stays empty.
    init?(_ value: FieldValue) {
        switch value {
        case .number(let number): self = .number(number)
        case .integer(let integer): self = .number(Double(integer))
        case .flag(let flag): self = .flag(flag)
        case .intervals(let intervals): self = .number(Double(intervals.count))
        case .samples(let samples): self = .samples(samples)
        case .sports(let sports):
            guard !sports.isEmpty else { return nil }
            self = .text(
                sports.map { sport in
                    "\(sport.type) \(BandDay.timeOfDay(sport.start).prefix(5))-\(BandDay.timeOfDay(sport.end).prefix(5)) "
                        + "\(sport.calories)kcal"
                        + [
                            sport.steps.map { " \($0)steps" }, sport.distance.map { " \($0)m" },
                            sport.count.map { " \($0)reps" }, sport.activity.map { " \($0)activity" },
                            sport.detailDistance.map { " \($0)m detail" },
                        ].compactMap { $0 }.joined()
                }
                .joined(separator: "; "))
        case .sportTotals(let totals):
            guard !totals.isEmpty else { return nil }
            self = .text(
                totals.map { total in
                    "\(total.type) \(total.steps)steps \(total.calories)kcal \(total.distance)m"
                        + (total.count.map { " \($0)reps" } ?? "")
                }
                .joined(separator: "; "))
        case .sleepSegments(let segments):
            guard !segments.isEmpty else { return nil }
            self = .text(segments.map { $0.text(dash: "-") }.joined(separator: "; "))
        }
    }

    /// The value as CSV, JSON and the table write it: whole numbers without a fraction, others in Swift's shortest
    /// exact form (readings are finite), flags as `true`/`false`.
    var text: String {
        switch self {
        case .number(let number):
            number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : "\(number)"
        case .flag(let flag): flag ? "true" : "false"
        case .text(let text): text
        case .samples(let samples): samples.map(String.init).joined(separator: " ")
        }
    }

    /// The value as a JSON value: text quoted, numbers and flags as they are.
    var json: String {
        switch self {
        case .text(let text): "\"\(text)\""
        case .samples(let samples): "[" + samples.map(String.init).joined(separator: ",") + "]"
        default: self.text
        }
    }
}

/// Writes `records` output to standard output as it is produced, 64 KiB at a time, so that any number of readings
/// takes the same memory. A closed pipe (`records | head`) ends the listing: writing then throws
/// ``ExitStatus/done`` (and ``closed`` says so, where a store wraps what its reader threw).
struct StreamingOutput {
    private var buffer: [UInt8] = []
    /// Whether standard output was closed.
    private(set) var closed = false

    init() { buffer.reserveCapacity(1 << 16) }

    mutating func write(_ text: String) throws(ExitStatus) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { try flush() }
    }

    /// Lets `body` append bytes to the buffer, then flushes it if it is full.
    mutating func append(_ body: (inout [UInt8]) -> Void) throws(ExitStatus) {
        body(&buffer)
        if buffer.count >= 1 << 16 { try flush() }
    }

    mutating func flush() throws(ExitStatus) {
        guard !buffer.isEmpty else { return }
        guard writeAll(buffer, to: 1) else {
            closed = true
            throw .done
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// One line of `records`: a stored reading, or a band's heart-rate minute.
struct RecordRow {
    var device: MACAddress
    var kind: String
    /// When the reading was taken: corrected by the offset of its device's clock when the hub read one.
    var time: LayeredTimestamp
    var values: [(column: ReadingColumn, value: RecordValue)]
    /// The statuses the device reported, by name (`bodyMovement`), in bit order.
    var status: [String] = []
    /// The fields the device sent a special value for, by column field name, with the value's name
    /// (`("systolic", "NaN")`): their cells are empty.
    var unavailable: [(field: String, value: String)] = []
    /// The time the device's clock gave, when `time` is that time corrected.
    var deviceTime: LayeredTimestamp?

    init(_ stored: StoredReading) {
        self.init(
            device: stored.device, kind: stored.reading.kind.rawValue, time: stored.reading.measuredAt,
            values: ReadingColumn.values(of: stored.reading))
        let annotations = stored.reading.annotations
        guard !annotations.isEmpty else { return }
        status = annotations.status.names
        unavailable = stored.reading.unavailableFields.compactMap { field, value in
            (field.column?.field ?? field.name).map { ($0, value.description) }
        }
        deviceTime = annotations.deviceTime
    }

    init(
        device: MACAddress, kind: String, time: LayeredTimestamp,
        values: [(column: ReadingColumn, value: RecordValue)]
    ) {
        self.device = device
        self.kind = kind
        self.time = time
        self.values = values
    }

    /// The `flags` cell: the status names, then each unavailable field as `field=value`, separated by single spaces
    /// (`bodyMovement irregularPulse systolic=NaN`), so that the cell needs no quoting in CSV, whatever the
    /// delimiter; empty when the device said nothing beyond the values.
    var flags: String {
        (status + unavailable.map { "\($0.field)=\($0.value)" }).joined(separator: " ")
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
                    time: LayeredTimestamp(secondsSince1970: start + Int64(minute) * 60),
                    values: [(.heartRate, .number(Double($0)))])
            }
        }
    }
}

/// The three forms of `records`, written one row at a time.
enum RecordsFormatter {
    /// The CSV header: device, kind, time (then `device_time_utc` with `deviceTime`, `records --device-time`), every
    /// column, and `flags`.
    static func csvHeader(deviceTime: Bool = false) -> String {
        (["device", "kind", "measured_at_utc"] + (deviceTime ? ["device_time_utc"] : [])
            + ReadingColumn.allCases.map(\.name) + ["flags"]).joined(separator: ",") + "\r\n"
    }

    /// Appends one CSV record (RFC 4180, CRLF-terminated): device, kind, time, then every column, empty where the
    /// reading has no such field or the device could not measure it, then `flags` (`RecordRow.flags`). No field
    /// needs quoting: MACs, kind names, times, numbers and flags have no comma, quote or line break.
    ///
    /// With `deviceTime` (`records --device-time`), the time the device's clock gave follows the time: empty when
    /// it is the reading's time.
    static func appendCSVRow(_ row: RecordRow, deviceTime: Bool = false, to output: inout [UInt8]) {
        output.append(contentsOf: row.device.description.utf8)
        output.append(UInt8(ascii: ","))
        output.append(contentsOf: row.kind.utf8)
        output.append(UInt8(ascii: ","))
        output.append(contentsOf: row.time.description.utf8)
        if deviceTime {
            output.append(UInt8(ascii: ","))
            if let time = row.deviceTime { output.append(contentsOf: time.description.utf8) }
        }
        var next = 0
        for (column, value) in row.values {
            while next <= column.rawValue {
                output.append(UInt8(ascii: ","))
                next += 1
            }
            append(value, to: &output)
        }
        while next <= ReadingColumn.count {
            output.append(UInt8(ascii: ","))
            next += 1
        }
        if !row.status.isEmpty || !row.unavailable.isEmpty { output.append(contentsOf: row.flags.utf8) }
        output.append(contentsOf: [UInt8(ascii: "\r"), UInt8(ascii: "\n")])
    }

    /// Appends `value` as ``RecordValue/text`` writes it, whole numbers digit by digit.
    static func append(_ value: RecordValue, to output: inout [UInt8]) {
        guard case .number(let number) = value, number == number.rounded(), abs(number) < 1e15 else {
            output.append(contentsOf: value.text.utf8)
            return
        }
        var whole = Int64(number)
        if whole < 0 {
            output.append(UInt8(ascii: "-"))
            whole = -whole
        }
        let start = output.count
        repeat {
            output.append(UInt8(ascii: "0") + UInt8(whole % 10))
            whole /= 10
        } while whole > 0
        output[start...].reverse()
    }

    /// One JSON object: `device`, `kind`, `measured_at_utc`, `device_time_utc` when the device's clock gave
    /// another time, and the reading's own columns, numbers as numbers; then, only when the device said so,
    /// `flags`, its statuses by name (`["bodyMovement"]`), and `unavailable`, each field it could not measure with
    /// the special value it sent (`{"systolic":"NaN"}`), whose column is left out.
    static func jsonObject(_ row: RecordRow) -> String {
        var members = [
            "\"device\":\"\(row.device)\"", "\"kind\":\"\(row.kind)\"", "\"measured_at_utc\":\"\(row.time)\"",
        ]
        if let deviceTime = row.deviceTime { members.append("\"device_time_utc\":\"\(deviceTime)\"") }
        for (column, value) in row.values {
            members.append("\"\(column.name)\":\(value.json)")
        }
        if !row.status.isEmpty {
            members.append("\"flags\":[" + row.status.map { "\"\($0)\"" }.joined(separator: ",") + "]")
        }
        if !row.unavailable.isEmpty {
            members.append(
                "\"unavailable\":{" + row.unavailable.map { "\"\($0.field)\":\"\($0.value)\"" }.joined(separator: ",")
                    + "}")
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    static let tableHeader =
        "device        kind               measured at (UTC)    values\n"
        + "------------  -----------------  -------------------  ------\n"

    /// One table line: fixed-width device, kind and time (so the table streams), then `field=value unit` pairs,
    /// a field the device could not measure as `field=NaN` (the special value's name, never a number), the
    /// statuses in brackets (`systolic=NaN, diastolic=80 mmHg [bodyMovement]`), then `(device clock: time)` when
    /// the device's clock gave another time.
    static func tableRow(_ row: RecordRow) -> String {
        var values = row.values.map { column, value in
            if case .samples(let samples) = value { return "\(column.field)=\(samples.count) samples" }
            return "\(column.field)=\(value.text)"
                + (column.unit.isEmpty ? "" : (column.unit == "%" ? "%" : " \(column.unit)"))
        }
        values += row.unavailable.map { "\($0.field)=\($0.value)" }
        let status = row.status.isEmpty ? "" : " [\(row.status.joined(separator: ", "))]"
        let deviceTime = row.deviceTime.map { "  (device clock: \($0))" } ?? ""
        return "\(row.device)  \(row.kind.padding(toLength: 17, withPad: " ", startingAt: 0))  "
            + "\(row.time)  \(values.joined(separator: ", "))\(status)\(deviceTime)\n"
    }
}
