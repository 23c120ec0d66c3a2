import LayeredProtocol
import ShareVitalSigns
import Testing
import VitalCore
import VitalSimulation
import VitalStore

@testable import VitalBridge

/// The engine's callback path carries what a device said beyond the values.
@Suite("The engine delivers statuses and unavailable values")
struct AnnotatedDeliveryTests {
    static let bp5 = "004D3208D2F4"

    @Test("a pending reading with annotations is delivered with its flags and without its unavailable key")
    func pendingAnnotated() async throws {
        let engine = try Engine([FleetDevice(model: "BP5", mac: Self.bp5)])
        // the caller asks for the device once: from then on, what the device stores is pending for it
        _ = try await engine.callback(request(.sync, .bp5, Self.bp5, unit: 2))
        let time = Timestamp(year: 2026, month: 11, day: 20, hour: 9, minute: 0, second: 0)!
        var reading = Reading.bloodPressure(
            .init(systolic: 0, diastolic: 84, heartRate: 66, measuredAt: time))
        reading.markUnavailable(ReadingKind.bloodPressure.fields[0], .positiveInfinity)
        reading.annotations.status = [.irregularPulse, .pulseRateTooLow]
        let plain = Reading.bloodPressure(
            .init(
                systolic: 118, diastolic: 77, measuredAt: Timestamp(secondsSince1970: time.secondsSince1970 + 60)
            ))
        try engine.store.readings.store([reading, plain], device: MACAddress(Self.bp5)!)
        let callback = try await engine.callback(request(.sync, .bp5, Self.bp5, unit: 2))
        guard case .list(let objects)? = callback.result else {
            Issue.record("no result in \(callback)")
            return
        }
        #expect(objects.suffix(2) == [reading.resultObject(unit: .mmHg), plain.resultObject(unit: .mmHg)])
        let delivered = try #require(objects.suffix(2).first)
        #expect(delivered[.systolic] == nil && delivered.number(.diastolic) == FixedDecimal(84))
        #expect(delivered.strings(.flags) == ["irregularPulse", "pulseRateTooLow"])
        #expect(delivered.object(.unavailable) == ResultObject([.init(.systolic, .string("+INF"))]))
        #expect(
            callback.url.contains(
                "%22flags%22:%5B%22irregularPulse%22,%22pulseRateTooLow%22%5D,%22unavailable%22:%7B%22systolic%22:%22%2BINF%22%7D"
            ))
        // the journal says both were delivered
        let ids = try engine.store.readings.all().suffix(2).map(\.id)
        #expect(Set(try engine.store.journal.deliveries().last!.readingIDs).isSuperset(of: ids))
    }

    @Test(
        "a ShareVitalSigns answer leaves out a value the device could not measure, never answering it as a number",
        arguments: SpecialValue.allCases)
    func svsLeavesOutUnmeasured(special: SpecialValue) throws {
        let time = Timestamp(secondsSince1970: 1_763_600_000)
        var bp = Reading.bloodPressure(.init(systolic: 0, diastolic: 82, measuredAt: time))
        bp.markUnavailable(ReadingKind.bloodPressure.fields[0], special)
        let values = try #require(Bridge.svsValues(of: bp))
        #expect(values[4] == nil && values[5]?.value == .number(82))
        var oximetry = Reading.oximetry(.init(oxygenSaturation: 0, heartRate: 61, measuredAt: time))
        oximetry.markUnavailable(try #require(ReadingKind.oximetry.fields.first { $0.column == .spo2 }), special)
        let oxygen = try #require(Bridge.svsValues(of: oximetry))
        #expect(oxygen[2] == nil && oxygen[0]?.value == .number(61))
        var temperature = Reading.temperature(.init(celsius: 0, measuredAt: time))
        temperature.markUnavailable(ReadingKind.temperature.fields[0], special)
        #expect(try #require(Bridge.svsValues(of: temperature)).isEmpty)
        // a reading the device measured whole answers every value, as before
        let whole = try #require(
            Bridge.svsValues(of: .bloodPressure(.init(systolic: 121.4, diastolic: 82, measuredAt: time))))
        #expect(whole[4]?.value == .number(121) && whole[5]?.value == .number(82))
    }

    @Test("a ShareVitalSigns answer's values carry the quality of what the device reported with the reading")
    func svsQuality() throws {
        let time = Timestamp(secondsSince1970: 1_763_600_000)
        var bp = Reading.bloodPressure(.init(systolic: 121, diastolic: 82, measuredAt: time))
        #expect(try #require(Bridge.svsValues(of: bp))[4]?.quality.value == 100)
        bp.annotations.status = [.bodyMovement, .irregularPulse]
        let flagged = try #require(Bridge.svsValues(of: bp))
        #expect(flagged[4]?.quality.value == 60 && flagged[5]?.quality.value == 60)
        var oximetry = Reading.oximetry(
            .init(oxygenSaturation: 96, heartRate: 61, perfusionIndex: 0.2, measuredAt: time))
        let weak = try #require(Bridge.svsValues(of: oximetry))
        #expect(weak[0]?.quality.value == 70 && weak[2]?.quality.value == 70)
        oximetry.annotations.status = try #require(ReadingStatus(names: ["sensorUnconnectedToUser"]))
        let off = try #require(Bridge.svsValues(of: oximetry))
        #expect(off[0]?.quality.value == 0 && off[2]?.quality.value == 0)
        #expect(Bridge.svsValues(of: .glucose(.init(mgPerDeciliter: 100, measuredAt: time))) == nil)
    }
}
