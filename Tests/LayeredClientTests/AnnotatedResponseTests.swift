import LayeredClient
import LayeredProtocol
import Testing
import VitalCore
import VitalTestSupport

/// A callback's `flags` and `unavailable`, read back by a caller: the statuses by name, the special values by key,
/// and no number where the device could not measure one.
@Suite("LayeredClient: statuses and unavailable values")
struct AnnotatedResponseTests {
    static let mac = MACAddress("004D3208D2F4")!
    static let at = Timestamp(secondsSince1970: 1_700_000_000)

    @Test(
        "an unavailable systolic pressure comes back as nil with its special value, the statuses by name",
        arguments: SpecialValue.allCases)
    func bloodPressure(special: SpecialValue) throws {
        let reading = annotated(
            .bloodPressure(.init(systolic: 0, diastolic: 80, heartRate: 70, measuredAt: Self.at)),
            [(.systolic, special)], status: [.bodyMovement, .irregularPulse])
        let url = try LayeredResponseTests.callbackURL(
            LayeredIntent(.sync, .bp5, mac: Self.mac, unit: .mmHg), readings: [reading])
        let received = try #require(try LayeredResponse(parsing: url).readings.first)
        #expect(
            received.value
                == .bloodPressure(
                    systolic: nil, diastolic: Quantity(FixedDecimal(80), .mmHg), heartRate: 70, arrhythmia: nil))
        #expect(received.unavailable == [.systolic: special])
        #expect(received.status == [.bodyMovement, .irregularPulse])
        #expect(received.flags == ["bodyMovement", "irregularPulse"])
        #expect(received.description.contains("\(special)/80 mmHg") && received.description.contains("bodyMovement"))
    }

    @Test("every kind's required value may be unavailable; a status unknown to this version is kept as a flag")
    func otherKinds() throws {
        let cases: [(DeviceModel, Reading, ResultKey, (ReceivedReading.Value) -> Bool)] = [
            (
                .bg5,
                annotated(
                    .glucose(.init(mgPerDeciliter: 0, measuredAt: Self.at)), [(.glucose, .positiveInfinity)],
                    status: ReadingStatus(name: "resultTooHigh")!),
                .bloodGlucose, { $0 == .glucose(nil) }
            ),
            (
                .po3,
                annotated(
                    .oximetry(.init(oxygenSaturation: 0, heartRate: 64, measuredAt: Self.at)), [(.spo2, .nan)],
                    status: ReadingStatus(name: "lowPerfusion")!),
                .oxygenSaturation, { $0 == .oximetry(oxygenSaturation: nil, heartRate: 64, perfusionIndex: nil) }
            ),
            (
                .thv3,
                annotated(
                    .temperature(.init(celsius: 0, measuredAt: Self.at)), [(.temperature, .negativeInfinity)],
                    status: ReadingStatus(name: "ear")!),
                .temperature, { $0 == .temperature(nil) }
            ),
            (
                .hs2,
                annotated(
                    .weight(.init(kilograms: 0, measuredAt: Self.at)), [(.weight, .nres)],
                    status: .measurementUnsuccessful),
                .weight, { $0 == .weight(nil, composition: nil) }
            ),
        ]
        for (model, reading, key, matches) in cases {
            let url = try LayeredResponseTests.callbackURL(
                LayeredIntent(.sync, model, mac: Self.mac), readings: [reading])
            let received = try #require(try LayeredResponse(parsing: url).readings.first)
            #expect(matches(received.value), "\(received.value)")
            #expect(received.unavailable[key] == reading.unavailableFields.first?.value)
            #expect(received.status == reading.annotations.status)
        }
        // a name this version does not know is a flag, not a status; an unknown special value is not unavailable
        let object =
            #"[{"diastolic":80,"measured_at":"2026-11-20 07:30:00","flags":["bodyMovement","cuffOnFire"],"#
            + #""unavailable":{"systolic":"NaN","pulse":"-NaN"}}]"#
        let response = try LayeredResponse(
            parsing: "myapp://?cmd=2&devicemodel=100&unit=2&status=0&result=" + PercentEncoding.encode(object))
        let received = try #require(response.readings.first)
        #expect(received.flags == ["bodyMovement", "cuffOnFire"] && received.status == .bodyMovement)
        #expect(received.unavailable == [.systolic: .nan])
    }

    @Test(
        "a value that is missing without being named unavailable, or both measured and unavailable, is refused",
        arguments: [
            #"[{"diastolic":80,"measured_at":"2026-11-20 07:30:00","unavailable":{"heart_rate":"NaN"}}]"#,
            #"[{"systolic":1,"diastolic":80,"measured_at":"2026-11-20 07:30:00","unavailable":{"systolic":"NaN"}}]"#,
            #"[{"systolic":1,"diastolic":80,"measured_at":"2026-11-20 07:30:00","unavailable":{"systolic":1}}]"#,
            #"[{"systolic":1,"diastolic":80,"measured_at":"2026-11-20 07:30:00","flags":"bodyMovement"}]"#,
        ])
    func refused(object: String) {
        #expect {
            _ = try LayeredResponse(
                parsing: "myapp://?cmd=2&devicemodel=100&unit=2&status=0&result=" + PercentEncoding.encode(object))
        } throws: { error in
            (error as? LayeredError)?.parameter == "result"
        }
    }
}
