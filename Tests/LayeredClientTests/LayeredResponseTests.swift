import Foundation
import LayeredClient
import LayeredProtocol
import Testing
import VitalCore

@Suite("LayeredClient: callbacks read into typed results, matched to their requests, readings kept once")
struct LayeredResponseTests {
    static let client = LayeredClient(callback: .scheme("myapp"))
    static let mac = MACAddress("004D3208D2F4")!
    static let at = Timestamp(secondsSince1970: 1_700_000_000)

    /// The callback the hub writes for `intent` (built by the client, read by the hub's parser) with `readings`.
    static func callbackURL(
        _ intent: LayeredIntent, requestID: String = "r-1", status: ActionStatus? = nil,
        readings: [Reading] = [],
        measured: [Reading]? = nil, reason: LayeredReason? = nil, remaining: Int? = nil,
        device: MACAddress = mac
    ) throws -> String {
        let request = try client.request(for: intent, requestID: requestID)
        let unit = request.unit
        let objects = readings.map { $0.resultObject(unit: unit) }
        var result: LayeredResult? = readings.isEmpty ? nil : .list(objects)
        if let measured {
            result = .combined(measure: measured.map { $0.resultObject(unit: unit) }, sync: objects)
        }
        return try LayeredCallback(
            destination: "myapp://", echo: request.echo, status: status ?? .success(intent.action), mac: device,
            result: result, reason: reason, remaining: remaining
        ).url
    }

    @Test(
        "every kind of reading comes back typed, in every unit of its kind, with the value the hub wrote",
        arguments: [
            (
                DeviceModel.bp5,
                Reading.bloodPressure(
                    .init(systolic: 128.4, diastolic: 83.6, heartRate: 71, arrhythmia: true, measuredAt: at))
            ),
            (.bg5, .glucose(.init(mgPerDeciliter: 104.5, measuredAt: at))),
            (
                .hs4s,
                .weight(
                    .init(
                        kilograms: 71.234, measuredAt: at,
                        bodyComposition: .init(
                            bodyFatPercentage: 21.4, basalMetabolism: 6900, musclePercentage: 40.2, muscleMass: 30.15,
                            fatFreeMass: 55.9, softLeanMass: 52.3, bodyWaterMass: 40.1, impedance: 512.5)))
            ),
            (.hs2, .weight(.init(kilograms: 80, measuredAt: at))),
            (.thv3, .temperature(.init(celsius: 36.85, measuredAt: at))),
            (.po3, .oximetry(.init(oxygenSaturation: 97, heartRate: 64, perfusionIndex: 2.7, measuredAt: at))),
        ])
    func typedReadings(model: DeviceModel, reading: Reading) throws {
        let units: [VitalUnit?] = model.category.units.isEmpty ? [nil] : model.category.units
        for unit in units {
            let url = try Self.callbackURL(
                LayeredIntent(.sync, model, mac: Self.mac, unit: unit), readings: [reading, reading])
            let response = try LayeredResponse(parsing: url)
            #expect(response.succeeded && response.requestID == "r-1" && response.mac == Self.mac)
            #expect(response.readings.count == 2 && response.readings.allSatisfy { $0.origin == .stored })
            let received = try #require(response.readings.first)
            #expect(received.measuredAt == Self.at)
            func quantity(_ canonical: Double) -> Quantity? {
                unit.map { Quantity($0.resultValue(canonical: canonical)!, $0) }
            }
            switch (reading, received.value) {
            case (.bloodPressure(let bp), .bloodPressure(let systolic, let diastolic, let heartRate, let arrhythmia)):
                #expect(systolic == quantity(bp.systolic) && diastolic == quantity(bp.diastolic))
                #expect(heartRate == 71 && arrhythmia == true)
            case (.glucose(let glucose), .glucose(let value)):
                #expect(value == quantity(glucose.mgPerDeciliter))
            case (.weight(let weight), .weight(let value, let composition)):
                #expect(value == quantity(weight.kilograms))
                if let expected = weight.bodyComposition {
                    let composition = try #require(composition)
                    #expect(composition.bodyFat == FixedDecimal(rounding: 21.4, scale: 1))
                    #expect(composition.muscleMass == quantity(expected.muscleMass!))
                    #expect(composition.bodyWaterMass == quantity(expected.bodyWaterMass!))
                    #expect(composition.basalMetabolism == 6900)
                    #expect(composition.impedance == FixedDecimal(rounding: 512.5, scale: 1))
                } else {
                    #expect(composition == nil)
                }
            case (.temperature(let temperature), .temperature(let value)):
                #expect(value == quantity(temperature.celsius))
            case (.oximetry, .oximetry(let saturation, let heartRate, let perfusion)):
                #expect(saturation == 97 && heartRate == 64 && perfusion == FixedDecimal(rounding: 2.7, scale: 1))
            default:
                Issue.record("\(reading) came back as \(received.value)")
            }
        }
    }

