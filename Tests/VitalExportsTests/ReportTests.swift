import Foundation
import Testing
import VitalCore

@testable import VitalExports

/// The HTML report, in process: a mark per reading in each chart, values in the chosen units, a mark a day past the
/// limit, escaped text, and the CSV behind each chart.
@Suite("HTML report")
struct ReportTests {
    static func time(day: Int, _ hour: Int, _ minute: Int = 0) -> Timestamp {
        Timestamp(year: 2026, month: 11, day: day, hour: hour, minute: minute, second: 0)!
    }

    /// Readings of every kind over three days.
    static let readings: [Reading] = {
        var readings: [Reading] = []
        for day in 17...19 {
            readings.append(
                .bloodPressure(
                    .init(systolic: Double(118 + day), diastolic: 78, heartRate: 60, measuredAt: time(day: day, 7))))
            readings.append(
                .bloodPressure(.init(systolic: 142, diastolic: Double(day + 75), measuredAt: time(day: day, 19))))
            readings.append(.glucose(.init(mgPerDeciliter: Double(90 + day), measuredAt: time(day: day, 8))))
            readings.append(.weight(.init(kilograms: 80 - Double(day) / 10, measuredAt: time(day: day, 6))))
            readings.append(.oximetry(.init(oxygenSaturation: 96, heartRate: 70, measuredAt: time(day: day, 9))))
            readings.append(.temperature(.init(celsius: 36.6, measuredAt: time(day: day, 10))))
            readings.append(
                .band(
                    .init(
                        date: CalendarDate(year: 2026, month: 11, day: day)!, steps: 1_000 * day, calories: 300,
                        distance: 5_000, sleep: .init(deep: 90, light: 240, awake: 30), heartRate: nil, sports: [])))
        }
        return readings.sorted { $0.measuredAt < $1.measuredAt }
    }()

    static func page(
        _ readings: [Reading] = readings, units: ReportUnits = ReportUnits(), limit: Int = 1_500,
        device: String = "BP5 004D3208D2F4"
    ) -> String {
        var report = HealthReport(units: units, pointLimit: limit, utcOffset: { _ in 3_600 })
        for reading in readings { report.add(reading, device: device) }
        return String(decoding: report.html(title: "Report", subtitle: "test"), as: UTF8.self)
    }

    /// The SVG of chart `id` in `page`.
    static func chart(_ id: String, in page: String) -> Substring? {
        guard let start = page.range(of: "<svg data-chart=\"\(id)\"") else { return nil }
        let end = page[start.upperBound...].range(of: "</svg>")!
        return page[start.lowerBound..<end.upperBound]
    }

    /// The CSV under chart `id`, its lines.
    static func csv(_ id: String, in page: String) -> [String] {
        let section = page.components(separatedBy: "id=\"\(id)\"")[1]
        let text = section.components(separatedBy: "<pre>")[1].components(separatedBy: "</pre>")[0]
        return text.components(separatedBy: "\r\n").filter { !$0.isEmpty }
    }

    static func count(_ needle: String, in text: Substring) -> Int { text.components(separatedBy: needle).count - 1 }

