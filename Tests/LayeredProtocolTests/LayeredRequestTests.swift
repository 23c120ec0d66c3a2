import Testing
import VitalCore

@testable import LayeredProtocol

/// The spec's URLs with its placeholders filled in: `LAYERED_APP_SCHEME` → `ihealth-layer`,
/// `CALLER_APP_SCHEME` → `callerapp` (the placeholder's `_` is not allowed in a scheme), `MAC` → `004D3208D2F4`.
enum SpecURL {
    static let introMeasure = "ihealth-layer://?cmd=0&devicemodel=100&mac=004D3208D2F4&unit=2&ver=100&scheme=myapp"
    static let addAndroid =
        "ihealth-layer://?appid=AppID&cmd=1&addtype=0&devicemodel=100&ver=100&popflag=0&scheme=callerapp"
    static let addIOS = "ihealth-layer://?cmd=1&addtype=0&devicemodel=100&ver=100&popflag=0&scheme=callerapp"
    static let addAM3S =
        "ihealth-layer://?cmd=1&devicemodel=200&addtype=0&userid=1111&age=1&sex=0&height=11&weight=11&swim=0&unit=9&ver=100&scheme=callerapp"
    static let addAM4QR =
        "ihealth-layer://?cmd=1&devicemodel=201&addtype=1&userid=1111&age=1&sex=1&height=11&weight=11&swim=1&unit=10&ver=100&scheme=callerapp"
    /// The spec's BP5 measurement example: note `unit=0` (mmol/L), which is not a blood-pressure unit.
    static let measureExampleAndroid =
        "ihealth-layer://?appid=AppID&cmd=0&devicemodel=100&mac=004D3208D2F4&unit=0&ver=100&scheme=callerapp"
    static let syncAndroid =
        "ihealth-layer://?appid=AppID&cmd=2&devicemodel=100&mac=004D3208D2F4&unit=2&ver=100&scheme=callerapp"
    /// The spec's iOS sync URL, with its `cmd=1` typo.
    static let syncIOSAsWritten =
        "ihealth-layer://?cmd=1&devicemodel=100&mac=004D3208D2F4&unit=2&ver=100&scheme=callerapp"
    static let syncIOS = "ihealth-layer://?cmd=2&devicemodel=100&mac=004D3208D2F4&unit=2&ver=100&scheme=callerapp"
    static let syncAM =
        "ihealth-layer://?cmd=2&devicemodel=201&mac=004D3208D2F4&userid=1111&age=1&sex=0&height=11&weight=11&swim=1&unit=10&ver=100&scheme=callerapp"
    static let addMeasureAndroid =
        "ihealth-layer://?appid=AppID&cmd=3&devicemodel=100&unit=2&addtype=0&ver=100&scheme=callerapp"
    static let addSyncIOS = "ihealth-layer://?cmd=4&devicemodel=100&unit=2&addtype=0&ver=100&scheme=callerapp"
    static let addSyncMeasureIOS = "ihealth-layer://?cmd=5&devicemodel=100&unit=2&addtype=0&ver=100&scheme=callerapp"
    static let syncMeasureAndroid =
        "ihealth-layer://?appid=AppID&cmd=6&devicemodel=100&unit=2&mac=004D3208D2F4&ver=100&scheme=callerapp"
    static let dynamic =
        "ihealth-layer://?cmd=0&devicemodel=100&mac=004D3208D2F4&unit=2&ver=100&callerurl=my-dynamic-url-0x7765://"
}

@Suite("LayeredRequest")
struct LayeredRequestTests {
    @Test("parses the spec's introductory measurement URL")
    func intro() throws {
        let request = try LayeredRequest(parsing: SpecURL.introMeasure, platform: .ios)
        #expect(request.action == .measure)
        #expect(request.deviceModel == .bp5)
        #expect(request.mac?.description == "004D3208D2F4")
        #expect(request.unit == .mmHg)
        #expect(request.version == 100)
        #expect(request.callerScheme == "myapp")
        #expect(request.appID == nil)
        #expect(request.addType == nil)
    }

