import VitalCore

/// The units a report shows each quantity in: blood pressure, glucose, weight and temperature. Stored readings are
/// canonical (mmHg, mg/dL, kg, °C) and converted, then rounded as a callback rounds them.
public struct ReportUnits: Hashable, Sendable {
    public var bloodPressure: VitalUnit = .mmHg
    public var glucose: VitalUnit = .mgPerDeciliter
    public var weight: VitalUnit = .kilogram
    public var temperature: VitalUnit = .celsius

    public init() {}

    /// Shows the quantity of `unit`'s category in `unit`.
    ///
    /// - Throws: ``ReportError`` for a unit of a category the report does not convert (km, miles).
    public mutating func set(_ unit: VitalUnit) throws(ReportError) {
        guard let quantity = Self.quantities.first(where: { self[keyPath: $0].category == unit.category }) else {
            throw ReportError(message: "the report has no quantity in \(unit)")
        }
        self[keyPath: quantity] = unit
    }

    private static let quantities: [any WritableKeyPath<Self, VitalUnit> & Sendable] = [
        \.bloodPressure, \.glucose, \.weight, \.temperature,
    ]
}

extension ReportUnits {
    /// The units a person named (`--unit` of `vitalbridge report`: `mmol/L`, `lb`, `F`…), one per quantity.
    ///
    /// - Throws: ``ReportError`` naming a text that is not a unit, two units of one quantity, or a unit of a
    ///   quantity the report does not convert.
    public init(userTexts texts: [String]) throws(ReportError) {
        self.init()
        var seen: [VitalCategory: String] = [:]
        for text in texts {
            guard let parsed = VitalUnit(userText: text) else {
                throw ReportError(message: "--unit \(text.debugDescription) is not a unit (\(VitalUnit.userTexts))")
            }
            if let earlier = seen[parsed.category] {
                throw ReportError(message: "--unit \(earlier) and --unit \(text) are units of the same quantity")
            }
            seen[parsed.category] = text
            do {
                try set(parsed)
            } catch {
                throw ReportError(message: "--unit \(text.debugDescription): \(error)")
            }
        }
    }
}

/// Why a report cannot be made.
public struct ReportError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// A report a person reads: one self-contained HTML page with a chart per quantity over time and the latest
/// readings, made from readings given one at a time.
///
/// The page needs no network and no script: its charts are inline SVG, its style is inline, and a
/// Content-Security-Policy forbids loading anything. Each chart has the data behind it as CSV, shown under the chart
/// and as a download link.
///
/// - Blood pressure: a line from diastolic to systolic per reading, over the 130/80 (dashed) and 140/90 (solid)
///   guideline thresholds, with the stage-1 bands between them shaded.
/// - Glucose: points over the 70–180 mg/dL target range.
/// - Weight: points and their least-squares trend line.
/// - SpO2: points, with 95 % marked. Temperature: points, with 38 °C marked.
/// - Steps and sleep: a bar per day (sleep stacked deep, light and awake for a smartband); a day two devices report
///   shows the larger total.
///
/// A chart draws one mark per reading (`class="point"`) until it holds more than `pointLimit` readings, then one per
/// day spanning the day's lowest to highest value, so that memory and the page stay bounded for any history.
///
/// A reading the device said something about (a status, or a value it could not measure: NaN, NRes, ±INF) is a
/// marked point (`class="point flagged"`, ringed), its tooltip and the chart's CSV (a `flags` column) naming what
/// the device said; a value it could not measure is never plotted as a number: a reading with no value left is a
/// triangle on the time axis (`class="point unmeasured"`). A chart with such marks has a legend explaining them.
/// A chart without them is drawn exactly as before.
public struct HealthReport {
    /// The latest reading of one quantity, for the table.
    struct Latest {
        var time: Int64
        /// Whether the value is a day's (steps, sleep), shown with its date alone.
        var wholeDay: Bool
        var value: String
        var device: String
    }

    let units: ReportUnits
    private let utcOffset: (Timestamp) -> Int
    private(set) var series: [Chart: TimeSeries] = [:]
    private(set) var days: [Chart: DaySeries] = [:]
    private(set) var latest: [String: Latest] = [:]
    private(set) var first: Int64?
    private(set) var last: Int64?
    /// How many readings the report was given.
    public private(set) var readings = 0

    /// An empty report showing quantities in `units`, its times in the local time of `utcOffset` (seconds east of
    /// UTC at each time), a chart drawing one mark per reading up to `pointLimit` readings.
    public init(
        units: ReportUnits = ReportUnits(), pointLimit: Int = 1_500, utcOffset: @escaping (Timestamp) -> Int
    ) {
        self.units = units
        self.utcOffset = utcOffset
        for chart in Chart.timeCharts {
            series[chart] = TimeSeries(limit: max(1, pointLimit))
        }
        days = [.steps: DaySeries(), .sleep: DaySeries()]
    }