    @Test("each chart has a point per reading (a bar per day), and its CSV a row per point")
    func pointsPerReading() throws {
        let page = Self.page()
        let expected = [
            "blood-pressure": 6, "glucose": 3, "weight": 3, "spo2": 3, "temperature": 3, "steps": 3, "sleep": 3,
        ]
        for (id, count) in expected {
            let svg = try #require(Self.chart(id, in: page), "\(id)")
            #expect(Self.count("class=\"point", in: svg) == count, "\(id)")
            #expect(Self.csv(id, in: page).count == count + 1, "\(id)")
            // the download link holds the same CSV as the text under the chart
            let section = page.components(separatedBy: "id=\"\(id)\"")[1]
            let link = section.components(separatedBy: "href=\"data:text/csv;charset=utf-8,")[1]
                .components(separatedBy: "\"")[0]
            let decoded = try #require(link.removingPercentEncoding)
            #expect(decoded.components(separatedBy: "\r\n").filter { !$0.isEmpty } == Self.csv(id, in: page), "\(id)")
        }
        #expect(page.contains("3 rows") && page.contains("6 rows"))
        // the blood-pressure CSV, in local time (UTC+1), systolic first
        #expect(
            Self.csv("blood-pressure", in: page).prefix(3) == [
                "time,systolic_mmHg,diastolic_mmHg", "2026-11-17 08:00,135,78", "2026-11-17 20:00,142,92",
            ])
        #expect(Self.csv("sleep", in: page)[1] == "2026-11-17,330,90,240,30")
        #expect(Self.csv("steps", in: page)[3] == "2026-11-19,19000")
        // the thresholds: two stage-1 bands, lines at 130, 80, 140 and 90; the glucose target band; the weight trend
        let bp = try #require(Self.chart("blood-pressure", in: page))
        #expect(Self.count("class=\"band stage1\"", in: bp) == 2 && Self.count("<g class=\"reference\">", in: bp) == 4)
        #expect(Self.count("class=\"band target\"", in: Self.chart("glucose", in: page)!) == 1)
        #expect(Self.count("class=\"trend\"", in: Self.chart("weight", in: page)!) == 1)
    }

    @Test("values, thresholds and the CSV are in the chosen units, rounded as callbacks round them")
    func units() throws {
        var units = ReportUnits()
        for unit in [VitalUnit.kPa, .mmolPerLiter, .pound, .fahrenheit] { try units.set(unit) }
        let page = Self.page(units: units)
        #expect(page.contains("<h2>Blood pressure (kPa)</h2>") && page.contains("<h2>Temperature (°F)</h2>"))
        let kPa = { (mmHg: Double) in VitalUnit.kPa.resultValue(canonical: mmHg)!.description }
        #expect(Self.csv("blood-pressure", in: page)[1] == "2026-11-17 08:00,\(kPa(135)),\(kPa(78))")
        #expect(Self.csv("glucose", in: page)[1].hasSuffix(",\(VitalUnit.mmolPerLiter.resultValue(canonical: 107)!)"))
        #expect(Self.csv("weight", in: page)[0] == "time,weight_lb")
        #expect(Self.csv("weight", in: page)[1].hasSuffix(",\(VitalUnit.pound.resultValue(canonical: 78.3)!)"))
        #expect(
            Self.csv("temperature", in: page) == ["time,temperature_F"]
                + ["17", "18", "19"].map { "2026-11-\($0) 11:00,97.9" })
        // the 140/90 line in kPa, and the table's latest blood pressure
        let bp = try #require(Self.chart("blood-pressure", in: page))
        #expect(bp.contains("140/90") && page.contains("<td>18.9/12.5 kPa</td>"))
        #expect { try units.set(.kilometre) } throws: {
            ($0 as? ReportError)?.message == "the report has no quantity in km"
        }
    }

    @Test("past the limit, a chart draws a line a day from its lowest to its highest value; its CSV has a row a day")
    func daily() throws {
        let page = Self.page(limit: 4)
        let svg = try #require(Self.chart("blood-pressure", in: page))
        #expect(Self.count("class=\"point day\"", in: svg) == 3)
        #expect(
            Self.csv("blood-pressure", in: page) == [
                "day,lowest_pressure_mmHg,highest_pressure_mmHg,readings", "2026-11-17,78,142,2", "2026-11-18,78,142,2",
                "2026-11-19,78,142,2",
            ])
        #expect(page.contains("Each line spans a day&#39;s readings"))
        // the charts under the limit still draw a point per reading
        #expect(Self.count("class=\"point\"", in: Self.chart("glucose", in: page)!) == 3)
    }

    @Test("the page is handed out a mark or a row at a time, never a chart whole, and the parts are the page")
    func streamed() {
        // a glucose reading every hour for 25 days: 600 points and rows, a chart of about 130 kB
        var readings = Self.readings
        for hour in 0..<600 {
            let time = Self.time(day: 1 + hour / 24, hour % 24)
            readings.append(.glucose(.init(mgPerDeciliter: Double(80 + hour % 50), measuredAt: time)))
        }
        for limit in [1_500, 4] {
            var report = HealthReport(pointLimit: limit, utcOffset: { _ in 3_600 })
            for reading in readings { report.add(reading, device: "BG5 004D3208E001") }
            var parts: [String] = []
            report.write(title: "Report", subtitle: "test") { parts.append($0) }
            #expect(Array(parts.joined().utf8) == report.html(title: "Report", subtitle: "test"))
            // the largest part is the page's head with its style, not a chart
            #expect(parts.map(\.utf8.count).max()! < 4_096, "limit \(limit)")
            #expect(parts.count > 3 * 600 / (limit == 4 ? 24 : 1))
        }
    }

    @Test("the latest reading of each quantity, with its local time and device, in a table")
    func latest() {
        let page = Self.page()
        for row in [
            "<th scope=\"row\">Blood pressure</th><td>142/94 mmHg</td><td>2026-11-19 20:00</td>",
            "<th scope=\"row\">Glucose</th><td>109 mg/dL</td>", "<th scope=\"row\">Weight</th><td>78.10 kg</td>",
            "<th scope=\"row\">SpO2</th><td>96 %, pulse 70 bpm</td>",
            "<th scope=\"row\">Steps</th><td>19000</td><td>2026-11-19</td>",
            "<th scope=\"row\">Sleep</th><td>5 h 30 min</td><td>2026-11-19</td>",
        ] {
            #expect(page.contains(row), "\(row)")
        }
    }

    @Test("text from devices and users is escaped; the page forbids loading anything; an empty report says so")
    func escapingAndEmpty() {
        let page = Self.page(device: "<script>alert(1)</script> \"x\" & 'y'")
        #expect(
            !page.contains("<script>")
                && page.contains("&lt;script&gt;alert(1)&lt;/script&gt; &quot;x&quot; &amp; &#39;y&#39;"))
        #expect(page.contains("content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\""))
        // nothing to fetch: the only URL is SVG's namespace
        #expect(!page.replacingOccurrences(of: "xmlns=\"http://www.w3.org/2000/svg\"", with: "").contains("http:"))
        let empty = Self.page([])
        #expect(empty.contains("No readings to show.") && !empty.contains("<svg"))
    }

    @Test("a day two devices report shows the larger total")
    func twoDevicesOneDay() {
        let date = CalendarDate(year: 2026, month: 11, day: 19)!
        let page = Self.page([
            .activity(.init(date: date, steps: 6_000, calories: 200, sleepMinutes: 420, sleepEfficiency: 90)),
            .band(
                .init(
                    date: date, steps: 9_000, calories: 300, distance: 6_000,
                    sleep: .init(deep: 60, light: 200, awake: 20),
                    heartRate: nil, sports: [])),
        ])
        #expect(Self.csv("steps", in: page) == ["day,steps", "2026-11-19,9000"])
        #expect(Self.csv("sleep", in: page) == ["day,asleep_min,deep_min,light_min,awake_min", "2026-11-19,420,,,"])
    }

    @Test("a value axis labels every grid line distinctly: as many decimals as its step needs")
    func distinctAxisLabels() throws {
        // a weight that moves by hundredths of a kilogram: grid lines 0.05 kg apart, once all printed as 87.3 or 87.4
        let weights = [87.31, 87.34, 87.38, 87.42, 87.44]
        let readings = weights.enumerated().map { day, kilograms in
            Reading.weight(.init(kilograms: kilograms, measuredAt: Self.time(day: 15 + day, 7)))
        }
        let chart = try #require(Self.chart("weight", in: Self.page(readings)))
        let grid = try #require(chart.components(separatedBy: "<g class=\"grid\">").dropFirst().first)
            .components(separatedBy: "</g>")[0]
        let labels = grid.components(separatedBy: "text-anchor=\"end\">").dropFirst().map {
            String($0.prefix { $0 != "<" })
        }
        #expect(labels.count >= 3 && Set(labels).count == labels.count, "\(labels)")
        #expect(labels.allSatisfy { $0.split(separator: ".").last?.count == 2 }, "\(labels)")
        // a step of one or more units keeps the report's own numbers
        let pressures = Self.chart("blood-pressure", in: Self.page())!
        #expect(!pressures.contains(".0</text>"))
    }

    @Test("every kind of an instant has a readout, exactly one: none is left out of the report")
    func everyKindHasAReadout() {
        let kinds = HealthReport.Readout.all.map(\.kind)
        #expect(kinds == ReadingKind.allCases.filter { !$0.isDay })
    }
}
