import Foundation
import TestRequirements
import Testing
import VitalCore
import VitalExports
import VitalTestSupport

/// What a device said beyond the values, in FHIR: `dataAbsentReason`, `interpretation`, `note`, `bodySite`, read
/// back by fhir.resources.
@Suite("FHIR R4 bundles: statuses and unavailable values")
struct AnnotatedFHIRTests {
    static let time = FHIRTests.time(7)

    static func observations(_ readings: [Reading]) throws -> [[String: Any]] {
        try FHIRTests.resources(FHIRTests.bundle(readings.map { ($0, FHIRTests.bp) }), "Observation")
    }

    static func codes(_ concept: Any?) -> [String] {
        ((concept as? [String: Any])?["coding"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
    }

    @Test(
        "a component sent as a special value has a dataAbsentReason and no valueQuantity; the other keeps its value",
        .needs(.oracles),
        arguments: [
            (SpecialValue.nan, "not-a-number"), (.positiveInfinity, "positive-infinity"),
            (.negativeInfinity, "negative-infinity"), (.nres, "error"), (.reserved, "error"),
        ])
    func bloodPressureComponent(special: SpecialValue, reason: String) throws {
        let reading = annotated(
            .bloodPressure(.init(systolic: 0, diastolic: 81, heartRate: 66, measuredAt: Self.time)),
            [(.systolic, special)])
        let panel = try #require(try Self.observations([reading]).first)
        #expect(panel["valueQuantity"] == nil && panel["dataAbsentReason"] == nil)
        let components = try #require(panel["component"] as? [[String: Any]])
        #expect(components.count == 2)
        #expect(Self.codes(components[0]["code"]) == ["8480-6"] && components[0]["valueQuantity"] == nil)
        #expect(Self.codes(components[0]["dataAbsentReason"]) == [reason])
        let absent = try #require(components[0]["dataAbsentReason"] as? [String: Any])
        #expect(absent["text"] as? String == special.description)
        #expect(
            ((absent["coding"] as? [[String: Any]])?.first?["system"] as? String)
                == "http://terminology.hl7.org/CodeSystem/data-absent-reason")
        #expect((components[1]["valueQuantity"] as? [String: Any])?["value"] as? Double == 81)
        // the independent reader accepts it and reads the same
        let entry = try #require(
            try FHIRTests.oracle(FHIRTests.bundle([(reading, FHIRTests.bp)])).entries.first {
                ($0["codes"] as? [String])?.first == "85354-9"
            })
        #expect((entry["componentsAbsent"] as? [[Any]])?.first?.first as? String == "8480-6")
        #expect(((entry["componentsAbsent"] as? [[Any]])?.first?.last as? [String]) == [reason])
        #expect((entry["components"] as? [[Any]])?.count == 1)
    }

    @Test(
        "an Observation whose value was sent as a special value has a dataAbsentReason instead", .needs(.oracles),
        arguments: [
            (SpecialValue.nan, "not-a-number"), (.positiveInfinity, "positive-infinity"),
            (.negativeInfinity, "negative-infinity"), (.nres, "error"), (.reserved, "error"),
        ])
    func observationValue(special: SpecialValue, reason: String) throws {
        let readings = [
            annotated(.glucose(.init(mgPerDeciliter: 0, measuredAt: Self.time)), [(.glucose, special)]),
            annotated(.temperature(.init(celsius: 0, measuredAt: FHIRTests.time(8))), [(.temperature, special)]),
            annotated(
                .oximetry(.init(oxygenSaturation: 0, heartRate: 70, measuredAt: FHIRTests.time(9))), [(.spo2, special)]),
            annotated(.weight(.init(kilograms: 0, measuredAt: FHIRTests.time(10))), [(.weight, special)]),
        ]
        let entries = try FHIRTests.oracle(FHIRTests.bundle(readings.map { ($0, FHIRTests.bp) })).entries
            .filter { $0["resourceType"] as? String == "Observation" }
        // the oximeter's pulse stays a value
        #expect(entries.map { ($0["codes"] as! [String])[0] } == ["2339-0", "8310-5", "2708-6", "8867-4", "29463-7"])
        for entry in entries {
            if (entry["codes"] as! [String])[0] == "8867-4" {
                #expect((entry["value"] as? [String: String])?["value"] == "70" && entry["absent"] == nil)
            } else {
                #expect(entry["value"] == nil && entry["absent"] as? [String] == [reason], "\(entry)")
            }
        }
    }

