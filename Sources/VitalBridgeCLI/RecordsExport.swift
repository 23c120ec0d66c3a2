import LayeredProtocol
import VitalStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One field of a reading as `records` shows it, in canonical units; a column of the CSV.
enum ReadingColumn: Int, CaseIterable {
    case systolic, diastolic, heartRate, arrhythmia, glucose, weight, spo2, perfusionIndex, temperature, steps
    case calories, sleep, sleepEfficiency, swim, swimCalories

    enum Value {
        case number(Double)
        case flag(Bool)
    }

    /// The field alone, for the table: `systolic`.
    var field: String {
        switch self {
        case .systolic: "systolic"
        case .diastolic: "diastolic"
        case .heartRate: "heart_rate"
        case .arrhythmia: "arrhythmia"
        case .glucose: "glucose"
        case .weight: "weight"
        case .spo2: "spo2"
        case .perfusionIndex: "perfusion_index"
        case .temperature: "temperature"
        case .steps: "steps"
        case .calories: "calories"
        case .sleep: "sleep"
        case .sleepEfficiency: "sleep_efficiency"
        case .swim: "swim"
        case .swimCalories: "swim_calories"
        }
    }

    /// The unit as a person reads it (`mmHg`, `mg/dL`, `%`); empty for a count or a flag.
    var unit: String {
        switch self {
        case .systolic, .diastolic: "mmHg"
        case .heartRate: "bpm"
        case .arrhythmia, .steps: ""
        case .glucose: "mg/dL"
        case .weight: "kg"
        case .spo2, .perfusionIndex, .sleepEfficiency: "%"
        case .temperature: "°C"
        case .calories, .swimCalories: "kcal"
        case .sleep, .swim: "min"
        }
    }

    /// The CSV header and JSON key: the field with its unit, `systolic_mmHg`, `glucose_mg_dL`.
    var name: String {
        switch unit {
        case "": field
        case "%": field + "_percent"
        case "°C": field + "_C"
        case "mg/dL": field + "_mg_dL"
        default: field + "_" + unit
        }
    }

    /// The fields `reading` has, in column order.
    static func values(of reading: LayeredReading) -> [(column: ReadingColumn, value: Value)] {
        switch reading {
        case .bloodPressure(let bp):
            var values: [(ReadingColumn, Value)] = [
                (.systolic, .number(bp.systolic)), (.diastolic, .number(bp.diastolic)),
            ]
            if let rate = bp.heartRate { values.append((.heartRate, .number(Double(rate)))) }
            if let flag = bp.arrhythmia { values.append((.arrhythmia, .flag(flag))) }
            return values
        case .glucose(let glucose): return [(.glucose, .number(glucose.mgPerDeciliter))]
        case .weight(let weight): return [(.weight, .number(weight.kilograms))]
        case .oximetry(let oximetry):
            var values: [(ReadingColumn, Value)] = [
                (.heartRate, .number(Double(oximetry.heartRate))), (.spo2, .number(Double(oximetry.oxygenSaturation))),
            ]
            if let index = oximetry.perfusionIndex { values.append((.perfusionIndex, .number(index))) }
            return values
        case .temperature(let temperature): return [(.temperature, .number(temperature.celsius))]
        case .activity(let day):
            var values: [(ReadingColumn, Value)] = [
                (.steps, .number(Double(day.steps))), (.calories, .number(Double(day.calories))),
                (.sleep, .number(Double(day.sleepMinutes))), (.sleepEfficiency, .number(Double(day.sleepEfficiency))),
            ]
            if let minutes = day.swimMinutes { values.append((.swim, .number(Double(minutes)))) }
            if let calories = day.swimCalories { values.append((.swimCalories, .number(Double(calories)))) }
            return values
        }
    }
}

extension ReadingColumn.Value {
    /// The value as CSV, JSON and the table write it: whole numbers without a fraction, others in Swift's shortest
    /// exact form (readings are finite), flags as `true`/`false`.
    var text: String {
        switch self {
        case .number(let number):
            number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : "\(number)"
        case .flag(let flag): flag ? "true" : "false"
        }
    }
}

/// Writes `records` output to standard output as it is produced, 64 KiB at a time, so that any number of readings
/// takes the same memory.
struct StreamingOutput {
    private var buffer: [UInt8] = []

    init() { buffer.reserveCapacity(1 << 16) }

    mutating func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    /// Lets `body` append bytes to the buffer, then flushes it if it is full.
    mutating func append(_ body: (inout [UInt8]) -> Void) {
        body(&buffer)
        if buffer.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        guard !buffer.isEmpty else { return }
        guard writeAll(buffer, to: 1) else {
            // a closed pipe (`records | head`) ends the listing
            exit(0)
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// The three forms of `records`, written one reading at a time.
enum RecordsFormatter {
    static var csvHeader: String {
        (["device", "kind", "measured_at_utc"] + ReadingColumn.allCases.map(\.name)).joined(separator: ",") + "\r\n"
    }

    /// Appends one CSV record (RFC 4180, CRLF-terminated): device, kind, time, then every column, empty where the
    /// reading has no such field. No field needs quoting: MACs, kind names, times and numbers have no comma,
    /// quote or line break.
    static func appendCSVRow(_ stored: StoredReading, to output: inout [UInt8]) {
        output.append(contentsOf: stored.device.description.utf8)
        output.append(UInt8(ascii: ","))
        output.append(contentsOf: stored.reading.kind.utf8)
        output.append(UInt8(ascii: ","))
        output.append(contentsOf: stored.reading.measuredAt.description.utf8)
        var next = 0
        for (column, value) in ReadingColumn.values(of: stored.reading) {
            while next <= column.rawValue {
                output.append(UInt8(ascii: ","))
                next += 1
            }
            append(value, to: &output)
        }
        while next < ReadingColumn.allCases.count {
            output.append(UInt8(ascii: ","))
            next += 1
        }
        output.append(contentsOf: [UInt8(ascii: "\r"), UInt8(ascii: "\n")])
    }

    /// Appends `value` as ``ReadingColumn/Value/text`` writes it, whole numbers digit by digit.
    static func append(_ value: ReadingColumn.Value, to output: inout [UInt8]) {
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

    /// One JSON object: `device`, `kind`, `measured_at_utc` and the reading's own columns, numbers as numbers.
    static func jsonObject(_ stored: StoredReading) -> String {
        var members = [
            "\"device\":\"\(stored.device)\"", "\"kind\":\"\(stored.reading.kind)\"",
            "\"measured_at_utc\":\"\(stored.reading.measuredAt)\"",
        ]
        for (column, value) in ReadingColumn.values(of: stored.reading) {
            members.append("\"\(column.name)\":\(value.text)")
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    static let tableHeader =
        "device        kind            measured at (UTC)    values\n"
        + "------------  --------------  -------------------  ------\n"

    /// One table line: fixed-width device, kind and time (so the table streams), then `field=value unit` pairs.
    static func tableRow(_ stored: StoredReading) -> String {
        let values = ReadingColumn.values(of: stored.reading).map { column, value in
            "\(column.field)=\(value.text)"
                + (column.unit.isEmpty ? "" : (column.unit == "%" ? "%" : " \(column.unit)"))
        }
        let kind = stored.reading.kind
        return "\(stored.device)  \(kind.padding(toLength: 14, withPad: " ", startingAt: 0))  "
            + "\(stored.reading.measuredAt)  \(values.joined(separator: ", "))\n"
    }
}
