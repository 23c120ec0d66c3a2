import VitalCore

extension HealthReport {
    /// One chart of the report, described once: its id, title, unit, reference lines, note and how it draws its
    /// readings. The page asks the chart what to draw, never which chart it is.
    struct Chart: Hashable, Sendable {
        /// How a chart draws its readings.
        enum Shape: Equatable, Sendable {
            /// A point a reading (a day's range, when the chart has too many).
            case points
            /// A line from a reading's low to its high value, each end a named circle (`systolic`, `diastolic`).
            case ranges(high: String, low: String)
            /// A stack of bars a day.
            case bars
        }

        /// The id of its section and CSV file: `blood-pressure`, `spo2`.
        let id: String
        let shape: Shape
        /// What its CSV columns call the value: `pressure`, `spo2`.
        let column: String
        /// Its title before the unit (`Blood pressure`), or whole when it has no unit of the report's choice.
        let name: String
        /// The report's unit its values are in; `nil` for SpO2 (always %) and the day charts.
        let unit: (any KeyPath<ReportUnits, VitalUnit> & Sendable)?
        /// The value the plot never goes above (SpO2's 100 %).
        let ceiling: Double?
        /// Whether a least-squares trend line is drawn through the readings.
        let trend: Bool
        /// Its reference lines and bands, in the report's units.
        let references: @Sendable (ReportUnits) -> [Reference]
        /// What the note under the title says, of a reading a mark or (`daily`) a day a mark.
        let note: @Sendable (_ daily: Bool) -> String

        /// Its title in `units`: `Blood pressure (mmHg)`.
        func title(_ units: ReportUnits) -> String {
            unit.map { "\(name) (\(units[keyPath: $0]))" } ?? name
        }

        static func == (lhs: Self, rhs: Self) -> Bool { lhs.id == rhs.id }
        func hash(into hasher: inout Hasher) { hasher.combine(id) }

        /// The charts in the page's order.
        static let all: [Chart] = [.bloodPressure, .glucose, .weight, .oxygen, .temperature, .steps, .sleep]

        /// The charts of readings over time (not of days).
        static let timeCharts = all.filter { $0.shape != .bars }

        static let bloodPressure = Chart(
            id: "blood-pressure", shape: .ranges(high: "systolic", low: "diastolic"), column: "pressure",
            name: "Blood pressure", unit: \ReportUnits.bloodPressure, ceiling: nil, trend: false,
            references: { units in
                func pressure(_ mmHg: Double) -> Double { units.bloodPressure.fromCanonical(mmHg) }
                return [
                    Reference(low: pressure(130), high: pressure(140), label: "", style: "band stage1"),
                    Reference(low: pressure(80), high: pressure(90), label: "", style: "band stage1"),
                    Reference(low: pressure(130), label: "130/80", style: "line stage1"),
                    Reference(low: pressure(80), label: "130/80", style: "line stage1"),
                    Reference(low: pressure(140), label: "140/90", style: "line stage2"),
                    Reference(low: pressure(90), label: "140/90", style: "line stage2"),
                ]
            },
            note: { daily in
                (daily
                    ? "Each line spans a day's readings, from the lowest diastolic to the highest systolic."
                    : "Each line runs from diastolic to systolic.")
                    + " Dashed: 130/80, solid: 140/90 (the ACC/AHA 2017 stage 1 and stage 2 thresholds); the stage 1 "
                    + "bands are shaded."
            })

        static let glucose = Chart(
            id: "glucose", shape: .points, column: "glucose", name: "Glucose", unit: \ReportUnits.glucose, ceiling: nil,
            trend: false,
            references: { units in
                let unit = units.glucose
                return [
                    Reference(
                        low: unit.fromCanonical(70), high: unit.fromCanonical(180), label: "", style: "band target"),
                    Reference(
                        low: unit.fromCanonical(70),
                        label:
                            "\(HealthReport.number(unit.fromCanonical(70)))–\(HealthReport.number(unit.fromCanonical(180)))",
                        style: "line target"),
                ]
            },
            note: { eachMark($0) + " Shaded: the 70–180 mg/dL target range." })

        static let weight = Chart(
            id: "weight", shape: .points, column: "weight", name: "Weight", unit: \ReportUnits.weight, ceiling: nil,
            trend: true,
            references: { _ in [] }, note: { eachMark($0) + " The line is the least-squares trend." })

        static let oxygen = Chart(
            id: "spo2", shape: .points, column: "spo2", name: "SpO2 (%)", unit: nil, ceiling: 100, trend: false,
            references: { _ in [Reference(low: 95, label: "95 %", style: "line stage1")] },
            note: { eachMark($0) + " The line marks 95 %." })

        static let temperature = Chart(
            id: "temperature", shape: .points, column: "temperature", name: "Temperature",
            unit: \ReportUnits.temperature,
            ceiling: nil, trend: false,
            references: { units in
                let fever = units.temperature.fromCanonical(38)
                return [
                    Reference(
                        low: fever, label: "\(HealthReport.number(fever)) \(units.temperature)", style: "line stage2")
                ]
            },
            note: { eachMark($0) + " The line marks 38 °C." })

        static let steps = Chart(
            id: "steps", shape: .bars, column: "steps", name: "Daily steps", unit: nil, ceiling: nil, trend: false,
            references: { _ in [] }, note: { _ in "Steps a day; a day two devices report shows the larger count." })

