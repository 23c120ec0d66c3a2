import Foundation
import Testing
import VitalCore

@testable import LayeredProtocol

@Suite("LayeredCallback")
struct LayeredCallbackTests {
    static let at = Timestamp(year: 2017, month: 10, day: 10, hour: 10, minute: 10, second: 10)!
    static let bp = Reading.bloodPressure(
        .init(systolic: 10, diastolic: 10, heartRate: 10, arrhythmia: false, measuredAt: at))
    static let mac = MACAddress("004D3208D2F4")!
    static let bpJSON =
        "%7B%22systolic%22:10,%22diastolic%22:10,%22heart_rate%22:10,%22arrhythmia%22:0,%22measured_at%22:%222017-10-10%2010:10:10%22%7D"

    func request(_ url: String, _ platform: Platform = .ios) throws -> LayeredRequest {
        try LayeredRequest(parsing: url, platform: platform)
    }

    @Test("measurement success, cancel and fail are shaped as the spec's examples")
    func measurement() throws {
        let request = try request(SpecURL.introMeasure)
        let destination = LayeredCallback.destination(scheme: request.callerScheme!)
        let success = try LayeredCallback(
            answering: request, destination: destination, status: .success,
            result: .list([Self.bp.resultObject(unit: request.unit)]))
        #expect(
            success.url
                == "myapp://?cmd=0&devicemodel=100&unit=2&ver=100&scheme=myapp&status=0&mac=004D3208D2F4&result=%5B\(Self.bpJSON)%5D"
        )
        let cancel = try LayeredCallback(answering: request, destination: destination, status: .cancel, reason: .cancel)
        #expect(
            cancel.url
                == "myapp://?cmd=0&devicemodel=100&unit=2&ver=100&scheme=myapp&status=2&mac=004D3208D2F4&reason=ERROR_CANCEL"
        )
        let fail = try LayeredCallback(
            answering: request, destination: destination, status: .fail, reason: .device(.bp5, code: 3))
        #expect(
            fail.url
                == "myapp://?cmd=0&devicemodel=100&unit=2&ver=100&scheme=myapp&status=1&mac=004D3208D2F4&reason=ERROR-100-3"
        )
    }

    @Test("add success carries the new MAC; cancel and fail carry none")
    func add() throws {
        let request = try request(SpecURL.addIOS)
        let destination = "callerapp://"
        let success = try LayeredCallback(answering: request, destination: destination, status: .success, mac: Self.mac)
        #expect(
            success.url
                == "callerapp://?cmd=1&addtype=0&devicemodel=100&ver=100&popflag=0&scheme=callerapp&status=0&mac=004D3208D2F4"
        )
        let cancel = try LayeredCallback(answering: request, destination: destination, status: .cancel, reason: .cancel)
        #expect(cancel.url.hasSuffix("&status=2&reason=ERROR_CANCEL"))
        let fail = try LayeredCallback(
            answering: request, destination: destination, status: .fail, reason: .deviceNotFound)
        #expect(fail.url.hasSuffix("scheme=callerapp&status=1&reason=ERROR_DEVICE_NOT_FOUND"))
    }

    @Test("the AM add callback repeats the profile")
    func amAdd() throws {
        let request = try request(SpecURL.addAM3S)
        let callback = try LayeredCallback(
            answering: request, destination: "callerapp://", status: .success, mac: Self.mac)
        let items = try #require(URLComponents(string: callback.url)?.queryItems)
        for name in ["userid", "age", "sex", "height", "weight", "swim", "unit"] {
            #expect(items.first { $0.name == name }?.value == request.query.first(name)?.value)
        }
        #expect(request.profile?.parameters.map(\.name) == ["userid", "age", "sex", "height", "weight", "swim"])
    }

    @Test("sync callbacks repeat cmd=2 and carry the list of readings")
    func sync() throws {
        let request = try request(SpecURL.syncIOS)
        let callback = try LayeredCallback(
            answering: request, destination: "callerapp://", status: .success,
            result: .list([Self.bp, Self.bp].map { $0.resultObject(unit: request.unit) }))
        #expect(
            callback.url
                == "callerapp://?cmd=2&devicemodel=100&unit=2&ver=100&scheme=callerapp&status=0&mac=004D3208D2F4&result=%5B\(Self.bpJSON),\(Self.bpJSON)%5D"
        )
    }

    @Test("combined actions answer the composite status and measureresult/syncresult")
    func combined() throws {
        let request = try request(SpecURL.syncMeasureAndroid, .android)
        let object = Self.bp.resultObject(unit: request.unit)
        let callback = try LayeredCallback(
            answering: request, destination: "callerapp://", status: .success(.syncMeasure),
            result: .combined(measure: [object], sync: [object]))
        #expect(
            callback.url
                == "callerapp://?appid=AppID&cmd=6&devicemodel=100&unit=2&ver=100&scheme=callerapp&status=255&mac=004D3208D2F4&result=%7B%22measureresult%22:%5B\(Self.bpJSON)%5D,%22syncresult%22:%5B\(Self.bpJSON)%5D%7D"
        )
        let addSync = try self.request(SpecURL.addSyncIOS)
        let failed = try LayeredCallback(
            answering: addSync, destination: "callerapp://",
            status: ActionStatus(action: .addSync, ran: [.success, .fail])!,
            mac: Self.mac, reason: .device(.bp5, code: 4))
        #expect(failed.url.hasSuffix("&status=61711&mac=004D3208D2F4&reason=ERROR-100-4"))
    }

    @Test("a standard query parser recovers every generated value exactly")
    func foundationRecovers() throws {
        let request = try request(SpecURL.syncIOS)
        let object = Self.bp.resultObject(unit: request.unit)
        let reason = LayeredReason(rawValue: "odd & = + # % ; \" { } é 😀")
        let callback = try LayeredCallback(
            answering: request, destination: "callerapp://", status: .success, result: .list([object]), reason: reason)
        let items = try #require(URLComponents(string: callback.url)?.queryItems)
        #expect(items.first { $0.name == "result" }?.value == LayeredResult.list([object]).json)
        #expect(items.first { $0.name == "reason" }?.value == reason.rawValue)
        #expect(items.first { $0.name == "mac" }?.value == "004D3208D2F4")
    }

    @Test("the generated percent-encoding leaves only unreserved characters, ':' and ','")
    func allowedSet() {
        var all = ""
        for scalar in (0x20...0x7E).compactMap(Unicode.Scalar.init) { all.unicodeScalars.append(scalar) }
        let encoded = PercentEncoding.encode(all)
        #expect(
            encoded
                == "%20%21%22%23%24%25%26%27%28%29%2A%2B,-.%2F0123456789:%3B%3C%3D%3E%3F%40ABCDEFGHIJKLMNOPQRSTUVWXYZ%5B%5C%5D%5E_%60abcdefghijklmnopqrstuvwxyz%7B%7C%7D~"
        )
        #expect(PercentEncoding.encodedLength(of: all) == encoded.utf8.count)
        #expect(PercentEncoding.encode("é😀") == "%C3%A9%F0%9F%98%80")
        #expect(PercentEncoding.decode(encoded) == all)
        #expect(PercentEncoding.decode("a+b") == "a+b")
        #expect(PercentEncoding.decode("%") == nil)
        #expect(PercentEncoding.decode("%2") == nil)
        #expect(PercentEncoding.decode("%00") == nil)
        #expect(PercentEncoding.decode("%C3") == nil)
    }

    @Test(
        "a URL carries raw only printable ASCII other than space: whatever the encoder escapes of those stays readable")
    func rawBytes() {
        let raw = (0...255).map(UInt8.init).filter(PercentEncoding.mayAppearRaw)
        #expect(raw == Array(0x21...0x7E))
        // every byte the encoder writes as itself may appear raw
        #expect(
            (0...255).map(UInt8.init).allSatisfy { !PercentEncoding.isAllowed($0) || PercentEncoding.mayAppearRaw($0) })
    }

    static let trickyValues: [String] = [
        "", "&", "=", "+", "#", "%", "%25", "a b", "a+b", "x=y&z=w", "100%", "😀", "é", "\"quoted\"", "{json:1}",
        "line\nbreak", "tab\t", ";", "?", "/", "\\", String(repeating: "long&=+ ", count: 1_000),
        String(repeating: "😀", count: 500),
    ]

    @Test("build then parse is identity over tricky values", arguments: trickyValues)
    func roundTrip(value: String) throws {
        let echo = [
            QueryParameter(name: "cmd", value: "0"), QueryParameter(encodingName: "x-\(value)", value: value),
            QueryParameter(name: "flag", value: nil), QueryParameter(name: "empty", value: ""),
        ]
        let object = ResultObject([
            .init(.measuredAt, .string(value)), .init("n", .number(.init(significand: -1234, scale: 2))),
            .init("nested", .object(ResultObject([.init("s", .string(value))]))),
        ])
        for result in [LayeredResult.list([object, object]), .combined(measure: [object], sync: []), nil] {
            let callback = try LayeredCallback(
                destination: "my-dynamic-url-0x7765://", echo: echo, status: .addSuccessSyncFail, mac: Self.mac,
                result: result, reason: LayeredReason(rawValue: value), remaining: 7)
            let parsed = try LayeredCallback(parsing: callback.url)
            #expect(parsed == callback)
            let items = try #require(URLComponents(string: callback.url)?.queryItems)
            #expect(items.first { $0.name == "reason" }?.value == value)
            #expect(items.first { $0.name == "x-\(value)" }?.value == value)
        }
    }

    @Test("parses callbacks with the minimum: a status")
    func minimal() throws {
        let callback = try LayeredCallback(parsing: "myapp://?status=-1")
        #expect(callback.status == .unknown && callback.echo.isEmpty && callback.result == nil)
        #expect(callback.url == "myapp://?status=-1")
    }

    @Test(
        "rejects malformed callbacks naming the parameter",
        arguments: [
            ("myapp://?cmd=0", "status"), ("myapp://?status=", "status"), ("myapp://?status=x", "status"),
            ("myapp://?status=0&status=1", "status"), ("myapp://?status=0&mac=123", "mac"),
            ("myapp://?status=0&result=%5B", "result"), ("myapp://?status=0&remaining=0", "remaining"),
            ("myapp://?status=0&remaining=-2", "remaining"), ("myapp://?status=0&reason=%ZZ", "reason"),
            ("myapp://?status=0&x=1&X=2", "x"),
        ])
    func malformed(url: String, parameter: String) {
        let error = #expect(throws: LayeredError.self) { try LayeredCallback(parsing: url) }
        #expect(error?.parameter == parameter, "\(url)")
    }

    @Test("rejects echoes the answer would collide with, and bad destinations")
    func invalidConstruction() {
        for name in ["status", "MAC", "result", "reason", "remaining"] {
            #expect(throws: LayeredError.self) {
                try LayeredCallback(destination: "a://", echo: [.init(name: name, value: "1")], status: .success)
            }
        }
        #expect(throws: LayeredError.self) {
            try LayeredCallback(destination: "a://", echo: [.init(name: "x", value: "1&y=2")], status: .success)
        }
        #expect(throws: LayeredError.self) {
            try LayeredCallback(destination: "a://", echo: [.init(name: "a=b", value: "1")], status: .success)
        }
        #expect(throws: LayeredError.self) {
            try LayeredCallback(
                destination: "a://", echo: [.init(name: "x", value: "1"), .init(name: "X", value: "2")],
                status: .success)
        }
        for destination in ["", "myapp", "my app://", "a://x?y", "a://x#y", "1a://"] {
            #expect(throws: LayeredError.self) {
                try LayeredCallback(destination: destination, echo: [], status: .success)
            }
        }
    }

    /// The spec's example requests, each with the platform it is written for.
    static let specRequests: [(String, Platform)] = [
        (SpecURL.introMeasure, .ios), (SpecURL.addAndroid, .android), (SpecURL.addIOS, .ios),
        (SpecURL.addAM3S, .ios), (SpecURL.addAM4QR, .ios), (SpecURL.syncAndroid, .android),
        (SpecURL.syncIOS, .ios), (SpecURL.syncAM, .ios), (SpecURL.addMeasureAndroid, .android),
        (SpecURL.addSyncIOS, .ios), (SpecURL.addSyncMeasureIOS, .ios), (SpecURL.syncMeasureAndroid, .android),
        (SpecURL.dynamic, .ios),
    ]

    /// The successful callback answering each of ``specRequests``, a reading of the request's kind in its result.
    static func specCallbacks() throws -> [LayeredCallback] {
        try specRequests.map { url, platform in
            let request = try LayeredRequest(parsing: url, platform: platform)
            let destination = request.callerURL ?? LayeredCallback.destination(scheme: request.callerScheme!)
            let reading: Reading =
                request.deviceModel.hasUserProfile
                ? .activity(.init(date: Self.at.day, steps: 1, calories: 2, sleepMinutes: 3, sleepEfficiency: 4))
                : Self.bp
            let object = reading.resultObject(unit: request.unit)
            let result: LayeredResult =
                request.action.hasCombinedResult ? .combined(measure: [object], sync: [object]) : .list([object])
            return try LayeredCallback(
                answering: request, destination: destination, status: .success(request.action), mac: Self.mac,
                result: request.action == .add ? nil : result)
        }
    }

    @Test("every spec example request gets a callback that parses back")
    func specExamples() throws {
        for (callback, (url, platform)) in zip(try Self.specCallbacks(), Self.specRequests) {
            let request = try LayeredRequest(parsing: url, platform: platform)
            #expect(try LayeredCallback(parsing: callback.url) == callback)
            #expect(callback.url.hasPrefix(callback.destination + "?"))
            #expect(callback.echo.first { $0.key == "cmd" }?.value == String(request.action.rawValue))
        }
    }

    @Test("a request rejected for a repeated parameter still gets a parseable fail callback")
    func failForBadQuery() throws {
        let query = try LayeredQuery(parsing: "ihealth-layer://?cmd=0&cmd=1&scheme=myapp&x=%ZZ", maximumLength: 1000)
        let error = #expect(throws: LayeredError.self) { try LayeredRequest(query: query, platform: .ios) }
        let callback = try LayeredCallback(
            destination: "myapp://", echo: query.echo(for: .ios), status: .fail, reason: error?.reason)
        #expect(callback.url == "myapp://?cmd=0&scheme=myapp&x=%ZZ&status=1&reason=ERROR_REPEATED_PARAMETER:cmd")
        #expect(try LayeredCallback(parsing: callback.url) == callback)
    }
}
