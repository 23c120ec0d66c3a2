import Foundation
import Testing
import VitalCore
import VitalTestSupport

@testable import LayeredProtocol

/// What a device said beyond the values, in a result object: `flags` and `unavailable`, built and read back, and
/// counted in the URL budget.
@Suite("Results: statuses and unavailable values")
struct AnnotatedResultTests {
    static let at = Timestamp(year: 2026, month: 11, day: 20, hour: 7, minute: 30, second: 0)!

    static let bp = Reading.bloodPressure(
        .init(systolic: 120, diastolic: 80, heartRate: 72, arrhythmia: true, measuredAt: at))

    @Test(
        "a value sent as a special value is absent, and unavailable names it with the value's name",
        arguments: [
            (SpecialValue.nan, "NaN"), (.nres, "NRes"), (.positiveInfinity, "+INF"), (.negativeInfinity, "-INF"),
            (.reserved, "reserved"),
        ])
    func unavailableValue(special: SpecialValue, name: String) throws {
        let reading = annotated(Self.bp, [(.systolic, special)])
        let json = reading.resultObject(unit: .mmHg).json
        #expect(
            json
                == #"{"diastolic":80,"heart_rate":72,"arrhythmia":1,"measured_at":"2026-11-20 07:30:00","#
                + #""unavailable":{"systolic":"\#(name)"}}"#)
        // in kPa the same: the key is absent in every unit
        let kPa = reading.resultObject(unit: .kPa)
        #expect(kPa[.systolic] == nil && kPa.object(.unavailable)?.string(.systolic) == name)
        // read back exactly
        #expect(try LayeredResult(json: "[\(json)]") == .list([reading.resultObject(unit: .mmHg)]))
    }

    @Test(
        "statuses are a flags list of their names, in bit order, after the values",
        arguments: [
            (ReadingStatus([.irregularPulse, .bodyMovement]), #"["bodyMovement","irregularPulse"]"#),
            (
                ReadingStatus(names: ["cuffTooLoose", "pulseRateTooHigh", "improperPosition"])!,
                #"["cuffTooLoose","pulseRateTooHigh","improperPosition"]"#
            ),
            (ReadingStatus.timeUnverified, #"["timeUnverified"]"#),
        ])
    func flags(status: ReadingStatus, list: String) throws {
        let reading = annotated(Self.bp, status: status)
        let json = reading.resultObject(unit: .mmHg).json
        #expect(
            json
                == #"{"systolic":120,"diastolic":80,"heart_rate":72,"arrhythmia":1,"measured_at":"2026-11-20 07:30:00","#
                + #""flags":\#(list)}"#)
        #expect(try LayeredResult(json: "[\(json)]") == .list([reading.resultObject(unit: .mmHg)]))
    }

    @Test("every kind with a measured value says both, in the order flags then unavailable")
    func otherKinds() {
        let glucose = annotated(
            .glucose(.init(mgPerDeciliter: 0, measuredAt: Self.at)), [(.glucose, .positiveInfinity)],
            status: ReadingStatus(name: "resultTooHigh")!)
        #expect(
            glucose.resultObject(unit: .mmolPerLiter).json
                == #"{"measured_at":"2026-11-20 07:30:00","flags":["resultTooHigh"],"unavailable":{"blood_glucose":"+INF"}}"#
        )
        let oximetry = annotated(
            .oximetry(.init(oxygenSaturation: 0, heartRate: 64, perfusionIndex: 2.5, measuredAt: Self.at)),
            [(.spo2, .nres)], status: ReadingStatus(names: ["lowPerfusion", "questionablePulse"])!)
        #expect(
            oximetry.resultObject(unit: nil).json
                == #"{"heart_rate":64,"perfusion_index":2.5,"measured_at":"2026-11-20 07:30:00","#
                + #""flags":["lowPerfusion","questionablePulse"],"unavailable":{"oxygen_saturation":"NRes"}}"#)
        let temperature = annotated(
            .temperature(.init(celsius: 0, measuredAt: Self.at)), [(.temperature, .negativeInfinity)],
            status: ReadingStatus(name: "tympanum")!)
        #expect(
            temperature.resultObject(unit: .celsius).json
                == #"{"measured_at":"2026-11-20 07:30:00","flags":["tympanum"],"unavailable":{"temperature":"-INF"}}"#
        )
        let weight = annotated(
            .weight(.init(kilograms: 71.5, measuredAt: Self.at)), status: .measurementUnsuccessful)
        #expect(
            weight.resultObject(unit: .kilogram).json
                == #"{"weight":71.50,"measured_at":"2026-11-20 07:30:00","flags":["measurementUnsuccessful"]}"#)
    }

