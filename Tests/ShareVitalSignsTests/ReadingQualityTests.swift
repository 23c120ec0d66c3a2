import Foundation
import Testing
import VitalCore
import VitalTestSupport

@testable import ShareVitalSigns

@Suite("Quality from what the device reported")
struct ReadingQualityTests {
    static let time = Timestamp(secondsSince1970: 1_763_600_000)
    static let bloodPressure = Reading.bloodPressure(.init(systolic: 128, diastolic: 84, measuredAt: time))
    static let oximetry = Reading.oximetry(
        .init(oxygenSaturation: 97, heartRate: 64, perfusionIndex: 2.5, measuredAt: time))

    /// `reading` with the statuses named `names`.
    static func reading(_ reading: Reading, _ names: [String]) -> Reading {
        var reading = reading
        reading.annotations.status = ReadingStatus(names: names)!
        return reading
    }

    /// The reading a status belongs on: a blood pressure for the Blood Pressure Measurement Status, an oximetry for
    /// the PLX statuses.
    static func reading(reporting name: String) -> Reading {
        let bloodPressureStatuses = ReadingStatus.names.prefix(6)
        return reading(bloodPressureStatuses.contains(name) ? bloodPressure : oximetry, [name])
    }

    static func quality(_ reading: Reading) -> Int? { Quality(of: reading)?.value }

    @Test("a reading the device said nothing against is quality 100, for every kind SVS answers")
    func clean() {
        #expect(Self.quality(Self.bloodPressure) == 100)
        #expect(Self.quality(Self.oximetry) == 100)
        #expect(Self.quality(.temperature(.init(celsius: 36.8, measuredAt: Self.time))) == 100)
    }

    @Test(
        "each rule alone: a warning takes its points off 100, an invalidating status makes it 0",
        arguments: Quality.rules)
    func eachRule(rule: QualityRule) {
        #expect(ReadingStatus(name: rule.status) != nil)
        let expected: Int
        switch rule.effect {
        case .invalid: expected = 0
        case .deduct(let points): expected = 100 - points
        }
        #expect(Self.quality(Self.reading(reporting: rule.status)) == expected, "\(rule.status)")
    }

    @Test("the warnings' points: 30 for a serious one, 10 for a minor one")
    func points() {
        #expect(Quality.seriousWarning == 30 && Quality.minorWarning == 10)
        let effects = Dictionary(uniqueKeysWithValues: Quality.rules.map { ($0.status, $0.effect) })
        #expect(effects.count == Quality.rules.count)
        for name in ["bodyMovement", "cuffTooLoose", "improperPosition", "poorSignal", "questionableMeasurement"] {
            #expect(effects[name] == .deduct(30), "\(name)")
        }
        for name in ["irregularPulse", "pulseRateTooHigh", "pulseRateTooLow", "measurementOngoing"] {
            #expect(effects[name] == .deduct(10), "\(name)")
        }
        for name in ["invalidMeasurement", "sensorDisconnected", "dataForDemonstration", "dataForTesting"] {
            #expect(effects[name] == .invalid, "\(name)")
        }
    }

    @Test("statuses that say nothing against the value leave it 100")
    func neutral() {
        for name in [
            "validatedData", "fullyQualifiedData", "dataFromMeasurementStorage", "extendedDisplayUpdateOngoing",
            "deviceClockNotSet", "timeUnverified",
        ] {
            #expect(!Quality.rules.contains { $0.status == name })
            #expect(Self.quality(Self.reading(Self.oximetry, [name])) == 100, "\(name)")
        }
        for site in ["armpit", "ear", "mouth", "tympanum"] {
            let temperature = Self.reading(.temperature(.init(celsius: 36.8, measuredAt: Self.time)), [site])
            #expect(Self.quality(temperature) == 100, "\(site)")
        }
    }

    @Test("warnings add up and the quality stops at 0; an invalidating status is 0 whatever else is said")
    func combined() {
        #expect(Self.quality(Self.reading(Self.bloodPressure, ["bodyMovement", "irregularPulse"])) == 60)
        #expect(Self.quality(Self.reading(Self.bloodPressure, ["bodyMovement", "cuffTooLoose"])) == 40)
        let all = ["bodyMovement", "cuffTooLoose", "improperPosition", "irregularPulse", "pulseRateTooHigh"]
        #expect(Self.quality(Self.reading(Self.bloodPressure, all)) == 0)
        #expect(Self.quality(Self.reading(Self.oximetry, ["poorSignal", "measurementOngoing"])) == 60)
        #expect(Self.quality(Self.reading(Self.oximetry, ["invalidMeasurement", "validatedData"])) == 0)
    }

    @Test("a blood pressure's arrhythmia flag counts as an irregular pulse, once")
    func arrhythmia() {
        let flagged = Reading.bloodPressure(
            .init(systolic: 128, diastolic: 84, arrhythmia: true, measuredAt: Self.time))
        #expect(Self.quality(flagged) == 90)
        #expect(Self.quality(Self.reading(flagged, ["irregularPulse"])) == 90)
        let steady = Reading.bloodPressure(
            .init(systolic: 128, diastolic: 84, arrhythmia: false, measuredAt: Self.time))
        #expect(Self.quality(steady) == 100)
    }

    @Test(
        "a perfusion index under 0.4 % counts as low perfusion, once; an unmeasured PI says nothing",
        arguments: [(0.1, 70), (0.3, 70), (0.4, 100), (2.5, 100), (20, 100)])
    func perfusionIndex(index: Double, expected: Int) {
        let reading = Reading.oximetry(
            .init(oxygenSaturation: 97, heartRate: 64, perfusionIndex: index, measuredAt: Self.time))
        #expect(Self.quality(reading) == expected)
        #expect(Self.quality(Self.reading(reading, ["lowPerfusion"])) == 70)
    }

    @Test("a PI the oximeter could not measure, or did not send, does not lower the quality")
    func unmeasuredIndex() throws {
        var unavailable = Self.oximetry
        let field = try #require(ReadingKind.oximetry.fields.first { $0.column == .perfusionIndex })
        unavailable.markUnavailable(field, .nan)
        #expect(Self.quality(unavailable) == 100)
        let none = Reading.oximetry(.init(oxygenSaturation: 97, heartRate: 64, measuredAt: Self.time))
        #expect(Self.quality(none) == 100)
    }

    @Test("a kind ShareVitalSigns has no sign for has no quality")
    func otherKinds() {
        #expect(Quality(of: .glucose(.init(mgPerDeciliter: 100, measuredAt: Self.time))) == nil)
        #expect(Quality(of: .heartRate(.init(heartRate: 60, rrIntervals: [], measuredAt: Self.time))) == nil)
    }

    @Test("the ShareVitalSigns article's table gives every rule, and only those")
    func article() throws {
        let path = Oracles.root.appendingPathComponent(
            "Sources/ShareVitalSigns/ShareVitalSigns.docc/ShareVitalSigns.md")
        let text = try String(contentsOf: path, encoding: .utf8)
        var rows: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 3 else { continue }
            rows[cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = cells[2]
        }
        var expected: [String: String] = [:]
        for rule in Quality.rules {
            switch rule.effect {
            case .invalid: expected[rule.status] = "0"
            case .deduct(let points): expected[rule.status] = "−\(points)"
            }
        }
        #expect(rows == expected)
        #expect(text.contains("under \(Quality.lowPerfusionIndex) %"))
    }
}
