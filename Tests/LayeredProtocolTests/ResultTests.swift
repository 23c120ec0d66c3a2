import Testing
import VitalCore

@testable import LayeredProtocol

@Suite("Results")
struct ResultTests {
    static let at = Timestamp(year: 2017, month: 10, day: 10, hour: 10, minute: 10, second: 10)!

    @Test("blood pressure is written with the spec's keys, compact")
    func bloodPressure() {
        let reading = Reading.bloodPressure(
            .init(systolic: 120, diastolic: 80, heartRate: 72, arrhythmia: false, measuredAt: Self.at))
        #expect(
            reading.resultObject(unit: .mmHg).json
                == #"{"systolic":120,"diastolic":80,"heart_rate":72,"arrhythmia":0,"measured_at":"2017-10-10 10:10:10"}"#
        )
        #expect(
            reading.resultObject(unit: .kPa).json
                == #"{"systolic":16.0,"diastolic":10.7,"heart_rate":72,"arrhythmia":0,"measured_at":"2017-10-10 10:10:10"}"#
        )
    }

    @Test("optional quantities the device did not report are left out")
    func optionals() {
        let reading = Reading.bloodPressure(.init(systolic: 118.4, diastolic: 79.5, measuredAt: Self.at))
        #expect(
            reading.resultObject(unit: nil).json
                == #"{"systolic":118,"diastolic":80,"measured_at":"2017-10-10 10:10:10"}"#)
    }

    @Test(
        "converts with the exact factors and rounds per unit",
        arguments: [
            // (reading, unit, expected value text)
            (Reading.glucose(.init(mgPerDeciliter: 100, measuredAt: at)), VitalUnit.mmolPerLiter, "5.6"),
            (.glucose(.init(mgPerDeciliter: 100, measuredAt: at)), .mgPerDeciliter, "100"),
            (.glucose(.init(mgPerDeciliter: 99.5, measuredAt: at)), .mgPerDeciliter, "100"),
            (.glucose(.init(mgPerDeciliter: 90.08, measuredAt: at)), .mmolPerLiter, "5.0"),
            (.weight(.init(kilograms: 70, measuredAt: at)), .stone, "11.02"),
            (.weight(.init(kilograms: 70, measuredAt: at)), .pound, "154.3"),
            (.weight(.init(kilograms: 70, measuredAt: at)), .kilogram, "70.00"),
            (.weight(.init(kilograms: 0.45359237, measuredAt: at)), .pound, "1.0"),
            (.weight(.init(kilograms: 6.35029318, measuredAt: at)), .stone, "1.00"),
            (.weight(.init(kilograms: 72.125, measuredAt: at)), .kilogram, "72.13"),
            (.temperature(.init(celsius: 37, measuredAt: at)), .fahrenheit, "98.6"),
            (.temperature(.init(celsius: 36.65, measuredAt: at)), .celsius, "36.7"),
            (.temperature(.init(celsius: -0.05, measuredAt: at)), .celsius, "-0.1"),
            (.bloodPressure(.init(systolic: 120, diastolic: 80, measuredAt: at)), .kPa, "16.0"),
            (.bloodPressure(.init(systolic: 150, diastolic: 80, measuredAt: at)), .kPa, "20.0"),
        ])
    func conversion(reading: Reading, unit: VitalUnit, expected: String) {
        let object = reading.resultObject(unit: unit)
        #expect(object.fields.first?.value == .number(parseNumber(expected)))
        #expect(parseNumber(expected).description == expected)
    }

    @Test("a unit of another category falls back to the category default")
    func mismatchedUnit() {
        let reading = Reading.weight(.init(kilograms: 70, measuredAt: Self.at))
        #expect(reading.resultObject(unit: .mmHg) == reading.resultObject(unit: .kilogram))
    }

    @Test("conversion to and from the canonical unit is exact within rounding")
    func inverse() {
        for unit in VitalUnit.allCases {
            for value in [0.0, 1, 37.5, 120, 250.25] {
                #expect(abs(unit.toCanonical(unit.fromCanonical(value)) - value) < 1e-9)
            }
        }
        #expect(VitalUnit.kPa.fromCanonical(1) == 0.133_322_387_415)
        #expect(VitalUnit.mmolPerLiter.toCanonical(1) == 18.016)
        #expect(VitalUnit.pound.toCanonical(1) == 0.453_592_37)
        #expect(VitalUnit.stone.toCanonical(1) == 6.350_293_18)
        #expect(VitalUnit.mile.toCanonical(1) == 1.609_344)
    }

    @Test("oximetry keeps SpO2 and pulse whole and PI to one decimal")
    func oximetry() {
        let reading = Reading.oximetry(
            .init(oxygenSaturation: 98, heartRate: 64, perfusionIndex: 2.35, measuredAt: Self.at))
        #expect(
            reading.resultObject(unit: nil).json
                == #"{"oxygen_saturation":98,"heart_rate":64,"perfusion_index":2.4,"measured_at":"2017-10-10 10:10:10"}"#
        )
    }

    @Test("a weight carries its body composition as extension keys: percentages and Ω to 0.1, masses as the weight")
    func bodyComposition() {
        let composition = BodyComposition(
            bodyFatPercentage: 21.45, basalMetabolism: 7_120, musclePercentage: 41.3, muscleMass: 33.245,
            fatFreeMass: 63.27, softLeanMass: 58.1, bodyWaterMass: 46.005, impedance: 512.34)
        let reading = Reading.weight(.init(kilograms: 80.5, measuredAt: Self.at, bodyComposition: composition))
        #expect(
            reading.resultObject(unit: .kilogram).json
                == #"{"weight":80.50,"body_fat":21.5,"muscle_percentage":41.3,"muscle_mass":33.25,"fat_free_mass":63.27,"soft_lean_mass":58.10,"body_water_mass":46.01,"basal_metabolism":7120,"impedance":512.3,"measured_at":"2017-10-10 10:10:10"}"#
        )
        #expect(
            reading.resultObject(unit: .pound).json
                == #"{"weight":177.5,"body_fat":21.5,"muscle_percentage":41.3,"muscle_mass":73.3,"fat_free_mass":139.5,"soft_lean_mass":128.1,"body_water_mass":101.4,"basal_metabolism":7120,"impedance":512.3,"measured_at":"2017-10-10 10:10:10"}"#
        )
        // only the quantities the scale measured
        let fatOnly = Reading.weight(
            .init(kilograms: 70, measuredAt: Self.at, bodyComposition: BodyComposition(bodyFatPercentage: 30)))
        #expect(
            fatOnly.resultObject(unit: .stone).json
                == #"{"weight":11.02,"body_fat":30.0,"measured_at":"2017-10-10 10:10:10"}"#)
    }

    @Test("an activity day has the AM objects")
    func activity() {
        let day = Reading.activity(
            .init(
                date: CalendarDate(year: 2017, month: 1, day: 1)!, steps: 1000, calories: 1000, sleepMinutes: 100,
                sleepEfficiency: 100, swimMinutes: 1000, swimCalories: 1000))
        #expect(
            day.resultObject(unit: .kilometre).json
                == #"{"time":"2017-01-01","activedata":{"steps":1000,"calories":1000},"sleepdata":{"sleeptime":100,"sleepefficiency":100},"swimdata":{"swimtime":1000,"calories":1000}}"#
        )
        let noSwim = Reading.activity(
            .init(
                date: CalendarDate(year: 2017, month: 1, day: 2)!, steps: 5, calories: 1, sleepMinutes: 0,
                sleepEfficiency: 0))
        #expect(
            noSwim.resultObject(unit: nil).json
                == #"{"time":"2017-01-02","activedata":{"steps":5,"calories":1},"sleepdata":{"sleeptime":0,"sleepefficiency":0}}"#
        )
        #expect(noSwim.measuredAt.description == "2017-01-02 00:00:00")
        // swim data opens with its minutes: calories without them are left out with the object
        let caloriesOnly = Reading.activity(
            .init(
                date: CalendarDate(year: 2017, month: 1, day: 4)!, steps: 5, calories: 1, sleepMinutes: 0,
                sleepEfficiency: 0, swimCalories: 80))
        #expect(
            caloriesOnly.resultObject(unit: nil).json
                == #"{"time":"2017-01-04","activedata":{"steps":5,"calories":1},"sleepdata":{"sleeptime":0,"sleepefficiency":0}}"#
        )
        // swim calories the monitor did not count (0xFFFF) are left out, not written as 0
        let uncounted = Reading.activity(
            .init(
                date: CalendarDate(year: 2017, month: 1, day: 3)!, steps: 5, calories: 1, sleepMinutes: 0,
                sleepEfficiency: 0, swimMinutes: 20))
        #expect(
            uncounted.resultObject(unit: nil).json
                == #"{"time":"2017-01-03","activedata":{"steps":5,"calories":1},"sleepdata":{"sleeptime":0,"sleepefficiency":0},"swimdata":{"swimtime":20}}"#
        )
    }

    @Test("the combined result has measureresult and syncresult")
    func combined() throws {
        let object = ResultObject([.init(.heartRate, .number(.init(60)))])
        let result = LayeredResult.combined(measure: [object], sync: [object, object])
        #expect(
            result.json == #"{"measureresult":[{"heart_rate":60}],"syncresult":[{"heart_rate":60},{"heart_rate":60}]}"#)
        #expect(try LayeredResult(json: result.json) == result)
    }

    @Test("result JSON parses back exactly, spaced or compact")
    func parse() throws {
        let text = #" [ { "systolic" : 16.0 , "measured_at" : "2017-10-10 10:10:10", "n": -0.25, "o": {"a": 0} } ] "#
        let result = try LayeredResult(json: text)
        guard case .list(let objects) = result else {
            Issue.record("not a list")
            return
        }
        #expect(objects[0].number(.systolic) == FixedDecimal(significand: 160, scale: 1))
        #expect(objects[0].measuredAt == Self.at)
        #expect(objects[0].number("n") == FixedDecimal(significand: -25, scale: 2))
        #expect(objects[0].object("o")?.number("a") == FixedDecimal(0))
        #expect(try LayeredResult(json: "[]") == .list([]))
        #expect(
            try LayeredResult(json: #"[{"s":"\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"}]"#)
                == .list([ResultObject([.init("s", .string("\"\\/\u{8}\u{C}\n\r\té😀"))])]))
    }

    @Test(
        "malformed result JSON is rejected",
        arguments: [
            "", "{}", "[", "[{]", "[{}", #"[{"a":1,}]"#, #"[{"a":1,"a":2}]"#, #"[{"a":true}]"#, #"[{"a":null}]"#,
            #"[{"a":[1]}]"#, #"[{"a":1e5}]"#, #"[{"a":01}]"#, #"[{"a":1.}]"#, #"[{"a":.5}]"#, #"[{"a":-}]"#,
            #"[{"a":"x}]"#, #"[{"a":"\x"}]"#, #"[{"a":"\ud83d"}]"#, "[{\"a\":\"\u{1}\"}]", #"[1]"#, "[{}] x",
            #"{"measureresult":[]}"#, #"{"measureresult":[],"syncresult":[],"x":[]}"#,
            #"{"measureresult":[],"measureresult":[]}"#, #"[{"a":{"b":{"c":{"d":{"e":1}}}}}]"#,
            #"[{"a":12345678901234567890}]"#, #"[{"a":0.1234567890}]"#,
        ])
    func malformed(json: String) {
        let error = #expect(throws: LayeredError.self) { try LayeredResult(json: json) }
        #expect(error?.parameter == "result")
    }

    @Test("fixed decimals round half away from zero and print their scale")
    func fixedDecimal() {
        #expect(FixedDecimal(rounding: 2.25, scale: 1)?.description == "2.3")
        #expect(FixedDecimal(rounding: -2.25, scale: 1)?.description == "-2.3")
        #expect(FixedDecimal(rounding: 0.5, scale: 0)?.description == "1")
        #expect(FixedDecimal(rounding: 0.049, scale: 1)?.description == "0.0")
        #expect(FixedDecimal(rounding: 0.05, scale: 2)?.description == "0.05")
        #expect(FixedDecimal(rounding: 1.005, scale: 2)?.description == "1.01")
        #expect(FixedDecimal(rounding: .nan, scale: 1) == nil)
        #expect(FixedDecimal(rounding: .infinity, scale: 1) == nil)
        #expect(FixedDecimal(rounding: 1e300, scale: 1) == nil)
        #expect(FixedDecimal(significand: -5, scale: 3).description == "-0.005")
        #expect(FixedDecimal(significand: 5, scale: 3).doubleValue == 0.005)
    }

    @Test("timestamps are UTC yyyy-MM-dd HH:mm:ss both ways")
    func timestamps() {
        #expect(Timestamp(secondsSince1970: 0).description == "1970-01-01 00:00:00")
        #expect(Timestamp(secondsSince1970: -1).description == "1969-12-31 23:59:59")
        #expect(Timestamp(secondsSince1970: 951_782_400).description == "2000-02-29 00:00:00")
        #expect(Self.at.secondsSince1970 == 1_507_630_210)
        #expect(Timestamp(parsing: "2017-10-10 10:10:10") == Self.at)
        for text in [
            "2017-10-10T10:10:10", "2017-10-10 10:10", "2017-13-10 10:10:10", "2017-02-29 10:10:10",
            "2017-10-10 24:00:00", "2017-10-10 10:60:00", "2017-1-1 10:10:10", "0000-01-01 00:00:00", "",
        ] {
            #expect(Timestamp(parsing: text) == nil, "\(text)")
        }
        for seconds in stride(from: Int64(-62_135_596_800), to: 253_402_300_799, by: 86_399 * 97) {
            let timestamp = Timestamp(secondsSince1970: seconds)
            #expect(Timestamp(parsing: timestamp.description) == timestamp)
        }
        #expect(Timestamp(Self.at.date) == Self.at)
        #expect(CalendarDate(parsing: "2024-02-29")?.description == "2024-02-29")
        #expect(CalendarDate(parsing: "2023-02-29") == nil)
    }

    @Test("a result's rows: a key=value cell a field, nested values as JSON, a combined result's rows labelled")
    func rows() throws {
        let reading = Reading.bloodPressure(.init(systolic: 120, diastolic: 80, measuredAt: Self.at))
        let object = reading.resultObject(unit: .mmHg)
        #expect(
            LayeredResult.list([object]).rows == [
                ["systolic=120", "diastolic=80", "measured_at=2017-10-10 10:10:10"]
            ])
        let nested = ResultObject([
            .init("flags", .strings(["bodyMovement", "irregularPulse"])), .init("activedata", .object(object)),
            .init("sportdata", .list([])),
        ])
        let combined = LayeredResult.combined(measure: [object], sync: [nested])
        #expect(combined.rows[0] == ["measured", "systolic=120", "diastolic=80", "measured_at=2017-10-10 10:10:10"])
        #expect(
            combined.rows[1] == [
                "synced", "flags=bodyMovement,irregularPulse", "activedata=\(object.json)", "sportdata=[]",
            ])
    }

}

/// The fixed decimal written as `text`.
func parseNumber(_ text: String) -> FixedDecimal {
    FixedDecimal(json: text)!
}