    @Test("resultTooHigh and resultTooLow are the interpretations off scale high and low; no H or L", .needs(.oracles))
    func interpretation() throws {
        let readings = [
            annotated(
                .glucose(.init(mgPerDeciliter: 0, measuredAt: Self.time)), [(.glucose, .positiveInfinity)],
                status: ReadingStatus(name: "resultTooHigh")!),
            annotated(
                .glucose(.init(mgPerDeciliter: 21, measuredAt: FHIRTests.time(8))),
                status: ReadingStatus(names: ["resultTooLow", "stripTypeIncorrect"])!),
        ]
        let entries = try FHIRTests.oracle(FHIRTests.bundle(readings.map { ($0, FHIRTests.bp) })).entries
            .filter { $0["resourceType"] as? String == "Observation" }
        let system = "http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation"
        #expect(entries[0]["interpretation"] as? [[String]] == [[system, ">"]])
        #expect(entries[0]["notes"] as? [String] == [])
        #expect(entries[1]["interpretation"] as? [[String]] == [[system, "<"]])
        #expect(entries[1]["notes"] as? [String] == ["Device status: stripTypeIncorrect"])
        #expect((entries[1]["value"] as? [String: String])?["value"] == "21")
    }

    @Test("every other status is named in a note on each Observation of the reading", .needs(.oracles))
    func notes() throws {
        let reading = annotated(
            .bloodPressure(.init(systolic: 150, diastolic: 95, heartRate: 110, measuredAt: Self.time)),
            status: [.bodyMovement, .irregularPulse, .pulseRateTooHigh, .timeUnverified])
        let entries = try FHIRTests.oracle(FHIRTests.bundle([(reading, FHIRTests.bp)])).entries
            .filter { $0["resourceType"] as? String == "Observation" }
        #expect(entries.count == 2)
        for entry in entries {
            #expect(
                entry["notes"] as? [String]
                    == ["Device status: bodyMovement, irregularPulse, pulseRateTooHigh, timeUnverified"])
            #expect(entry["interpretation"] as? [[String]] == [])
        }
    }

    @Test(
        "a thermometer's site is the bodySite: SNOMED CT where the vital-signs value set has it, else text",
        .needs(.oracles),
        arguments: [
            ("armpit", "422543003"), ("ear", "117590005"), ("finger", "7569003"), ("mouth", "74262004"),
            ("rectum", "34402009"), ("toe", "29707007"), ("tympanum", "42859004"), ("body", nil),
            ("gastrointestinalTract", nil),
        ] as [(String, String?)])
    func bodySite(site: String, code: String?) throws {
        let reading = annotated(
            .temperature(.init(celsius: 37.2, measuredAt: Self.time)), status: ReadingStatus(name: site)!)
        let entry = try #require(
            try FHIRTests.oracle(FHIRTests.bundle([(reading, FHIRTests.bp)])).entries.last)
        let bodySite = try #require(entry["bodySite"] as? [String: Any])
        #expect(bodySite["codes"] as? [[String]] == (code.map { [["http://snomed.info/sct", $0]] } ?? []))
        #expect((bodySite["text"] as? String)?.isEmpty == false)
        #expect(entry["notes"] as? [String] == [] && (entry["value"] as? [String: String])?["value"] == "37.2")
    }

    @Test("a reading without annotations gives the bytes it gave before: no member is added")
    func plainUnchanged() throws {
        let plain = Reading.bloodPressure(
            .init(systolic: 120, diastolic: 80, heartRate: 60, measuredAt: Self.time))
        var quiet = plain
        quiet.annotations.userIndex = 1
        let bundle = try FHIRTests.bundle([(plain, FHIRTests.bp)])
        #expect(try FHIRTests.bundle([(quiet, FHIRTests.bp)]) == bundle)
        let text = String(decoding: bundle, as: UTF8.self)
        for member in ["dataAbsentReason", "interpretation", "\"note\"", "bodySite"] {
            #expect(!text.contains(member))
        }
    }
}