    @Test("a reading whose annotations are only a user index or the device's time is written as before")
    func quietAnnotations() {
        var reading = Self.bp
        reading.annotations.userIndex = 2
        reading.annotations.deviceTime = Timestamp(year: 2000, month: 1, day: 1, hour: 0, minute: 0, second: 0)
        #expect(reading.resultObject(unit: .mmHg) == Self.bp.resultObject(unit: .mmHg))
        #expect(
            Self.bp.resultObject(unit: .mmHg).json
                == #"{"systolic":120,"diastolic":80,"heart_rate":72,"arrhythmia":1,"measured_at":"2026-11-20 07:30:00"}"#
        )
    }

    @Test("a list of strings is read only as a whole: mixed with objects, or holding numbers, it is refused")
    func stringLists() throws {
        #expect(
            try LayeredResult(json: #"[{"flags":[]}]"#) == .list([ResultObject([.init(.flags, .list([]))])]))
        for json in [
            #"[{"flags":["a",{"b":1}]}]"#, #"[{"flags":[{"b":1},"a"]}]"#, #"[{"flags":["a",1]}]"#,
            #"[{"flags":["a",null]}]"#,
        ] {
            #expect(throws: LayeredError.self, "\(json)") { try LayeredResult(json: json) }
        }
    }

    @Test("flags and unavailable count in the URL budget: fewer annotated readings fit, every URL within it")
    func budget() throws {
        let callback = try LayeredCallback(
            destination: "myapp://", echo: [], status: .success(.sync), mac: MACAddress("004D3208D2F4")!)
        let plain = (0..<60).map { index in
            Reading.bloodPressure(
                .init(
                    systolic: 120, diastolic: 80, heartRate: 72, arrhythmia: false,
                    measuredAt: Timestamp(secondsSince1970: 1_763_600_000 + Int64(index) * 60)))
        }
        let flagged = plain.map {
            annotated($0, [(.systolic, .nan)], status: [.bodyMovement, .irregularPulse])
        }
        let budget = 4_000
        let plainPacked = try LayeredCallback.packing(callback, readings: plain, unit: .mmHg, maximumLength: budget)
        let packed = try LayeredCallback.packing(callback, readings: flagged, unit: .mmHg, maximumLength: budget)
        #expect(plainPacked.url.utf8.count <= budget && packed.url.utf8.count <= budget)
        #expect(packed.included.count < plainPacked.included.count && packed.included.count > 0)
        #expect(packed.callback.remaining == flagged.count - packed.included.count)
        // the URL holds each annotated reading whole: parsed back, the objects are the readings' own
        let parsed = try LayeredCallback(parsing: packed.url)
        #expect(parsed.result == .list(packed.included.map { flagged[$0].resultObject(unit: .mmHg) }))
        // one more annotated reading would not have fit
        let more = packed.included.count + 1
        let longer = try LayeredCallback(
            destination: "myapp://", echo: [], status: .success(.sync), mac: MACAddress("004D3208D2F4")!,
            result: .list(flagged.prefix(more).map { $0.resultObject(unit: .mmHg) }),
            remaining: flagged.count - more
        ).url
        #expect(longer.utf8.count > budget)
    }

    @Test("every status name and every special value's name is in the URL scheme article")
    func documented() throws {
        let article = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(
                "Sources/LayeredProtocol/LayeredProtocol.docc/URLScheme.md")
        let text = try String(contentsOf: article, encoding: .utf8)
        for name in ReadingStatus.names { #expect(text.contains("`\(name)`"), "\(name) is not in URLScheme.md") }
        for special in SpecialValue.allCases {
            #expect(text.contains("`\"\(special)\"`"), "\(special) is not in URLScheme.md")
        }
    }

    @Test("the article's figures hold: two flags and an unavailable systolic take 216 characters instead of 128")
    func articleFigures() {
        let plain = Self.bp.resultObject(unit: .mmHg).json
        let annotated = annotated(Self.bp, [(.systolic, .nan)], status: [.bodyMovement, .irregularPulse])
            .resultObject(unit: .mmHg).json
        #expect(PercentEncoding.encode(plain).utf8.count == 128)
        #expect(PercentEncoding.encode(annotated).utf8.count == 216)
        #expect(PercentEncoding.encode(#""bodyMovement","#).utf8.count == "bodyMovement".utf8.count + 7)
    }
}