    @Test("parses the spec's add-device examples on both platforms")
    func add() throws {
        let android = try LayeredRequest(parsing: SpecURL.addAndroid, platform: .android)
        #expect(android.appID == "AppID")
        #expect(android.action == .add && android.addType == .scan && android.popFlag == .noPrompt)
        #expect(android.mac == nil)
        let ios = try LayeredRequest(parsing: SpecURL.addIOS, platform: .ios)
        #expect(ios.action == .add && ios.deviceModel == .bp5 && !ios.prompts)
    }

    @Test("parses the AM3S and AM4 profile")
    func activityProfile() throws {
        let am3s = try LayeredRequest(parsing: SpecURL.addAM3S, platform: .ios)
        #expect(
            am3s.profile
                == ActivityProfile(
                    userID: 1111, age: 1, sex: .female, height: 11, weight: 11, swim: .off, distanceUnit: .mile))
        let am4 = try LayeredRequest(parsing: SpecURL.addAM4QR, platform: .ios)
        #expect(am4.addType == .qrCode && am4.profile?.swim == .on && am4.profile?.sex == .male)
        #expect(am4.unit == .kilometre)
        let sync = try LayeredRequest(parsing: SpecURL.syncAM, platform: .ios)
        #expect(sync.action == .sync && sync.profile?.distanceUnit == .kilometre)
    }

    @Test("the spec's BP5 measurement example asks for mmol/L, a unit mismatch")
    func measureExample() {
        let error = #expect(throws: LayeredError.self) {
            try LayeredRequest(parsing: SpecURL.measureExampleAndroid, platform: .android)
        }
        #expect(error?.code == .unitMismatch)
        #expect(error?.reason.rawValue == "ERROR_UNIT_MISMATCH:unit")
    }

    @Test("sync uses cmd=2 on both platforms; the spec's iOS cmd=1 is add-device and rejected with mac")
    func sync() throws {
        #expect(try LayeredRequest(parsing: SpecURL.syncAndroid, platform: .android).action == .sync)
        #expect(try LayeredRequest(parsing: SpecURL.syncIOS, platform: .ios).action == .sync)
        let error = #expect(throws: LayeredError.self) {
            try LayeredRequest(parsing: SpecURL.syncIOSAsWritten, platform: .ios)
        }
        #expect(error?.code == .notApplicable && error?.parameter == "mac")
    }

    @Test("parses the combined actions")
    func combined() throws {
        let addMeasure = try LayeredRequest(parsing: SpecURL.addMeasureAndroid, platform: .android)
        #expect(addMeasure.action == .addMeasure && addMeasure.addType == .scan && addMeasure.mac == nil)
        #expect(try LayeredRequest(parsing: SpecURL.addSyncIOS, platform: .ios).action == .addSync)
        #expect(try LayeredRequest(parsing: SpecURL.addSyncMeasureIOS, platform: .ios).action == .addSyncMeasure)
        let syncMeasure = try LayeredRequest(parsing: SpecURL.syncMeasureAndroid, platform: .android)
        #expect(syncMeasure.action == .syncMeasure && syncMeasure.mac == MACAddress("004D3208D2F4"))
    }

    @Test("reads the dynamic callback URL under both spellings")
    func dynamic() throws {
        let request = try LayeredRequest(parsing: SpecURL.dynamic, platform: .ios)
        #expect(request.callerURL == "my-dynamic-url-0x7765://")
        #expect(request.callerScheme == nil)
        let other = SpecURL.dynamic.replacingOccurrences(of: "callerurl", with: "callurl")
        #expect(try LayeredRequest(parsing: other, platform: .ios).callerURL == "my-dynamic-url-0x7765://")
    }

    @Test("matches parameter names without case and keeps unknown parameters as sent")
    func caseAndUnknown() throws {
        let url =
            "IHEALTH-LAYER://?Cmd=0&deviceModel=100&MAC=004d3208d2f4&X-Trace=a%20b+c&flag&Unit=3&codeType%5F=1&ver=100&AppID=com.x"
        let request = try LayeredRequest(parsing: url, platform: .android)
        #expect(request.unit == .kPa)
        #expect(request.mac?.description == "004D3208D2F4")
        #expect(
            request.echo == [
                QueryParameter(name: "Cmd", value: "0"), QueryParameter(name: "deviceModel", value: "100"),
                QueryParameter(name: "X-Trace", value: "a%20b+c"), QueryParameter(name: "flag", value: nil),
                QueryParameter(name: "Unit", value: "3"), QueryParameter(name: "codeType%5F", value: "1"),
                QueryParameter(name: "ver", value: "100"), QueryParameter(name: "AppID", value: "com.x"),
            ])
        let ios = try LayeredRequest(parsing: url, platform: .ios)
        #expect(
            ios.echo.map(\.name) == ["cmd", "devicemodel", "x-trace", "flag", "unit", "codetype%5F", "ver", "appid"])
        #expect(ios.echo[2].value == "a%20b+c")
    }

    @Test("an absent ver means 100; absent unit means the category default")
    func defaults() throws {
        let request = try LayeredRequest(
            parsing: "ihealth-layer://?cmd=0&devicemodel=500&mac=AABBCCDDEEFF", platform: .ios)
        #expect(request.version == 100)
        #expect(request.unit == .kilogram)
        #expect(request.requestedUnit == nil)
    }

    @Test("the oximeter accepts any unit and reports none")
    func oximeterUnit() throws {
        let request = try LayeredRequest(
            parsing: "ihealth-layer://?cmd=0&devicemodel=300&mac=AABBCCDDEEFF&unit=2", platform: .ios)
        #expect(request.requestedUnit == .mmHg)
        #expect(request.unit == nil)
    }

    @Test("BG5 measurement reads its strip code")
    func stripCode() throws {
        let request = try LayeredRequest(
            parsing: "ihealth-layer://?cmd=0&devicemodel=400&mac=AABBCCDDEEFF&unit=0&codeType=0&code=02%2B3A%26x",
            platform: .ios)
        #expect(request.stripCode == StripCode(type: .qrCode, code: "02+3A&x"))
        #expect(request.unit == .mmolPerLiter)
        let sync = try LayeredRequest(
            parsing: "ihealth-layer://?cmd=2&devicemodel=400&mac=AABBCCDDEEFF", platform: .ios)
        #expect(sync.stripCode == nil)
    }

    @Test("since re-delivers from a time, for actions that sync; + reads as a space")
    func since() throws {
        for url in [
            "ihealth-layer://?cmd=2&devicemodel=100&mac=AABBCCDDEEFF&since=2026-11-19%2007:00:00",
            "ihealth-layer://?cmd=6&devicemodel=100&mac=AABBCCDDEEFF&since=2026-11-19+07:00:00",
        ] {
            #expect(
                try LayeredRequest(parsing: url, platform: .ios).since
                    == Timestamp(parsing: "2026-11-19 07:00:00"))
        }
        let bad = #expect(throws: LayeredError.self) {
            try LayeredRequest(
                parsing: "ihealth-layer://?cmd=2&devicemodel=100&mac=AABBCCDDEEFF&since=yesterday", platform: .ios)
        }
        #expect(bad?.code == .invalidValue && bad?.parameter == "since")
        let measure = #expect(throws: LayeredError.self) {
            try LayeredRequest(
                parsing: "ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCCDDEEFF&since=2026-11-19%2007:00:00",
                platform: .ios)
        }
        #expect(measure?.code == .notApplicable)
    }

    @Test("popflag 1 asks for a prompt")
    func popflag() throws {
        let request = try LayeredRequest(
            parsing: "ihealth-layer://?cmd=3&devicemodel=300&addtype=1&popflag=1", platform: .ios)
        #expect(request.prompts)
    }

    @Test("every (cmd, devicemodel) outside the matrix is an unsupported action")
    func matrix() throws {
        for action in LayeredAction.allCases {
            for model in DeviceModel.allCases {
                var url = "ihealth-layer://?cmd=\(action.rawValue)&devicemodel=\(model.rawValue)"
                if action.requiresMAC { url += "&mac=AABBCCDDEEFF" } else { url += "&addtype=0" }
                if model.hasUserProfile { url += "&userid=1&age=30&sex=1&height=180&weight=80&swim=0&unit=10" }
                if model.requiresStripCode, action.stages.contains(.measure) { url += "&codetype=1&code=X" }
                if model.supports(action) {
                    #expect(try LayeredRequest(parsing: url, platform: .ios).action == action)
                } else {
                    let error = #expect(throws: LayeredError.self) { try LayeredRequest(parsing: url, platform: .ios) }
                    #expect(error?.code == .unsupportedAction)
                    #expect(error?.reason == .unsupportedAction)
                }
            }
        }
    }

    /// A rejected URL, the error code it must raise, the parameter it must name, and the platform.
    typealias Rejection = (url: String, code: LayeredError.Code, parameter: String?, platform: Platform)

    static let rejections: [Rejection] = [
        ("https://?cmd=0&devicemodel=100&mac=AABBCCDDEEFF", .notLayeredURL, nil, .ios),
        ("ihealth-layers://?cmd=0", .notLayeredURL, nil, .ios),
        ("no scheme here", .malformedURL, nil, .ios),
        ("?cmd=0", .malformedURL, nil, .ios),
        ("ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCCDDEEFF&x=a b", .malformedURL, nil, .ios),
        ("ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCCDDEEFF&x=é", .malformedURL, nil, .ios),
        ("ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCCDDEEFF#frag", .malformedURL, nil, .ios),
        ("ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCCDDEEFF&x%G1=1", .malformedURL, nil, .ios),
        ("ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCC%4", .malformedURL, "mac", .ios),
        ("ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCCDDEEFF&scheme=my%00app", .malformedURL, "scheme", .ios),
        ("ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCCDDEEFF&scheme=%FF", .malformedURL, "scheme", .ios),
        ("ihealth-layer://?devicemodel=100&mac=AABBCCDDEEFF", .missingParameter, "cmd", .ios),
        ("ihealth-layer://?cmd=&devicemodel=100&mac=AABBCCDDEEFF", .missingParameter, "cmd", .ios),
        ("ihealth-layer://?cmd&devicemodel=100&mac=AABBCCDDEEFF", .missingParameter, "cmd", .ios),
        ("ihealth-layer://?cmd=7&devicemodel=100&mac=AABBCCDDEEFF", .invalidValue, "cmd", .ios),
        ("ihealth-layer://?cmd=-1&devicemodel=100&mac=AABBCCDDEEFF", .invalidValue, "cmd", .ios),
        ("ihealth-layer://?cmd=%2B0&devicemodel=100&mac=AABBCCDDEEFF", .invalidValue, "cmd", .ios),
        ("ihealth-layer://?cmd=0x0&devicemodel=100&mac=AABBCCDDEEFF", .invalidValue, "cmd", .ios),
        ("ihealth-layer://?cmd=0&mac=AABBCCDDEEFF", .missingParameter, "devicemodel", .ios),
        ("ihealth-layer://?cmd=0&devicemodel=401&mac=AABBCCDDEEFF", .invalidValue, "devicemodel", .ios),
        ("ihealth-layer://?cmd=0&devicemodel=BP5&mac=AABBCCDDEEFF", .invalidValue, "devicemodel", .ios),
        ("ihealth-layer://?cmd=0&devicemodel=100", .missingParameter, "mac", .ios),
        ("ihealth-layer://?cmd=2&devicemodel=100", .missingParameter, "mac", .ios),
        ("ihealth-layer://?cmd=6&devicemodel=100", .missingParameter, "mac", .ios),
        ("ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCCDDEEF", .invalidValue, "mac", .ios),
        ("ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCCDDEEFFA", .invalidValue, "mac", .ios),
        ("ihealth-layer://?cmd=0&devicemodel=100&mac=AA:BB:CC:DD:EE:FF", .invalidValue, "mac", .ios),
        ("ihealth-layer://?cmd=0&devicemodel=100&mac=GGBBCCDDEEFF", .invalidValue, "mac", .ios),
        ("ihealth-layer://?cmd=1&devicemodel=100", .missingParameter, "addtype", .ios),
        ("ihealth-layer://?cmd=3&devicemodel=100", .missingParameter, "addtype", .ios),
        ("ihealth-layer://?cmd=4&devicemodel=100", .missingParameter, "addtype", .ios),
        ("ihealth-layer://?cmd=5&devicemodel=100", .missingParameter, "addtype", .ios),
        ("ihealth-layer://?cmd=1&devicemodel=100&addtype=2", .invalidValue, "addtype", .ios),
        ("ihealth-layer://?cmd=1&devicemodel=100&addtype=0&mac=AABBCCDDEEFF", .notApplicable, "mac", .ios),
        ("ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCCDDEEFF&addtype=0", .notApplicable, "addtype", .ios),
        ("ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCCDDEEFF&popflag=1", .notApplicable, "popflag", .ios),
        ("ihealth-layer://?cmd=1&devicemodel=100&addtype=0&popflag=2", .invalidValue, "popflag", .ios),
        ("ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCCDDEEFF&unit=11", .invalidValue, "unit", .ios),
        ("ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCCDDEEFF&unit=4", .unitMismatch, "unit", .ios),
        ("ihealth-layer://?cmd=0&devicemodel=500&mac=AABBCCDDEEFF&unit=2", .unitMismatch, "unit", .ios),
        ("ihealth-layer://?cmd=0&devicemodel=600&mac=AABBCCDDEEFF&unit=1", .unitMismatch, "unit", .ios),
        ("ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCCDDEEFF&ver=101", .unsupportedVersion, "ver", .ios),
        ("ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCCDDEEFF&ver=1.0", .unsupportedVersion, "ver", .ios),
        ("ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCCDDEEFF&ver=", .missingParameter, "ver", .ios),
        ("ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCCDDEEFF", .missingParameter, "appid", .android),
        ("ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCCDDEEFF&appid=", .missingParameter, "appid", .android),
        ("ihealth-layer://?cmd=0&cmd=0&devicemodel=100&mac=AABBCCDDEEFF", .repeatedParameter, "cmd", .ios),
        ("ihealth-layer://?cmd=0&CMD=0&devicemodel=100&mac=AABBCCDDEEFF", .repeatedParameter, "cmd", .ios),
        ("ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCCDDEEFF&x=1&X=2", .repeatedParameter, "x", .ios),
        (
            "ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCCDDEEFF&callerurl=a://&callurl=b://", .repeatedParameter,
            "callurl", .ios
        ),
        ("ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCCDDEEFF&status=0", .reservedParameter, "status", .ios),
        ("ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCCDDEEFF&Result=x", .reservedParameter, "result", .ios),
        ("ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCCDDEEFF&reason=x", .reservedParameter, "reason", .ios),
        ("ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCCDDEEFF&remaining=1", .reservedParameter, "remaining", .ios),
        ("ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCCDDEEFF&scheme=my_app", .invalidValue, "scheme", .ios),
        ("ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCCDDEEFF&scheme=1app", .invalidValue, "scheme", .ios),
        ("ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCCDDEEFF&scheme=app://", .invalidValue, "scheme", .ios),
        ("ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCCDDEEFF&callerurl=nocolon", .invalidValue, "callerurl", .ios),
        (
            "ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCCDDEEFF&callerurl=a://x%3Fy=1", .invalidValue, "callerurl",
            .ios
        ),
        ("ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCCDDEEFF&callurl=a://x%20y", .invalidValue, "callerurl", .ios),
        // activity monitor profile
        (
            "ihealth-layer://?cmd=1&devicemodel=200&addtype=0&age=1&sex=0&height=11&weight=11&swim=0&unit=9",
            .missingParameter, "userid", .ios
        ),
        (
            "ihealth-layer://?cmd=1&devicemodel=200&addtype=0&userid=0&age=1&sex=0&height=11&weight=11&swim=0&unit=9",
            .invalidValue, "userid", .ios
        ),
        (
            "ihealth-layer://?cmd=1&devicemodel=200&addtype=0&userid=2147483648&age=1&sex=0&height=11&weight=11&swim=0&unit=9",
            .invalidValue, "userid", .ios
        ),
        (
            "ihealth-layer://?cmd=1&devicemodel=200&addtype=0&userid=1&sex=0&height=11&weight=11&swim=0&unit=9",
            .missingParameter, "age", .ios
        ),
        (
            "ihealth-layer://?cmd=1&devicemodel=200&addtype=0&userid=1&age=256&sex=0&height=11&weight=11&swim=0&unit=9",
            .invalidValue, "age", .ios
        ),
        (
            "ihealth-layer://?cmd=1&devicemodel=200&addtype=0&userid=1&age=1&height=11&weight=11&swim=0&unit=9",
            .missingParameter, "sex", .ios
        ),
        (
            "ihealth-layer://?cmd=1&devicemodel=200&addtype=0&userid=1&age=1&sex=2&height=11&weight=11&swim=0&unit=9",
            .invalidValue, "sex", .ios
        ),
        (
            "ihealth-layer://?cmd=1&devicemodel=200&addtype=0&userid=1&age=1&sex=0&height=0&weight=11&swim=0&unit=9",
            .invalidValue, "height", .ios
        ),
        (
            "ihealth-layer://?cmd=1&devicemodel=200&addtype=0&userid=1&age=1&sex=0&height=11&swim=0&unit=9",
            .missingParameter, "weight", .ios
        ),
        (
            "ihealth-layer://?cmd=1&devicemodel=200&addtype=0&userid=1&age=1&sex=0&height=11&weight=300&swim=0&unit=9",
            .invalidValue, "weight", .ios
        ),
        (
            "ihealth-layer://?cmd=1&devicemodel=200&addtype=0&userid=1&age=1&sex=0&height=11&weight=11&unit=9",
            .missingParameter, "swim", .ios
        ),
        (
            "ihealth-layer://?cmd=1&devicemodel=200&addtype=0&userid=1&age=1&sex=0&height=11&weight=11&swim=3&unit=9",
            .invalidValue, "swim", .ios
        ),
        (
            "ihealth-layer://?cmd=1&devicemodel=200&addtype=0&userid=1&age=1&sex=0&height=11&weight=11&swim=0",
            .missingParameter, "unit", .ios
        ),
        (
            "ihealth-layer://?cmd=1&devicemodel=200&addtype=0&userid=1&age=1&sex=0&height=11&weight=11&swim=0&unit=2",
            .unitMismatch, "unit", .ios
        ),
        ("ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCCDDEEFF&userid=1", .notApplicable, "userid", .ios),
        ("ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCCDDEEFF&swim=1", .notApplicable, "swim", .ios),
        // BG5 strip code
        ("ihealth-layer://?cmd=0&devicemodel=400&mac=AABBCCDDEEFF&code=X", .missingParameter, "codetype", .ios),
        ("ihealth-layer://?cmd=0&devicemodel=400&mac=AABBCCDDEEFF&codetype=0", .missingParameter, "code", .ios),
        ("ihealth-layer://?cmd=0&devicemodel=400&mac=AABBCCDDEEFF&codetype=2&code=X", .invalidValue, "codetype", .ios),
        ("ihealth-layer://?cmd=0&devicemodel=400&mac=AABBCCDDEEFF&codetype=0&code=", .missingParameter, "code", .ios),
        ("ihealth-layer://?cmd=0&devicemodel=100&mac=AABBCCDDEEFF&codetype=0&code=X", .notApplicable, "codetype", .ios),
        ("ihealth-layer://?cmd=2&devicemodel=400&mac=AABBCCDDEEFF&codetype=0&code=X", .notApplicable, "codetype", .ios),
    ]

    @Test("rejects bad requests with an error naming the parameter", arguments: rejections)
    func rejection(_ rejection: Rejection) {
        let error = #expect(throws: LayeredError.self) {
            try LayeredRequest(parsing: rejection.url, platform: rejection.platform)
        }
        #expect(error?.code == rejection.code, "\(rejection.url)")
        #expect(error?.parameter == rejection.parameter, "\(rejection.url)")
        if let error, let parameter = rejection.parameter, error.code != .unsupportedAction {
            #expect(error.reason.parameter == parameter)
            #expect(error.description.contains(parameter))
        }
    }

    @Test("error descriptions never repeat a parameter's value")
    func descriptionsHideValues() {
        let secret = "SECRET12345"
        for url in [
            "ihealth-layer://?cmd=\(secret)&devicemodel=100", "ihealth-layer://?cmd=0&devicemodel=\(secret)",
            "ihealth-layer://?cmd=0&devicemodel=100&mac=\(secret)",
            "ihealth-layer://?cmd=1&devicemodel=200&addtype=0&userid=\(secret)",
        ] {
            let error = #expect(throws: LayeredError.self) { try LayeredRequest(parsing: url, platform: .ios) }
            #expect(error.map { !$0.description.contains(secret) && !$0.reason.rawValue.contains(secret) } == true)
        }
    }

    @Test("requests longer than the budget are rejected before anything else")
    func tooLong() throws {
        let long = SpecURL.introMeasure + "&pad=" + String(repeating: "x", count: 20_000)
        let error = #expect(throws: LayeredError.self) { try LayeredRequest(parsing: long, platform: .ios) }
        #expect(error?.code == .requestTooLong)
        #expect(error?.reason == .requestTooLong)
        #expect(try LayeredRequest(parsing: long + "&appid=x", platform: .android).action == .measure)
        #expect(throws: LayeredError.self) {
            try LayeredRequest(parsing: SpecURL.introMeasure, platform: .ios, maximumLength: 20)
        }
    }

    @Test("a scheme of our own can be configured, compared without case")
    func ownScheme() throws {
        let url = "VitalBridge://?cmd=0&devicemodel=100&mac=004D3208D2F4"
        #expect(try LayeredRequest(parsing: url, platform: .ios, scheme: "vitalbridge").action == .measure)
        #expect(throws: LayeredError.self) { try LayeredRequest(parsing: url, platform: .ios) }
    }

    @Test("empty pieces between ampersands are skipped")
    func emptyPieces() throws {
        let request = try LayeredRequest(
            parsing: "ihealth-layer://?&cmd=0&&devicemodel=100&mac=AABBCCDDEEFF&", platform: .ios)
        #expect(request.query.parameters.count == 3)
    }

    @Test("the echo of a query repeats only the first of a repeated name, and never mac or answer parameters")
    func echoOfBadQuery() throws {
        let query = try LayeredQuery(
            parsing: "ihealth-layer://?cmd=0&x=1&X=2&mac=AABBCCDDEEFF&status=9&y", maximumLength: 1000)
        #expect(
            query.echo(for: .ios) == [
                .init(name: "cmd", value: "0"), .init(name: "x", value: "1"), .init(name: "y", value: nil),
            ])
    }
}

extension String {
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