    /// Adds `reading`, measured by `device` (shown in the table as `device`'s text). Readings are given oldest first,
    /// as the store reads them: a chart's marks and days follow that order.
    public mutating func add(_ reading: Reading, device: String) {
        readings += 1
        let time = reading.measuredAt.secondsSince1970 + Int64(utcOffset(reading.measuredAt))
        first = min(first ?? time, time)
        last = max(last ?? time, time)
        func note(_ quantity: String, _ value: String, day: CalendarDate) {
            latest[quantity] = Latest(time: day.daysSince1970 * 86_400, wholeDay: true, value: value, device: device)
        }
        // a day's totals have no special values; its statuses, if any, do not change its bars
        switch reading {
        case .activity(let day):
            days[.steps]!.add(day: day.date.daysSince1970, parts: [("steps", Double(day.steps))])
            days[.sleep]!.add(day: day.date.daysSince1970, parts: [("asleep", Double(day.sleepMinutes))])
            note("Steps", "\(day.steps)", day: day.date)
            note("Sleep", Self.hours(day.sleepMinutes), day: day.date)
        case .band(let day):
            days[.steps]!.add(day: day.date.daysSince1970, parts: [("steps", Double(day.steps))])
            days[.sleep]!.add(
                day: day.date.daysSince1970,
                parts: [
                    ("deep", Double(day.sleep.deep)), ("light", Double(day.sleep.light)),
                    ("awake", Double(day.sleep.awake)),
                ])
            note("Steps", "\(day.steps)", day: day.date)
            note("Sleep", Self.hours(day.sleep.deep + day.sleep.light), day: day.date)
            if !day.sports.isEmpty { note("Sports", Self.sports(day.sports), day: day.date) }
            if !day.sportTotals.isEmpty { note("Sport totals", Self.sportTotals(day.sportTotals), day: day.date) }
            if !day.sleepSegments.isEmpty {
                note("Sleep segments", Self.sleepSegments(day.sleepSegments), day: day.date)
            }
        default:
            addInstant(reading, time: time, device: device)
        }
    }

    /// Adds a reading of an instant as its kind's ``Readout`` says: a point (a line, for blood pressure) at its
    /// values, marked when the device said something about it (a value it could not measure is never plotted: a
    /// reading without any value to plot is a mark on the time axis), and its line in the latest readings.
    private mutating func addInstant(_ reading: Reading, time: Int64, device: String) {
        guard let readout = Readout.all.first(where: { $0.kind == reading.kind }) else { return }
        let annotations = reading.annotations
        let shown = Shown(
            reading: reading, reportUnit: readout.plot?.chart.unit.map { units[keyPath: $0] },
            unavailable: reading.unavailableFields)
        if let (chart, low, high) = readout.plot {
            let flags =
                annotations.status.names
                + shown.unavailable.map { field, value in "\(field.column?.field ?? field.name ?? "value")=\(value)" }
            series[chart]!.add(time: time, low: shown.number(low), high: shown.number(high), flags: flags)
        }
        let said = annotations.status.isEmpty ? "" : " (\(annotations.status.words.joined(separator: ", ")))"
        latest[readout.quantity] = Latest(
            time: time, wholeDay: false, value: readout.text(shown) + said, device: device)
    }

    static func hours(_ minutes: Int) -> String { "\(minutes / 60) h \(minutes % 60) min" }

    /// `value` with at most one fraction digit: `36.6`, `120`.
    static func number(_ value: Double) -> String {
        let tenths = Int64((value * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        return tenths % 10 == 0 ? "\(tenths / 10)" : "\(sign)\(abs(tenths) / 10).\(abs(tenths) % 10)"
    }
}

extension HealthReport {
    /// A band day's sports as the report's latest table shows them, `; `-separated: the band's sport code, the
    /// times, then what the band sent of calories, steps, metres, repetitions and activity
    /// (`sport 2 12:05–12:15 80 kcal, 220 reps, activity 10; sport 1 18:00–18:40 300 kcal, 4200 steps, 2940 m`).
    static func sports(_ sports: [BandDay.Sport]) -> String {
        sports.map { sport in
            let said = [
                "\(sport.calories) kcal", sport.steps.flatMap { $0 == 0 ? nil : "\($0) steps" },
                sport.distance.flatMap { $0 == 0 ? nil : "\($0) m" }, sport.count.map { "\($0) reps" },
                sport.activity.map { "activity \($0)" }, sport.detailDistance.map { "\($0) m in detail" },
            ]
            return
                "sport \(sport.type) \(BandDay.timeOfDay(sport.start).prefix(5))–\(BandDay.timeOfDay(sport.end).prefix(5)) "
                + said.compactMap { $0 }.joined(separator: ", ")
        }
        .joined(separator: "; ")
    }

    /// A band day's totals of each sport as the report's latest table shows them, `; `-separated
    /// (`sport 1 8421 steps, 312 kcal, 6120 m; sport 2 80 kcal, 220 reps`); zero steps and metres are left out.
    static func sportTotals(_ totals: [BandDay.SportTotal]) -> String {
        totals.map { total in
            let said = [
                total.steps == 0 ? nil : "\(total.steps) steps", "\(total.calories) kcal",
                total.distance == 0 ? nil : "\(total.distance) m", total.count.map { "\($0) reps" },
            ]
            return "sport \(total.type) " + said.compactMap { $0 }.joined(separator: ", ")
        }
        .joined(separator: "; ")
    }

    /// A band day's sleep segments as the report's latest table shows them, in order, `, `-separated: a mark at
    /// its minute, a segment with its times (`start 00:40, light 00:40–01:20, deep 01:20–02:05, end 06:40,
    /// placed 06:40–06:43`).
    static func sleepSegments(_ segments: [BandDay.SleepSegment]) -> String {
        segments.map { $0.text() }.joined(separator: ", ")
    }
}
