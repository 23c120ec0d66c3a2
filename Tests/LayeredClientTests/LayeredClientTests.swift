import LayeredClient
import LayeredProtocol
import Testing
import VitalCore

@Suite("LayeredClient: requests built and checked on the caller's side")
struct LayeredClientTests {
    static let client = LayeredClient(callback: .scheme("myapp"))
    static let profile = ActivityProfile(
        userID: 1111, age: 30, sex: .male, height: 180, weight: 80, swim: .on, distanceUnit: .kilometre)

    /// The intent a careful caller builds for `action` on `model`: what the action needs, nothing more.
    static func intent(_ action: LayeredAction, _ model: DeviceModel) -> LayeredIntent {
        var intent = LayeredIntent(action, model)
        if action.requiresMAC { intent.mac = MACAddress("004D3208D2F4") }
        if model.hasUserProfile {
            intent.profile = profile
            intent.unit = .kilometre
        } else if let unit = model.category.defaultUnit {
            intent.unit = unit
        }
        if model.requiresStripCode, action.includes(.measure) {
            intent.stripCode = StripCode(type: .qrCode, code: "02323C64323C1C2E4E")
        }
        return intent
    }

    @Test("every cmd every model supports builds a request the hub reads back as it was meant, with its requestid")
    func everySupportedRequest() throws {
        var built = 0
        for model in DeviceModel.allCases {
            for action in LayeredAction.allCases where model.supports(action) {
                let intent = Self.intent(action, model)
                let url = try Self.client.url(for: intent, requestID: "r-\(built)")
                // read as the hub reads it: the layered protocol's parser, from the URL's bytes
                let request = try LayeredRequest(parsing: url, platform: .ios)
                #expect(request.action == action && request.deviceModel == model, "\(url)")
                #expect(request.mac == intent.mac && request.requestedUnit == intent.unit, "\(url)")
                #expect(request.addType == (action.addsDevice ? .scan : nil))
                #expect(request.profile == intent.profile && request.stripCode == intent.stripCode)
                #expect(request.callerScheme == "myapp")
                #expect(request.echo.contains(QueryParameter(name: "requestid", value: "r-\(built)")), "\(url)")
                built += 1
            }
        }
        #expect(built > 60)
    }

    @Test(
        "an impossible request fails when it is built, with the error the hub would answer",
        arguments: [
            (
                LayeredIntent(.measure, .am4, mac: MACAddress("004D3208D306")), LayeredError.Code.unsupportedAction,
                "cmd"
            ),
            (LayeredIntent(.measure, .bp5, mac: MACAddress("004D3208D2F4"), unit: .kilogram), .unitMismatch, "unit"),
            (LayeredIntent(.sync, .bg5), .missingParameter, "mac"),
            (LayeredIntent(.add, .bg5, mac: MACAddress("004D3208D308")), .notApplicable, "mac"),
            (
                LayeredIntent(.sync, .am4, mac: MACAddress("004D3208D306"), unit: .kilometre), .missingParameter,
                "userid"
            ),
            (LayeredIntent(.measure, .bg5, mac: MACAddress("004D3208D308")), .missingParameter, "codetype"),
            (
                LayeredIntent(
                    .measure, .bp5, mac: MACAddress("004D3208D2F4"), since: Timestamp(secondsSince1970: 0)),
                .notApplicable, "since"
            ),
        ])
    func impossible(intent: LayeredIntent, code: LayeredError.Code, parameter: String) {
        #expect {
            try Self.client.url(for: intent, requestID: "r1")
        } throws: { error in
            guard let error = error as? LayeredError else { return false }
            return error.code == code && error.parameter == parameter
        }
    }

    @Test("a correlation id is 1–64 unreserved characters; an Android caller needs its appid")
    func requestIDAndPlatform() throws {
        let intent = LayeredIntent(.sync, .bg5, mac: MACAddress("004D3208D308"))
        for bad in ["", String(repeating: "a", count: 65), "r 1", "r&1", "r=1", "é", "r%201"] {
            #expect(throws: LayeredError.self) { try Self.client.url(for: intent, requestID: bad) }
        }
        #expect(
            try Self.client.url(for: intent, requestID: "r-1.a_~")
                == "ihealth-layer://?cmd=2&devicemodel=400&mac=004D3208D308&ver=100&requestid=r-1.a_~&scheme=myapp")
        let android = LayeredClient(callback: .scheme("myapp"), platform: .android)
        #expect(throws: LayeredError.self) { try android.url(for: intent, requestID: "r1") }
        let withID = LayeredClient(callback: .scheme("myapp"), platform: .android, appID: "com.example.app")
        #expect(try withID.request(for: intent, requestID: "r1").appID == "com.example.app")
    }

    @Test("a dynamic callback URL and a strip code are encoded so that the hub reads them back exactly")
    func encoding() throws {
        let client = LayeredClient(callback: .callerURL("https://example.com/cb/a%20b"))
        var intent = LayeredIntent(.measure, .bg5, mac: MACAddress("004D3208D308"), unit: .mmolPerLiter)
        intent.stripCode = StripCode(type: .other, code: "a&b=c+d %")
        let request = try client.request(for: intent, requestID: "r1")
        #expect(request.callerURL == "https://example.com/cb/a%20b")
        #expect(request.stripCode == intent.stripCode)
    }
}
