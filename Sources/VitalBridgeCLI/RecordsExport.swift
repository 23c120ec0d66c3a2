import LayeredProtocol
import VitalCore
import VitalDevices
import VitalStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One field of a reading as `records` shows it, in canonical units; a column of the CSV.
enum ReadingColumn: Int, CaseIterable {
    case systolic, diastolic, heartRate, arrhythmia, glucose, weight, spo2, perfusionIndex, temperature, steps
    case calories, sleep, sleepEfficiency, swim, swimCalories, distance, deepSleep, lightSleep, awake
    case heartRateMinimum, heartRateAverage, heartRateMaximum, heartRateMinutes, sports, rrIntervals
    case bodyFat, musclePercentage, muscleMass, fatFreeMass, softLeanMass, bodyWaterMass, basalMetabolism, impedance

    enum Value {
        case number(Double)
        case flag(Bool)
        /// Text without commas, quotes or line breaks (a band day's sports).
        case text(String)
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
        case .distance: "distance"
        case .deepSleep: "deep_sleep"
        case .lightSleep: "light_sleep"
        case .awake: "awake"
        case .heartRateMinimum: "heart_rate_min"
        case .heartRateAverage: "heart_rate_avg"
        case .heartRateMaximum: "heart_rate_max"
        case .heartRateMinutes: "heart_rate_minutes"
        case .sports: "sports"
        case .rrIntervals: "rr_intervals"
        case .bodyFat: "body_fat"
        case .musclePercentage: "muscle"
        case .muscleMass: "muscle_mass"
        case .fatFreeMass: "fat_free_mass"
        case .softLeanMass: "soft_lean_mass"
        case .bodyWaterMass: "body_water_mass"
        case .basalMetabolism: "basal_metabolism"
        case .impedance: "impedance"
        }
    }

    /// The unit as a person reads it (`mmHg`, `mg/dL`, `%`); empty for a count or a flag.
    var unit: String {
        switch self {
        case .systolic, .diastolic: "mmHg"
        case .heartRate, .heartRateMinimum, .heartRateAverage, .heartRateMaximum: "bpm"
        case .arrhythmia, .steps, .heartRateMinutes, .sports, .rrIntervals: ""
        case .distance: "m"
        case .glucose: "mg/dL"
        case .weight, .muscleMass, .fatFreeMass, .softLeanMass, .bodyWaterMass: "kg"
        case .spo2, .perfusionIndex, .sleepEfficiency, .bodyFat, .musclePercentage: "%"
        case .basalMetabolism: "kJ"
        case .impedance: "ohm"
        case .temperature: "°C"
        case .calories, .swimCalories: "kcal"
        case .sleep, .swim, .deepSleep, .lightSleep, .awake: "min"
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
        case .weight(let weight):
            var values: [(ReadingColumn, Value)] = [(.weight, .number(weight.kilograms))]
            if let composition = weight.bodyComposition {
                let quantities: [(ReadingColumn, Double?)] = [
                    (.bodyFat, composition.bodyFatPercentage), (.musclePercentage, composition.musclePercentage),
                    (.muscleMass, composition.muscleMass), (.fatFreeMass, composition.fatFreeMass),
                    (.softLeanMass, composition.softLeanMass), (.bodyWaterMass, composition.bodyWaterMass),
                    (.basalMetabolism, composition.basalMetabolism.map(Double.init)),
                    (.impedance, composition.impedance),
                ]
                for case (let column, let value?) in quantities { values.append((column, .number(value))) }
            }
            return values
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
        case .band(let day):
            func number(_ value: Int) -> Value { .number(Double(value)) }
            var values: [(ReadingColumn, Value)] = [
                (.steps, number(day.steps)), (.calories, number(day.calories)),
                (.sleep, number(day.sleep.minutes)), (.sleepEfficiency, number(day.sleep.efficiency)),
                (.distance, number(day.distance)), (.deepSleep, number(day.sleep.deep)),
                (.lightSleep, number(day.sleep.light)), (.awake, number(day.sleep.awake)),
            ]
            if let rate = day.heartRate {
                values += [
                    (.heartRateMinimum, number(rate.minimum)), (.heartRateAverage, number(rate.average)),
                    (.heartRateMaximum, number(rate.maximum)), (.heartRateMinutes, number(rate.minutes)),
                ]
            }
            if !day.sports.isEmpty {
                // `type start-end kcal`, e.g. `1 08:10-08:45 120kcal; 128 18:00-18:40 300kcal`
                let text = day.sports.map { sport in
                    "\(sport.type) \(BandDay.timeOfDay(sport.start).prefix(5))-\(BandDay.timeOfDay(sport.end).prefix(5)) "
                        + "\(sport.calories)kcal"
                }
                values.append((.sports, .text(text.joined(separator: "; "))))
            }
            return values
        case .heartRate(let reading):
            // the intervals' count: the series itself is in the store, and `vitalbridge hrv` reads one
            return [
                (.heartRate, .number(Double(reading.heartRate))),
                (.rrIntervals, .number(Double(reading.rrIntervals.count))),
            ]
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
        case .text(let text): text
        }
    }

    /// The value as a JSON value: text quoted, numbers and flags as they are.
    var json: String {
        if case .text(let text) = self { "\"\(text)\"" } else { self.text }
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
    var time: LayeredTimestamp
    var values: [(column: ReadingColumn, value: ReadingColumn.Value)]

    init(_ stored: StoredReading) {
        self.init(
            device: stored.device, kind: stored.reading.kind, time: stored.reading.measuredAt,
            values: ReadingColumn.values(of: stored.reading))
    }

    init(
        device: MACAddress, kind: String, time: LayeredTimestamp,
        values: [(column: ReadingColumn, value: ReadingColumn.Value)]
    ) {
        self.device = device
        self.kind = kind
        self.time = time
        self.values = values
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
    static var csvHeader: String {
        (["device", "kind", "measured_at_utc"] + ReadingColumn.allCases.map(\.name)).joined(separator: ",") + "\r\n"
    }

    /// Appends one CSV record (RFC 4180, CRLF-terminated): device, kind, time, then every column, empty where the
    /// reading has no such field. No field needs quoting: MACs, kind names, times and numbers have no comma,
    /// quote or line break.
    static func appendCSVRow(_ row: RecordRow, to output: inout [UInt8]) {
        output.append(contentsOf: row.device.description.utf8)
        output.append(UInt8(ascii: ","))
        output.append(contentsOf: row.kind.utf8)
        output.append(UInt8(ascii: ","))
        output.append(contentsOf: row.time.description.utf8)
        var next = 0
        for (column, value) in row.values {
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
    static func jsonObject(_ row: RecordRow) -> String {
        var members = [
            "\"device\":\"\(row.device)\"", "\"kind\":\"\(row.kind)\"", "\"measured_at_utc\":\"\(row.time)\"",
        ]
        for (column, value) in row.values {
            members.append("\"\(column.name)\":\(value.json)")
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    static let tableHeader =
        "device        kind               measured at (UTC)    values\n"
        + "------------  -----------------  -------------------  ------\n"

    /// One table line: fixed-width device, kind and time (so the table streams), then `field=value unit` pairs.
    static func tableRow(_ row: RecordRow) -> String {
        let values = row.values.map { column, value in
            "\(column.field)=\(value.text)"
                + (column.unit.isEmpty ? "" : (column.unit == "%" ? "%" : " \(column.unit)"))
        }
        return "\(row.device)  \(row.kind.padding(toLength: 17, withPad: " ", startingAt: 0))  "
            + "\(row.time)  \(values.joined(separator: ", "))\n"
    }
}
