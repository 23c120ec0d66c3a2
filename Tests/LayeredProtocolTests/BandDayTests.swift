import Testing
import VitalCore

@testable import LayeredProtocol

/// VitalBridge's smartbands (700–702) through the layered protocol: the catalog, requests and the extended
/// activity-day result.
@Suite("Smartbands in the layered protocol")
struct BandDayTests {
    /// The issue's example day.
    static let example = BandDay(
        date: CalendarDate(year: 2026, month: 11, day: 20)!, steps: 8421, calories: 312, distance: 6120,
        sleep: .init(deep: 95, light: 270, awake: 47),
        heartRate: .init(minimum: 52, average: 71, maximum: 128, minutes: 1380),
        sports: [.init(type: 1, start: 8 * 60 + 10, end: 8 * 60 + 45, calories: 120)])

    @Test("a band day is the AM day extended, exactly as the issue writes it")
    func example() {
        #expect(
            Reading.band(Self.example).resultObject(unit: .kilometre).json
                == #"{"time":"2026-11-20","activedata":{"steps":8421,"calories":312,"distance":6.12},"sleepdata":{"sleeptime":412,"sleepefficiency":88,"deep":95,"light":270,"awake":47},"heartratedata":{"min":52,"avg":71,"max":128,"minutes":1380},"sportdata":[{"type":1,"start":"08:10:00","end":"08:45:00","calories":120}]}"#
        )
    }

    @Test("distance follows unit 9 (miles) or 10 (km), two decimals; no unit is km")
    func distanceUnits() {
        let reading = Reading.band(Self.example)
        #expect(reading.resultObject(unit: .mile).object(.activeData)?.number(.distance)?.description == "3.80")
        #expect(reading.resultObject(unit: nil).object(.activeData)?.number(.distance)?.description == "6.12")
    }

    @Test("a day without heart-rate minutes has no heartratedata, a day without sports an empty sportdata")
    func emptyParts() {
        var day = Self.example
        day.heartRate = nil
        day.sports = []
        day.sleep = .init(deep: 0, light: 0, awake: 0)
        let json = Reading.band(day).resultObject(unit: .kilometre).json
        #expect(!json.contains("heartratedata"))
        #expect(
            json.hasSuffix(
                #""sleepdata":{"sleeptime":0,"sleepefficiency":0,"deep":0,"light":0,"awake":0},"sportdata":[]}"#))
    }

    @Test("a result of band days parses back to the same objects, sportdata a list of objects")
    func roundTrip() throws {
        let object = Reading.band(Self.example).resultObject(unit: .kilometre)
        let result = LayeredResult.list([object, object])
        #expect(try LayeredResult(json: result.json) == result)
        #expect(object.list(.sportData)?.first?.string(.start) == "08:10:00")
        // arrays of anything but objects are still refused
        #expect(throws: LayeredError.self) { try LayeredResult(json: #"[{"sportdata":[1,2]}]"#) }
        #expect(throws: LayeredError.self) { try LayeredResult(json: #"[{"sportdata":[[]]}]"#) }
    }

    @Test("700, 701 and 702 are VitalBridge's smartbands: added and synced like the AM monitors, never measured")
    func catalog() {
        for model in [DeviceModel.fitPro9614N, .fitPulse9615N, .smarteeTraining9616N] {
            #expect(model.isSmartband && model.category == .activity && !model.hasUserProfile)
            #expect(LayeredAction.allCases.filter(model.supports) == [.add, .sync, .addSync])
        }
        #expect(DeviceModel(rawValue: 700)?.name == "FitPro9614N")
        #expect(DeviceModel(modelString: "fitpulse9615n") == .fitPulse9615N)
        #expect(DeviceModel(modelString: "SmarteeTraining9616N") == .smarteeTraining9616N)
        #expect(!DeviceModel.am4.isSmartband && DeviceModel.am4.hasUserProfile)
    }

    @Test(
        "a band request takes unit 9 or 10 and no AM profile; a measure, a blood-pressure unit or a profile is refused")
    func requests() throws {
        let sync = try LayeredRequest(
            parsing: "ihealth-layer://?cmd=2&devicemodel=700&mac=004D3208D310&unit=9&ver=100&scheme=callerapp",
            platform: .ios)
        #expect(sync.deviceModel == .fitPro9614N && sync.requestedUnit == .mile && sync.profile == nil)
        let add = try LayeredRequest(
            parsing: "ihealth-layer://?cmd=4&devicemodel=702&addtype=1&ver=100&scheme=callerapp", platform: .ios)
        #expect(add.action == .addSync && add.requestedUnit == nil)
        func refusal(_ query: String) -> LayeredError.Code? {
            do {
                _ = try LayeredRequest(parsing: "ihealth-layer://?\(query)&ver=100&scheme=callerapp", platform: .ios)
                return nil
            } catch {
                return error.code
            }
        }
        #expect(refusal("cmd=0&devicemodel=701&mac=004D3208D311") == .unsupportedAction)
        #expect(refusal("cmd=2&devicemodel=701&mac=004D3208D311&unit=2") == .unitMismatch)
        #expect(refusal("cmd=2&devicemodel=701&mac=004D3208D311&userid=5") == .notApplicable)
        #expect(refusal("cmd=2&devicemodel=703&mac=004D3208D311") == .invalidValue)
    }

    @Test("QR text MODEL:MAC names a band by its model string")
    func qr() throws {
        let code = try DeviceQRCode(parsing: "FitPro9614N:004D3208D310", requestedModel: .fitPro9614N)
        #expect(code.model == .fitPro9614N && code.mac.description == "004D3208D310")
        #expect(throws: LayeredError.self) {
            try DeviceQRCode(parsing: "FitPulse9615N:004D3208D310", requestedModel: .fitPro9614N)
        }
    }
}
