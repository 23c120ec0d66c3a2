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

    /// A reference line or band of a chart, in the chart's unit.
    struct Reference: Sendable {
        var low: Double
        var high: Double?
        var label: String
        var style: String
    }
}
