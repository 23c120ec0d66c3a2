import Foundation
import Testing
import VitalCore
import VitalExports
import VitalTestSupport

/// What a device said beyond the values, in the report: a marked point, a legend, and no number for a value the
/// device could not measure.
@Suite("HTML report: statuses and unavailable values")
struct AnnotatedReportTests {
    static func time(_ hour: Int) -> Timestamp { ReportTests.time(day: 19, hour) }

    @Test(
        "a reading with an unavailable value is never plotted as a number; with no value left it marks the time axis",
        arguments: SpecialValue.allCases)
    func unmeasured(special: SpecialValue) throws {
        let readings = [
            Reading.glucose(.init(mgPerDeciliter: 95, measuredAt: Self.time(7))),
            annotated(.glucose(.init(mgPerDeciliter: 0, measuredAt: Self.time(8))), [(.glucose, special)]),
            .glucose(.init(mgPerDeciliter: 105, measuredAt: Self.time(9))),
        ]
        let page = ReportTests.page(readings)
        let chart = try #require(ReportTests.chart("glucose", in: page))
        #expect(ReportTests.count("class=\"point\"", in: chart) == 2)
        #expect(ReportTests.count("class=\"point unmeasured\"", in: chart) == 1)
        #expect(chart.contains("not measured [glucose=\(special)]"))
        // the value axis is drawn from the measured values only: no grid line at 0
        #expect(!chart.contains(">0</text>"))
        let csv = ReportTests.csv("glucose", in: page)
        #expect(
            csv == [
                "time,glucose_mg_dL,flags", "2026-11-19 08:00,95,", "2026-11-19 09:00,,glucose=\(special)",
                "2026-11-19 10:00,105,",
            ])
        #expect(page.contains("<ul class=\"legend\">") && page.contains("here: glucose=\(special)"))
    }

    @Test("a reading with a status is a ringed point, its statuses in its title, the legend and the CSV")
    func flagged() throws {
        let readings = [
            Reading.bloodPressure(.init(systolic: 120, diastolic: 80, measuredAt: Self.time(7))),
            annotated(
                .bloodPressure(.init(systolic: 150, diastolic: 0, measuredAt: Self.time(8))), [(.diastolic, .nan)],
                status: [.bodyMovement, .irregularPulse]),
        ]
        let page = ReportTests.page(readings)
        let chart = try #require(ReportTests.chart("blood-pressure", in: page))
        #expect(ReportTests.count("class=\"point flagged\"", in: chart) == 1)
        #expect(ReportTests.count("class=\"flag\"", in: chart) == 1)
        // the flagged reading draws its systolic alone: no line to a diastolic it does not have
        let flagged = chart.components(separatedBy: "class=\"point flagged\"")[1].components(separatedBy: "</g>")[0]
        #expect(
            flagged.contains("circle class=\"systolic\"") && !flagged.contains("class=\"diastolic\"")
                && !flagged.contains("<line"))
        #expect(flagged.contains("150/- mmHg [body movement, irregular pulse, diastolic=NaN]"))
        #expect(
            ReportTests.csv("blood-pressure", in: page) == [
                "time,systolic_mmHg,diastolic_mmHg,flags", "2026-11-19 08:00,120,80,",
                "2026-11-19 09:00,150,,bodyMovement irregularPulse diastolic=NaN",
            ])
        #expect(page.contains("here: body movement, irregular pulse") && page.contains("here: diastolic=NaN"))
        #expect(page.contains("150/NaN mmHg (body movement, irregular pulse)"))
    }

    @Test("past the point limit a day with flagged readings is ringed and counts them; its span has no special value")
    func daily() throws {
        var readings: [Reading] = []
        for hour in 6..<12 {
            readings.append(.temperature(.init(celsius: 36.5 + Double(hour) / 10, measuredAt: Self.time(hour))))
        }
        readings.append(
            annotated(
                .temperature(.init(celsius: 0, measuredAt: Self.time(13))), [(.temperature, .positiveInfinity)],
                status: ReadingStatus(name: "ear")!))
        let page = ReportTests.page(readings, limit: 3)
        let chart = try #require(ReportTests.chart("temperature", in: page))
        #expect(ReportTests.count("class=\"point flagged day\"", in: chart) == 1)
        #expect(
            ReportTests.csv("temperature", in: page) == [
                "day,lowest_temperature_C,highest_temperature_C,readings,flagged,flags",
                "2026-11-19,37.1,37.6,7,1,ear temperature=+INF",
            ])
    }

    @Test("a page without annotated readings is the page it was: no legend, no flag style")
    func plainUnchanged() {
        var quiet = ReportTests.readings
        quiet[0].annotations.userIndex = 3
        let page = ReportTests.page()
        #expect(ReportTests.page(quiet) == page)
        #expect(!page.contains("legend") && !page.contains("circle.flag") && !page.contains("flags"))
    }
}