    @Test("an activity monitor's day comes back with its steps, calories and distance unit")
    func activityDay() throws {
        let profile = ActivityProfile(
            userID: 1, age: 30, sex: .female, height: 170, weight: 60, swim: .off, distanceUnit: .mile)
        let day = ActivityDay(
            date: CalendarDate(year: 2026, month: 11, day: 20)!, steps: 8042, calories: 310, sleepMinutes: 420,
            sleepEfficiency: 88)
        let url = try Self.callbackURL(
            LayeredIntent(.sync, .am4, mac: Self.mac, unit: .mile, profile: profile), readings: [.activity(day)])
        let response = try LayeredResponse(parsing: url)
        let reading = try #require(response.readings.first)
        #expect(reading.value == .activity(day: "2026-11-20", steps: 8042, calories: 310, distance: nil))
        #expect(reading.measuredAt == nil)
        #expect(reading.object.object(.sleepData)?.number(.sleepTime) == FixedDecimal(420))
    }

    @Test("an activity monitor's day keeps its sleep and swimming, typed and described")
    func activitySleepAndSwim() throws {
        let profile = ActivityProfile(
            userID: 1, age: 30, sex: .female, height: 170, weight: 60, swim: .on, distanceUnit: .kilometre)
        let day = ActivityDay(
            date: CalendarDate(year: 2026, month: 11, day: 20)!, steps: 8042, calories: 310, sleepMinutes: 420,
            sleepEfficiency: 88, swimMinutes: 30, swimCalories: 210)
        let url = try Self.callbackURL(
            LayeredIntent(.sync, .am4, mac: Self.mac, unit: .kilometre, profile: profile), readings: [.activity(day)])
        let reading = try #require(try LayeredResponse(parsing: url).readings.first)
        let received = try #require(reading.day)
        #expect(received.sleep?.minutes == 420 && received.sleep?.efficiency == 88 && received.sleep?.deep == nil)
        #expect(received.swim?.minutes == 30 && received.swim?.calories == 210)
        #expect(received.heartRate == nil && received.sports.isEmpty)
        #expect(
            reading.description
                == "activity 2026-11-20: 8042 steps, 310 kcal; sleep 420 min (efficiency 88 %); swim 30 min, 210 kcal")
    }

    @Test("a band's day keeps its sleep phases, heart rate and every sport, typed and described")
    func bandDay() throws {
        let day = BandDay(
            date: CalendarDate(year: 2026, month: 11, day: 20)!, steps: 8421, calories: 312, distance: 6_120,
            sleep: .init(deep: 95, light: 270, awake: 47),
            heartRate: .init(minimum: 52, average: 71, maximum: 128, minutes: 1_380),
            sports: [
                .init(type: 1, start: 490, end: 525, calories: 120),
                .init(type: 0x88, start: 1_080, end: 1_125, calories: 310),
            ])
        let url = try Self.callbackURL(LayeredIntent(.sync, .fitPro9614N, mac: Self.mac), readings: [.band(day)])
        let reading = try #require(try LayeredResponse(parsing: url).readings.first)
        let received = try #require(reading.day)
        #expect(received.sleep?.minutes == 412 && received.sleep?.deep == 95 && received.sleep?.awake == 47)
        #expect(received.heartRate?.average == 71 && received.heartRate?.minutes == 1_380)
        #expect(received.sports.map(\.type) == [1, 0x88] && received.sports[1].start == "18:00:00")
        #expect(received.sports.map(\.calories) == [120, 310] && received.swim == nil)
        #expect(
            reading.description
                == "activity 2026-11-20: 8421 steps, 312 kcal, 6.12 km; "
                + "sleep 412 min (efficiency 88 %, deep 95, light 270, awake 47 min); "
                + "heart rate 52/71/128 /min (min/avg/max) over 1380 min; "
                + "sports 0x01 08:10:00–08:45:00 120 kcal, 0x88 18:00:00–18:45:00 310 kcal")
        // a band day without heart rate or sports says so by leaving them out
        var quiet = day
        quiet.heartRate = nil
        quiet.sports = []
        let plain = try #require(
            try LayeredResponse(
                parsing: Self.callbackURL(LayeredIntent(.sync, .fitPro9614N, mac: Self.mac), readings: [.band(quiet)])
            ).readings.first)
        #expect(plain.day?.heartRate == nil && plain.day?.sports == [])
        #expect(!plain.description.contains("heart rate") && !plain.description.contains("sports"))
    }

    @Test(
        "an activity day's sleep, swimming, heart rate or sports of the wrong shape is refused, naming it",
        arguments: [
            (#""sleepdata":7"#, "result object 1 has a sleepdata that is not an object"),
            (#""sleepdata":{"sleeptime":4.5}"#, "result object 1 has sleepdata.sleeptime that is not a whole number"),
            (#""swimdata":{"swimtime":"x"}"#, "result object 1 has swimdata.swimtime that is not a whole number"),
            (#""heartratedata":{"avg":70.5}"#, "result object 1 has heartratedata.avg that is not a whole number"),
            (#""sportdata":{"type":1}"#, "result object 1 has a sportdata that is not a list of sports"),
            (
                #""sportdata":[{"type":1,"start":"08:10:00"}]"#,
                "result object 1 has a sportdata[0] without its type, start and end"
            ),
        ])
    func badActivityParts(member: String, message: String) throws {
        let object = #"{"time":"2026-11-20","activedata":{"steps":1,"calories":2},"# + member + "}"
        let url =
            "myapp://?cmd=2&devicemodel=700&mac=004D3208D2F4&status=0&result=" + PercentEncoding.encode("[\(object)]")
        do {
            _ = try LayeredResponse(parsing: url)
            Issue.record("accepted \(member)")
        } catch {
            #expect(error.message == message, "\(error)")
            #expect(error.parameter == "result")
        }
    }

    @Test("a combined action's stages, the measured reading first, and what remains")
    func combined() throws {
        let live = Reading.bloodPressure(.init(systolic: 120, diastolic: 80, measuredAt: Self.at))
        let stored = Reading.bloodPressure(.init(systolic: 110, diastolic: 70, measuredAt: Self.at))
        let url = try Self.callbackURL(
            LayeredIntent(.syncMeasure, .bp5, mac: Self.mac), readings: [stored], measured: [live], remaining: 12)
        let response = try LayeredResponse(parsing: url)
        #expect(response.stages.map(\.outcome) == [.success, .success])
        #expect(response.readings.map(\.origin) == [.measured, .stored])
        #expect(response.remaining == 12)
        // a measure's plain list carries the live reading first, then what the hub still held
        let measure = try LayeredResponse(
            parsing: Self.callbackURL(LayeredIntent(.measure, .bp5, mac: Self.mac), readings: [live, stored]))
        #expect(measure.readings.map(\.origin) == [.measured, .stored])
    }

    @Test("a failed stage, a cancel and a device error are decoded; the reason names the device error")
    func failures() throws {
        let failed = try LayeredResponse(
            parsing: Self.callbackURL(
                LayeredIntent(.addSyncMeasure, .po3),
                status: ActionStatus(action: .addSyncMeasure, ran: [.success, .fail]),
                reason: .device(.po3, code: 3)))
        #expect(failed.outcome(of: .add) == .success && failed.outcome(of: .sync) == .fail)
        #expect(failed.outcome(of: .measure) == .notPerformed && !failed.succeeded && !failed.cancelled)
        #expect(failed.deviceFailure == DeviceFailure(model: .po3, code: 3))
        #expect(failed.deviceFailure?.description == "PO3 error 3")
        let cancelled = try LayeredResponse(
            parsing: Self.callbackURL(
                LayeredIntent(.sync, .bp5, mac: Self.mac), status: ActionStatus(rawValue: 2), reason: .cancel))
        #expect(cancelled.cancelled && cancelled.reason == .cancel && cancelled.deviceFailure == nil)
    }

    @Test(
        "a PO3 error reads as PO3ErrorID; 111 (the hub's) and 8 (the enum's) are both the authentication failure",
        arguments: [
            (111, PO3Error.userAuthentication), (8, .userAuthentication), (0, .communication), (3, .outOfRange),
            (6, .disconnected), (7, .noData),
        ])
    func po3Errors(code: Int, error: PO3Error) throws {
        let url =
            "myapp://?cmd=2&devicemodel=300&scheme=myapp&status=1&mac=004D3208D307&reason=ERROR-300-\(code)"
        let response = try LayeredResponse(parsing: url)
        #expect(response.deviceFailure?.po3Error == error)
    }

    @Test("a code the PO3 does not define, or another model's code, is no PO3 error")
    func notPO3Errors() throws {
        #expect(DeviceFailure(model: .po3, code: 9).po3Error == nil)
        #expect(DeviceFailure(model: .po3, code: 110).po3Error == nil)
        #expect(DeviceFailure(model: .bp5, code: 8).po3Error == nil)
    }

    @Test("an Android callback, its names in their original case, is read the same")
    func androidEcho() throws {
        let object = #"[{"blood_glucose":5.8,"measured_at":"2026-11-20 07:30:00"}]"#
        let response = try LayeredResponse(
            parsing: "myapp://?appid=com.example&cmd=2&deviceModel=400&Unit=0&requestId=r-9"
                + "&status=0&mac=004D3208D308&result=" + PercentEncoding.encode(object))
        #expect(response.requestID == "r-9" && response.action == .sync && response.model == .bg5)
        #expect(
            response.readings.first?.value == .glucose(Quantity(FixedDecimal(significand: 58, scale: 1), .mmolPerLiter))
        )
    }

    @Test(
        "a callback a caller cannot trust is refused, naming what is wrong",
        arguments: [
            ("myapp://?cmd=0&devicemodel=100&status=255", "status"),
            (
                "myapp://?cmd=2&status=0&result="
                    + PercentEncoding.encode(#"[{"systolic":1,"diastolic":2,"measured_at":"2026-01-01 00:00:00"}]"#),
                "devicemodel"
            ),
            (
                "myapp://?cmd=2&devicemodel=100&status=0&result="
                    + PercentEncoding.encode(#"[{"diastolic":2,"measured_at":"2026-01-01 00:00:00"}]"#),
                "result"
            ),
            (
                "myapp://?cmd=2&devicemodel=300&status=0&result="
                    + PercentEncoding.encode(
                        #"[{"oxygen_saturation":97.5,"heart_rate":60,"measured_at":"2026-01-01 00:00:00"}]"#),
                "result"
            ),
            (
                "myapp://?cmd=2&devicemodel=100&status=0&result="
                    + PercentEncoding.encode(#"[{"systolic":1,"diastolic":2}]"#), "result"
            ),
            ("myapp://?cmd=2&devicemodel=100&mac=12&status=0", "mac"),
        ])
    func refused(url: String, parameter: String) {
        #expect {
            _ = try LayeredResponse(parsing: url)
        } throws: { error in
            (error as? LayeredError)?.parameter == parameter
        }
    }

    @Test("the inbox matches callbacks to requests: in order, late, twice, and unasked, keeping every reading once")
    func inbox() throws {
        var inbox = LayeredInbox()
        let first = try inbox.send(LayeredIntent(.sync, .bp5, mac: Self.mac), with: Self.client)
        let second = try inbox.send(LayeredIntent(.measure, .bp5, mac: Self.mac), with: Self.client)
        let ids = try [first, second].map { url in
            try #require(LayeredRequest(parsing: url, platform: .ios).echo.first { $0.key == "requestid" }?.value)
        }
        #expect(inbox.outstanding == ids)
        let old = Reading.bloodPressure(.init(systolic: 110, diastolic: 70, measuredAt: Self.at))
        let live = Reading.bloodPressure(
            .init(systolic: 120, diastolic: 80, measuredAt: Timestamp(secondsSince1970: 1_700_000_600)))
        // the measure is answered first; it carries the old reading the sync will carry again
        let answer = try inbox.receive(
            Self.callbackURL(LayeredIntent(.measure, .bp5, mac: Self.mac), requestID: ids[1], readings: [live, old]))
        #expect(answer.match == .answer && answer.newReadings.count == 2 && answer.intent?.action == .measure)
        let late = try inbox.receive(
            Self.callbackURL(LayeredIntent(.sync, .bp5, mac: Self.mac), requestID: ids[0], readings: [old]))
        #expect(late.match == .outOfOrder && late.newReadings.isEmpty && late.repeatedReadings == 1)
        #expect(inbox.outstanding.isEmpty)
        let again = try inbox.receive(
            Self.callbackURL(LayeredIntent(.sync, .bp5, mac: Self.mac), requestID: ids[0], readings: [old]))
        #expect(again.match == .duplicate && again.newReadings.isEmpty)
        // a reading from a callback nobody here asked for is kept
        let other = Reading.bloodPressure(
            .init(systolic: 131, diastolic: 85, measuredAt: Timestamp(secondsSince1970: 1_700_001_000)))
        let unasked = try inbox.receive(
            Self.callbackURL(LayeredIntent(.sync, .bp5, mac: Self.mac), requestID: "r-unknown", readings: [other, old]))
        #expect(unasked.match == .unasked && unasked.intent == nil && unasked.newReadings.count == 1)
        // the same values on another device are another reading
        let elsewhere = try LayeredResponse(
            parsing: Self.callbackURL(
                LayeredIntent(.sync, .bp5, mac: Self.mac), readings: [old], device: MACAddress("004D3208D2F5")!))
        #expect(inbox.receive(elsewhere).newReadings.count == 1)
        // a bad callback changes nothing
        let before = inbox
        #expect(throws: LayeredError.self) { try inbox.receive("myapp://?cmd=2") }
        #expect(inbox == before)
    }

    @Test("a request built elsewhere (vitalbridge compose) is expected by its requestid; one without is refused")
    func expected() throws {
        var inbox = LayeredInbox()
        let url = try Self.client.url(for: LayeredIntent(.sync, .bp5, mac: Self.mac), requestID: "r-compose")
        try inbox.expect(requestURL: url)
        #expect(inbox.outstanding == ["r-compose"])
        let delivery = try inbox.receive(
            Self.callbackURL(LayeredIntent(.sync, .bp5, mac: Self.mac), requestID: "r-compose"))
        #expect(delivery.match == .answer && delivery.intent?.mac == Self.mac)
        #expect {
            try inbox.expect(requestURL: "ihealth-layer://?cmd=2&devicemodel=100&mac=004D3208D2F4&scheme=myapp")
        } throws: { error in
            (error as? LayeredError)?.parameter == "requestid"
        }
    }

    @Test("an inbox kept between processes (Codable) goes on where it stopped")
    func inboxKept() throws {
        var inbox = LayeredInbox()
        let profile = ActivityProfile(
            userID: 7, age: 40, sex: .male, height: 180, weight: 80, swim: .on, distanceUnit: .kilometre)
        _ = try inbox.send(
            LayeredIntent(.sync, .am4, mac: Self.mac, unit: .kilometre, profile: profile), with: Self.client)
        let url = try inbox.send(LayeredIntent(.sync, .bp5, mac: Self.mac), with: Self.client)
        let id = try #require(LayeredRequest(parsing: url, platform: .ios).echo.first { $0.key == "requestid" }?.value)
        let reading = Reading.bloodPressure(.init(systolic: 110, diastolic: 70, measuredAt: Self.at))
        _ = try inbox.receive(
            Self.callbackURL(LayeredIntent(.sync, .bp5, mac: Self.mac), requestID: id, readings: [reading]))
        var kept = try JSONDecoder().decode(LayeredInbox.self, from: JSONEncoder().encode(inbox))
        #expect(kept == inbox && kept.outstanding.count == 1)
        let again = try kept.receive(
            Self.callbackURL(LayeredIntent(.sync, .bp5, mac: Self.mac), requestID: id, readings: [reading]))
        #expect(again.match == .duplicate && again.newReadings.isEmpty)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(
                LayeredInbox.self,
                from: Data(
                    #"{"requests":[{"id":"r","url":"ihealth-layer://?cmd=9","sequence":1,"answered":false,"platform":"ios"}],"lastAnswered":0,"seen":[]}"#
                        .utf8))
        }
    }
}
