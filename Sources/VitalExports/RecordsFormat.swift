import VitalCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A field's value as `records` writes it.
public enum RecordValue: Sendable {
    /// A number: a measurement, a count.
    case number(Double)
    /// A yes or no.
    case flag(Bool)
    /// Text without commas, quotes or line breaks (a band day's sports).
    case text(String)
    /// A pulse wave's samples: a JSON list, space-separated in CSV (`12 40 77`), their count in the table.
    case samples([Int])
}

extension ReadingColumn {
    /// How many columns there are.
    public static let count = allCases.count

    /// The fields `reading` has, in column order.
    public static func values(of reading: Reading) -> [(column: ReadingColumn, value: RecordValue)] {
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
    public init?(_ value: FieldValue) {
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
    public var text: String {
        switch self {
        case .number(let number):
            number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : "\(number)"
        case .flag(let flag): flag ? "true" : "false"
        case .text(let text): text
        case .samples(let samples): samples.map(String.init).joined(separator: " ")
        }
    }

    /// The value as a JSON value: text as a string, samples as an array, numbers and flags as ``text`` writes them.
    public var json: JSON {
        switch self {
        case .text(let text): .string(text)
        case .samples(let samples): .array(samples.map { .number($0) })
        case .flag(let flag): .bool(flag)
        case .number: .number(text)
        }
    }
}

/// One line of `records`: a stored reading, or a band's heart-rate minute.
public struct RecordRow: Sendable {
    /// The device that measured it.
    public var device: MACAddress
    /// The reading's kind (`blood_pressure`), or `heart_rate_minute`.
    public var kind: String
    /// When the reading was taken: corrected by the offset of its device's clock when the hub read one.
    public var time: Timestamp
    /// The reading's fields, in column order.
    public var values: [(column: ReadingColumn, value: RecordValue)]
    /// The statuses the device reported, by name (`bodyMovement`), in bit order.
    public var status: [String] = []
    /// The fields the device sent a special value for, by column field name, with the value's name
    /// (`("systolic", "NaN")`): their cells are empty.
    public var unavailable: [(field: String, value: String)] = []
    /// The time the device's clock gave, when `time` is that time corrected.
    public var deviceTime: Timestamp?

    /// The row of `reading`, measured by `device`.
    public init(device: MACAddress, reading: Reading) {
        self.init(
            device: device, kind: reading.kind.rawValue, time: reading.measuredAt,
            values: ReadingColumn.values(of: reading))
        let annotations = reading.annotations
        guard !annotations.isEmpty else { return }
        status = annotations.status.names
        unavailable = reading.unavailableFields.compactMap { field, value in
            (field.column?.field ?? field.name).map { ($0, value.description) }
        }
        deviceTime = annotations.deviceTime
    }

    /// A row of `values`, with no status.
    public init(
        device: MACAddress, kind: String, time: Timestamp,
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
    public var flags: String {
        (status + unavailable.map { "\($0.field)=\($0.value)" }).joined(separator: " ")
    }
}

/// The three forms of `records`, written one row at a time.
public enum RecordsFormatter {
    /// The CSV header: device, kind, time (then `device_time_utc` with `deviceTime`, `records --device-time`), every
    /// column, and `flags`.
    public static func csvHeader(deviceTime: Bool = false) -> String {
        (["device", "kind", "measured_at_utc"] + (deviceTime ? ["device_time_utc"] : [])
            + ReadingColumn.allCases.map(\.name) + ["flags"]).joined(separator: ",") + "\r\n"
    }

    /// Appends one CSV record (RFC 4180, CRLF-terminated): device, kind, time, then every column, empty where the
    /// reading has no such field or the device could not measure it, then `flags` (`RecordRow.flags`). No field
    /// needs quoting: MACs, kind names, times, numbers and flags have no comma, quote or line break.
    ///
    /// With `deviceTime` (`records --device-time`), the time the device's clock gave follows the time: empty when
    /// it is the reading's time.
    public static func appendCSVRow(_ row: RecordRow, deviceTime: Bool = false, to output: inout [UInt8]) {
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
    public static func append(_ value: RecordValue, to output: inout [UInt8]) {
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
    public static func jsonObject(_ row: RecordRow) -> JSON {
        var members: [(key: String, value: JSON)] = [
            ("device", .string(row.device.description)), ("kind", .string(row.kind)),
            ("measured_at_utc", .string(row.time.description)),
        ]
        if let deviceTime = row.deviceTime { members.append(("device_time_utc", .string(deviceTime.description))) }
        for (column, value) in row.values { members.append((column.name, value.json)) }
        if !row.status.isEmpty { members.append(("flags", .array(row.status.map { .string($0) }))) }
        if !row.unavailable.isEmpty {
            members.append(("unavailable", .object(row.unavailable.map { ($0.field, .string($0.value)) })))
        }
        return .object(members)
    }

    /// The table's two header lines.
    public static let tableHeader =
        "device        kind               measured at (UTC)    values\n"
        + "------------  -----------------  -------------------  ------\n"

    /// One table line: fixed-width device, kind and time (so the table streams), then `field=value unit` pairs,
    /// a field the device could not measure as `field=NaN` (the special value's name, never a number), the
    /// statuses in brackets (`systolic=NaN, diastolic=80 mmHg [body movement]`), then `(device clock: time)` when
    /// the device's clock gave another time.
    public static func tableRow(_ row: RecordRow) -> String {
        var values = row.values.map { column, value in
            if case .samples(let samples) = value { return "\(column.field)=\(samples.count) samples" }
            return "\(column.field)=\(value.text)"
                + (column.unit.isEmpty ? "" : (column.unit == "%" ? "%" : " \(column.unit)"))
        }
        values += row.unavailable.map { "\($0.field)=\($0.value)" }
        let status = row.status.isEmpty ? "" : " [\(row.status.map(ReadingStatus.words).joined(separator: ", "))]"
        let deviceTime = row.deviceTime.map { "  (device clock: \($0))" } ?? ""
        return "\(row.device)  \((row.kind + String(repeating: " ", count: 17)).prefix(17))  "
            + "\(row.time)  \(values.joined(separator: ", "))\(status)\(deviceTime)\n"
    }
}

/// The change feed's lines, as `vitalbridge changes` prints them and the sinks publish them.
public enum ChangeFeedFormat {
    /// One line of the feed: `{"cursor":…,"op":…,"hub":…,"id":…,"version":…,"device":…}`, then `person`, `reading`
    /// (as ``RecordsFormatter/jsonObject(_:)`` writes it) and `reason` when the change has them, and a newline.
    public static func appendLine(_ change: ReadingChange, hub: String, to bytes: inout [UInt8]) {
        var members: [(key: String, value: JSON)] = [
            ("cursor", .string(FeedCursor(hubID: hub, sequence: change.sequence).description)),
            ("op", .string(change.operation.rawValue)), ("hub", .string(hub)), ("id", .number(change.readingID)),
            ("version", .number(change.version)), ("device", .string(change.device.description)),
        ]
        if let person = change.person { members.append(("person", .string(person))) }
        if let reading = change.reading {
            members.append(("reading", RecordsFormatter.jsonObject(RecordRow(device: change.device, reading: reading))))
        }
        if let reason = change.reason { members.append(("reason", .string(reason))) }
        bytes += JSON.object(members).serialized(pretty: false)
        bytes.append(UInt8(ascii: "\n"))
    }
}