        static let sleep = Chart(
            id: "sleep", shape: .bars, column: "sleep", name: "Sleep (hours)", unit: nil, ceiling: nil, trend: false,
            references: { _ in [] },
            note: { _ in "Hours asleep a day; a smartband's nights are split into deep, light and awake." })

        private static func eachMark(_ daily: Bool) -> String {
            daily ? "Each line spans a day's readings, lowest to highest." : "Each point is a reading."
        }
    }

    /// How the report shows a reading of an instant of one kind: the quantity its latest reading is listed under, the
    /// chart and fields it is plotted with, and its text. The report asks the readout, never which kind it has.
    struct Readout: Sendable {
        let kind: ReadingKind
        /// What the latest readings call it: `Blood pressure`.
        let quantity: String
        /// Its chart and the fields whose values are the low and high ends of its mark (the same field for a point);
        /// `nil` for a kind the report has no chart of.
        let plot: (chart: Chart, low: ReadingField, high: ReadingField)?
        /// Its text in the latest readings: `120/80 mmHg, pulse 71 bpm`.
        let text: @Sendable (Shown) -> String

        /// The readouts of the kinds of an instant.
        static let all: [Readout] = [
            Readout(
                kind: .bloodPressure, quantity: "Blood pressure", plot: (.bloodPressure, .diastolic, .systolic),
                text: {
                    "\($0.text(.systolic))/\($0.text(.diastolic)) \($0.unit)"
                        + $0.extra("pulse", .bloodPressurePulse, " bpm")
                }),
            Readout(
                kind: .glucose, quantity: "Glucose", plot: (.glucose, .bloodGlucose, .bloodGlucose),
                text: { "\($0.text(.bloodGlucose)) \($0.unit)" }),
            Readout(
                kind: .weight, quantity: "Weight", plot: (.weight, .bodyWeight, .bodyWeight),
                // a body fat the scale could not measure is left out
                text: {
                    "\($0.text(.bodyWeight)) \($0.unit)"
                        + ($0.missing(.bodyFat) == nil ? $0.extra("body fat", .bodyFat, " %") : "")
                }),
            Readout(
                kind: .oximetry, quantity: "SpO2", plot: (.oxygen, .oxygenSaturation, .oxygenSaturation),
                text: { "\($0.text(.oxygenSaturation, " %")), pulse \($0.text(.oximetryPulse, " bpm"))" }),
            Readout(
                kind: .temperature, quantity: "Temperature", plot: (.temperature, .bodyTemperature, .bodyTemperature),
                text: { "\($0.text(.bodyTemperature)) \($0.unit)" }),
            Readout(
                kind: .heartRate, quantity: "Heart rate", plot: nil,
                text: { shown in
                    let intervals = ReadingField.rrIntervals.value(in: shown.reading)
                    let count = if case .intervals(let rr) = intervals { rr.count } else { 0 }
                    return "\(shown.text(.recordedHeartRate, " bpm")), \(count) RR intervals"
                }),
        ]
    }

    /// A reading's values as the report shows them: a quantity converted to the report's unit and rounded as a
    /// callback rounds it, another as it is, and a value the device could not measure as its special value's name.
    struct Shown {
        let reading: Reading
        /// The report's unit of the reading's chart; `nil` when the chart has none.
        let reportUnit: VitalUnit?
        let unavailable: [(field: ReadingField, value: SpecialValue)]

        /// The report's unit, as text (`mmHg`); empty when the chart has none.
        var unit: String { reportUnit.map { "\($0)" } ?? "" }

        /// The special value the device sent for `field`, if it could not measure it.
        func missing(_ field: ReadingField) -> SpecialValue? { unavailable.first { $0.field === field }?.value }

        /// The value of `field` as a number to plot: converted and rounded when the field is; `nil` when the device
        /// could not measure it or the reading has none.
        func number(_ field: ReadingField) -> Double? {
            guard missing(field) == nil else { return nil }
            switch field.value(in: reading) {
            case .number(let value): return converted(value, field)?.value ?? value
            case .integer(let value): return Double(value)
            default: return nil
            }
        }

        /// The value of `field` as text, `suffix` after a value (not after a special value's name); empty when the
        /// reading has none.
        func text(_ field: ReadingField, _ suffix: String = "") -> String {
            if let special = missing(field) { return special.description }
            switch field.value(in: reading) {
            case .number(let value): return (converted(value, field)?.text ?? HealthReport.number(value)) + suffix
            case .integer(let value): return "\(value)" + suffix
            default: return ""
            }
        }

        /// `, label value` for `field`, its special value's name if the device could not measure it; empty when the
        /// reading has none.
        func extra(_ label: String, _ field: ReadingField, _ suffix: String) -> String {
            let text = text(field, suffix)
            return text.isEmpty ? "" : ", \(label) \(text)"
        }

        /// `canonical` in the report's unit, rounded as a callback rounds it, when `field` is converted.
        private func converted(_ canonical: Double, _ field: ReadingField) -> (value: Double, text: String)? {
            guard field.resultRule == .converted, let unit = reportUnit else { return nil }
            guard let rounded = unit.resultValue(canonical: canonical) else {
                return (canonical, HealthReport.number(canonical))
            }
            return (rounded.doubleValue, rounded.description)
        }
    }

    /// A reference line or band of a chart, in the chart's unit.
    struct Reference: Sendable {
        var low: Double
        var high: Double?
        var label: String
        var style: String
    }
}
