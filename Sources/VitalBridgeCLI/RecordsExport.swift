import LayeredProtocol
import VitalStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One field of a reading as `records` shows it: a column named with its unit (`systolic_mmHg`), in canonical units.
struct ReadingColumn {
    enum Value {
        case number(Double)
        case flag(Bool)
    }

    /// The CSV header and JSON key: the field and its unit, `systolic_mmHg`.
    let name: String
    /// The field alone, for the table: `systolic`.
    let field: String
    /// The unit as a person reads it (`mmHg`, `mg/dL`, `%`); empty for a count or a flag.
    let unit: String

    init(_ field: String, _ unit: String, suffix: String? = nil) {
        self.field = field
        self.unit = unit
        name = suffix.map { "\(field)_\($0)" } ?? field
    }

    static let systolic = ReadingColumn("systolic", "mmHg", suffix: "mmHg")
    static let diastolic = ReadingColumn("diastolic", "mmHg", suffix: "mmHg")
    static let heartRate = ReadingColumn("heart_rate", "bpm", suffix: "bpm")
    static let arrhythmia = ReadingColumn("arrhythmia", "")
    static let glucose = ReadingColumn("glucose", "mg/dL", suffix: "mg_dL")
    static let weight = ReadingColumn("weight", "kg", suffix: "kg")
    static let spo2 = ReadingColumn("spo2", "%", suffix: "percent")
    static let perfusionIndex = ReadingColumn("perfusion_index", "%", suffix: "percent")
    static let temperature = ReadingColumn("temperature", "°C", suffix: "C")
    static let steps = ReadingColumn("steps", "")
    static let calories = ReadingColumn("calories", "kcal", suffix: "kcal")
    static let sleep = ReadingColumn("sleep", "min", suffix: "min")
    static let sleepEfficiency = ReadingColumn("sleep_efficiency", "%", suffix: "percent")
    static let swim = ReadingColumn("swim", "min", suffix: "min")
    static let swimCalories = ReadingColumn("swim_calories", "kcal", suffix: "kcal")

    /// Every column, in the CSV's order.
    static let all: [ReadingColumn] = [
        .systolic, .diastolic, .heartRate, .arrhythmia, .glucose, .weight, .spo2, .perfusionIndex, .temperature, .steps,
        .calories, .sleep, .sleepEfficiency, .swim, .swimCalories,
    ]

    /// The fields of `reading` that it has, by column position in ``all``.
    static func values(of reading: LayeredReading) -> [(column: Int, value: Value)] {
        func at(_ column: ReadingColumn) -> Int { all.firstIndex { $0.name == column.name }! }
        var values: [(Int, Value)] = []
        func add(_ column: ReadingColumn, _ value: Value?) { if let value { values.append((at(column), value)) } }
        switch reading {
        case .bloodPressure(let bp):
            add(.systolic, .number(bp.systolic))
            add(.diastolic, .number(bp.diastolic))
            add(.heartRate, bp.heartRate.map { .number(Double($0)) })
            add(.arrhythmia, bp.arrhythmia.map(Value.flag))
        case .glucose(let glucose): add(.glucose, .number(glucose.mgPerDeciliter))
        case .weight(let weight): add(.weight, .number(weight.kilograms))
        case .oximetry(let oximetry):
            add(.spo2, .number(Double(oximetry.oxygenSaturation)))
            add(.heartRate, .number(Double(oximetry.heartRate)))
            add(.perfusionIndex, oximetry.perfusionIndex.map(Value.number))
        case .temperature(let temperature): add(.temperature, .number(temperature.celsius))
        case .activity(let day):
            add(.steps, .number(Double(day.steps)))
            add(.calories, .number(Double(day.calories)))
            add(.sleep, .number(Double(day.sleepMinutes)))
            add(.sleepEfficiency, .number(Double(day.sleepEfficiency)))
            add(.swim, day.swimMinutes.map { .number(Double($0)) })
            add(.swimCalories, day.swimCalories.map { .number(Double($0)) })
        }
        return values
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

/// The kind of a reading as `records` names it: `blood_pressure`, `glucose`, `weight`, `oximetry`, `temperature`,
/// `activity`.
func kindName(_ reading: LayeredReading) -> String {
    switch reading {
    case .bloodPressure: "blood_pressure"
    case .glucose: "glucose"
    case .weight: "weight"
    case .oximetry: "oximetry"
    case .temperature: "temperature"
    case .activity: "activity"
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
    /// A CSV field, quoted as RFC 4180 asks when it holds a comma, a quote or a line break.
    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static var csvHeader: String {
        (["device", "kind", "measured_at_utc"] + ReadingColumn.all.map(\.name)).joined(separator: ",") + "\r\n"
    }

    /// One CSV record (CRLF-terminated, RFC 4180): device, kind, time, then every column, empty where the reading
    /// has no such field.
    static func csvRow(_ stored: StoredReading) -> String {
        var cells = [String](repeating: "", count: ReadingColumn.all.count)
        for (column, value) in ReadingColumn.values(of: stored.reading) { cells[column] = value.text }
        let leading = [stored.device.description, kindName(stored.reading), stored.reading.measuredAt.description]
        return (leading + cells).map(csvField).joined(separator: ",") + "\r\n"
    }

    /// One JSON object: `device`, `kind`, `measured_at_utc` and the reading's own columns, numbers as numbers.
    static func jsonObject(_ stored: StoredReading) -> String {
        var members = [
            "\"device\":\"\(stored.device)\"", "\"kind\":\"\(kindName(stored.reading))\"",
            "\"measured_at_utc\":\"\(stored.reading.measuredAt)\"",
        ]
        for (column, value) in ReadingColumn.values(of: stored.reading) {
            members.append("\"\(ReadingColumn.all[column].name)\":\(value.text)")
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    static let tableHeader =
        "device        kind            measured at (UTC)    values\n"
        + "------------  --------------  -------------------  ------\n"

    /// One table line: fixed-width device, kind and time (so the table streams), then `field=value unit` pairs.
    static func tableRow(_ stored: StoredReading) -> String {
        let values = ReadingColumn.values(of: stored.reading).map { column, value in
            let info = ReadingColumn.all[column]
            return "\(info.field)=\(value.text)" + (info.unit.isEmpty ? "" : (info.unit == "%" ? "%" : " \(info.unit)"))
        }
        let kind = kindName(stored.reading)
        return "\(stored.device)  \(kind.padding(toLength: 14, withPad: " ", startingAt: 0))  "
            + "\(stored.reading.measuredAt)  \(values.joined(separator: ", "))\n"
    }
}
