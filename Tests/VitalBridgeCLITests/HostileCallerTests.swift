import Foundation
import LayeredProtocol
import Testing
import VitalCore
import VitalStore
import VitalTestSupport

/// What the hub must do with a request from a hostile or broken caller, as the scheme article documents it.
enum HostileOutcome: Sendable, Equatable {
    /// No callback at all: exit 3, nothing on standard output, one escaped line on standard error.
    case refused
    /// A fail callback to the destination, with the reason, before any device is touched.
    case fail(String, String)
    /// The request runs, answered at the destination: the only place it may go.
    case answered(String)
}

/// A request a hostile or broken caller may send, and what it must get.
struct HostileCase: Sendable, CustomTestStringConvertible {
    let name: String
    let url: String
    /// The platform's word for who opened the URL (`--caller`), if any.
    let caller: String?
    let outcome: HostileOutcome

    init(_ name: String, _ url: String, caller: String? = nil, _ outcome: HostileOutcome) {
        self.name = name
        self.url = url
        self.caller = caller
        self.outcome = outcome
    }

    var testDescription: String { name }
}

/// A hub whose whitelist has the built-in fixed caller (`org.vitalbridge.demo` → `vitalbridge-demo://`) and a
/// dynamic one (`org.example.dynamic` → `*`).
private let demo = "vitalbridge-demo://"
private let measure = "ihealth-layer://?cmd=0&devicemodel=100&mac=\(macOf(.bp5))&unit=2&ver=100"
private let measureDemo = measure + "&scheme=vitalbridge-demo"
private let dynamicCaller = measure + "&appid=org.example.dynamic"
/// An activity monitor's add request, which has every profile parameter.
private let addAM4 =
    "ihealth-layer://?cmd=1&devicemodel=201&addtype=0&userid=1111&age=30&sex=1&height=180&weight=80&swim=1"
    + "&unit=10&ver=100&scheme=vitalbridge-demo"
/// A glucose meter's measurement, which has a strip code.
private let measureBG5 = request(.measure, .bg5)
private let syncBP5 = "ihealth-layer://?cmd=2&devicemodel=100&mac=\(macOf(.bp5))&ver=100&scheme=vitalbridge-demo"

/// `url` with the value of `name` replaced by `value`, written as it is.
private func replacing(_ url: String, _ name: String, _ value: String) -> String {
    let query = try! LayeredQuery(parsing: url, maximumLength: 1 << 20)
    let parameters = query.parameters.map { $0.name == name ? "\(name)=\(value)" : $0.name + "=" + ($0.value ?? "") }
    return query.base + "?" + parameters.joined(separator: "&")
}

private func invalid(_ parameter: String) -> HostileOutcome { .fail(demo, "ERROR_INVALID_PARAMETER:\(parameter)") }

@Suite("Hostile callers: every documented outcome, through the real process")
struct HostileCallerTests {
    static let unknownCallers: [HostileCase] = [
        HostileCase("no appid, no scheme and no platform caller", measure, .refused),
        HostileCase("an appid that is not whitelisted", measure + "&appid=com.stranger", .refused),
        HostileCase("a scheme no caller has", measure + "&scheme=strangerapp", .refused),
        HostileCase(
            "an unknown appid claiming a whitelisted scheme", measure + "&appid=com.stranger&scheme=vitalbridge-demo",
            .refused),
        HostileCase("a platform caller that is not whitelisted", measureDemo, caller: "com.stranger", .refused),
        HostileCase(
            "a URL not addressed to the hub", "https://example.com/?cmd=0&devicemodel=100&scheme=vitalbridge-demo",
            .refused),
        HostileCase(
            "the hub's scheme in capitals is the hub's", "IHEALTH-LAYER://" + measureDemo.dropFirst(16), .answered(demo)
        ),
    ]

    static let spoofedCallers: [HostileCase] = [
        HostileCase(
            "a whitelisted appid with another app's scheme", measure + "&appid=org.vitalbridge.demo&scheme=evilapp",
            .refused),
        HostileCase(
            "anyone claiming a whitelisted scheme is answered only at its owner's URL", measureDemo, .answered(demo)),
        HostileCase(
            "a scheme is compared without case", measure + "&appid=org.vitalbridge.demo&scheme=VitalBridge-Demo",
            .answered(demo)),
        HostileCase(
            "the platform's caller outranks a claimed appid", dynamicCaller + "&callerurl=dyn-app://x",
            caller: "org.vitalbridge.demo", .fail(demo, "ERROR_DYNAMIC_CALLBACK_NOT_ALLOWED")),
        HostileCase("a * caller naming a fixed caller's scheme", dynamicCaller + "&scheme=vitalbridge-demo", .refused),
        HostileCase(
            "a * caller's callerurl to a fixed caller's scheme", dynamicCaller + "&callerurl=vitalbridge-demo://x",
            .refused),
        HostileCase(
            "a * caller's callerurl to a fixed caller's scheme in capitals",
            dynamicCaller + "&callerurl=VITALBRIDGE-DEMO://x", .refused),
        HostileCase(
            "a * caller's own custom scheme", dynamicCaller + "&callerurl=dyn-app://cb", .answered("dyn-app://cb")),
        HostileCase(
            "a * caller's callurl (the spec's other spelling)", dynamicCaller + "&callurl=dyn-app://cb",
            .answered("dyn-app://cb")),
        HostileCase(
            "callerurl from a fixed caller", measureDemo + "&callerurl=evil://steal",
            .fail(demo, "ERROR_DYNAMIC_CALLBACK_NOT_ALLOWED")),
        HostileCase(
            "callurl from a fixed caller", measureDemo + "&callurl=evil://steal",
            .fail(demo, "ERROR_DYNAMIC_CALLBACK_NOT_ALLOWED")),
        HostileCase(
            "a web callerurl from a fixed caller",
            measure + "&appid=org.vitalbridge.demo&callerurl=https://evil.example",
            .fail(demo, "ERROR_DYNAMIC_CALLBACK_NOT_ALLOWED")),
    ]

    /// Web, network and system schemes and the hub's own: never a callback, from a `*` caller either.
    static let forbiddenDestinations = [
        "https://evil.example/c", "http://x", "javascript:alert(1)//", "file:///etc/passwd", "data:text/html,x",
        "about:blank", "blob:x", "ftp://x", "mailto:a@b", "tel:1", "sms:1", "content://x", "intent://x", "ws://x",
        "wss://x", "web+health://x", "vbscript:x", "ihealth-layer://", "IHEALTH-LAYER://", "vitalbridge://",
        "svs-hr://", "1app://", "a b://",
    ]

    static let injections: [HostileCase] = [
        HostileCase(
            "an encoded & and = in scheme do not add an appid", measure + "&scheme=vitalbridge-demo%26appid%3Dcom.x",
            .refused),
        HostileCase(
            "an encoded & and = in appid do not add another",
            measure + "&appid=com.stranger%26appid%3Dorg.vitalbridge.demo",
            .refused),
        HostileCase(
            "an encoded & in a whitelisted appid makes it another appid",
            measure + "&appid=org.vitalbridge.demo%26scheme%3Devilapp", .refused),
        HostileCase(
            "an encoded status and mac in a value stay in that value",
            measureDemo + "&x=1%26status%3D0%26mac%3DAAAAAAAAAAAA", .answered(demo)),
        HostileCase("a double-encoded & and = stay as written", measureDemo + "&x=%2526status%253D0", .answered(demo)),
        HostileCase("an encoded = and # in a value stay as written", measureDemo + "&x=a%3Db%23c", .answered(demo)),
        HostileCase("an encoded # in scheme", measure + "&scheme=vitalbridge-demo%23x", .refused),
        HostileCase("a raw # (a fragment) without a platform caller", measureDemo + "#x", .refused),
        HostileCase(
            "a raw # with a platform caller", measureDemo + "#x", caller: "org.vitalbridge.demo",
            .fail(demo, "ERROR_MALFORMED_URL")),
        HostileCase(
            "a * caller's callerurl with an encoded ?", dynamicCaller + "&callerurl=dyn-app://cb%3Fstatus%3D0", .refused
        ),
        HostileCase(
            "a * caller's callerurl with an encoded #", dynamicCaller + "&callerurl=dyn-app://cb%23x", .refused),
        HostileCase(
            "a * caller's double-encoded web callerurl", dynamicCaller + "&callerurl=https%253A%252F%252Fevil", .refused
        ),
        HostileCase(
            "a * caller's callerurl encoded once is read decoded", dynamicCaller + "&callerurl=dyn-app%3A%2F%2Fcb",
            .answered("dyn-app://cb")),
        HostileCase(
            "a status parameter in the request", measureDemo + "&status=0",
            .fail(demo, "ERROR_RESERVED_PARAMETER:status")
        ),
        HostileCase(
            "a result parameter in the request", measureDemo + "&result=%5B%5D",
            .fail(demo, "ERROR_RESERVED_PARAMETER:result")),
        HostileCase(
            "a reason parameter in the request", measureDemo + "&reason=x",
            .fail(demo, "ERROR_RESERVED_PARAMETER:reason")),
        HostileCase(
            "a remaining parameter in the request", measureDemo + "&remaining=1",
            .fail(demo, "ERROR_RESERVED_PARAMETER:remaining")),
    ]

    static let controlBytes: [HostileCase] = [
        HostileCase("an escaped NUL ending scheme", measure + "&scheme=vitalbridge-demo%00", .refused),
        HostileCase("an escaped NUL ending appid", measure + "&appid=org.vitalbridge.demo%00", .refused),
        HostileCase("an escaped NUL in an echoed value is echoed as written", measureDemo + "&x=%00", .answered(demo)),
        HostileCase(
            "an escaped NUL in mac", replacing(measureDemo, "mac", "004D3208D2F4%00"),
            .fail(demo, "ERROR_MALFORMED_URL:mac")),
        HostileCase("a raw escape sequence", measureDemo + "&x=\u{1B}[2J", .refused),
        HostileCase("a raw new line (a forged log line)", measureDemo + "&x=a\nno callback: forged", .refused),
        HostileCase("a raw tab", measureDemo + "&x=\t", .refused),
        HostileCase("a raw DEL", measureDemo + "&x=\u{7F}", .refused),
        HostileCase("raw non-ASCII text", measureDemo + "&x=é", .refused),
        HostileCase(
            "a raw escape sequence with a platform caller", measureDemo + "&x=\u{1B}[2J",
            caller: "org.vitalbridge.demo",
            .fail(demo, "ERROR_MALFORMED_URL")),
    ]

    static let overLong: [HostileCase] = [
        HostileCase(
            "one character past the 20,000 of a request",
            measureDemo + "&pad=" + String(repeating: "a", count: 20_000 - measureDemo.utf8.count - 4), .refused),
        HostileCase(
            "past 20,000 characters with a platform caller",
            measureDemo + "&pad=" + String(repeating: "a", count: 20_000), caller: "org.vitalbridge.demo",
            .fail(demo, "ERROR_REQUEST_TOO_LONG")),
        HostileCase("130,000 characters", measureDemo + "&pad=" + String(repeating: "%41", count: 43_000), .refused),
    ]

    static let duplicateKeys: [HostileCase] = [
        HostileCase("cmd twice", measureDemo + "&cmd=2", .fail(demo, "ERROR_REPEATED_PARAMETER:cmd")),
        HostileCase("cmd twice in two cases", measureDemo + "&CMD=2", .fail(demo, "ERROR_REPEATED_PARAMETER:cmd")),
        HostileCase("mac twice", measureDemo + "&mac=\(macOf(.bp5))", .fail(demo, "ERROR_REPEATED_PARAMETER:mac")),
        HostileCase(
            "a whitelisted appid, then another", measure + "&appid=org.vitalbridge.demo&appid=com.stranger",
            .fail(demo, "ERROR_REPEATED_PARAMETER:appid")),
        HostileCase(
            "an unknown appid, then a whitelisted one", measure + "&appid=com.stranger&appid=org.vitalbridge.demo",
            .refused),
        HostileCase("scheme twice", measureDemo + "&scheme=evilapp", .fail(demo, "ERROR_REPEATED_PARAMETER:scheme")),
        HostileCase(
            "a * caller's callerurl twice", dynamicCaller + "&callerurl=dyn-app://a&callerurl=https://evil",
            .fail("dyn-app://a", "ERROR_REPEATED_PARAMETER:callerurl")),
        HostileCase(
            "a * caller's callerurl and callurl", dynamicCaller + "&callerurl=dyn-app://a&callurl=https://evil",
            .fail("dyn-app://a", "ERROR_REPEATED_PARAMETER:callurl")),
    ]

    static let wrongTypes: [HostileCase] = [
        HostileCase("cmd not a number", replacing(measureDemo, "cmd", "abc"), invalid("cmd")),
        HostileCase("cmd with a sign", replacing(measureDemo, "cmd", "%2B0"), invalid("cmd")),
        HostileCase("cmd in hexadecimal", replacing(measureDemo, "cmd", "0x0"), invalid("cmd")),
        HostileCase("devicemodel a fraction", replacing(measureDemo, "devicemodel", "1.5"), invalid("devicemodel")),
        HostileCase("mac not hexadecimal", replacing(measureDemo, "mac", "zzzzzzzzzzzz"), invalid("mac")),
        HostileCase("unit a name", replacing(measureDemo, "unit", "mmHg"), invalid("unit")),
        HostileCase(
            "ver not a number", replacing(measureDemo, "ver", "abc"), .fail(demo, "ERROR_UNSUPPORTED_VERSION:ver")),
        HostileCase("addtype not a number", replacing(addAM4, "addtype", "x"), invalid("addtype")),
        HostileCase("age not a number", replacing(addAM4, "age", "x"), invalid("age")),
        HostileCase("since not a time", syncBP5 + "&since=yesterday", invalid("since")),
        HostileCase(
            "popflag a word", "ihealth-layer://?cmd=1&devicemodel=100&addtype=0&popflag=yes&scheme=vitalbridge-demo",
            invalid("popflag")),
    ]

    static let outOfRange: [HostileCase] = [
        HostileCase("cmd 7", replacing(measureDemo, "cmd", "7"), invalid("cmd")),
        HostileCase("cmd -1", replacing(measureDemo, "cmd", "-1"), invalid("cmd")),
        HostileCase("devicemodel 999", replacing(measureDemo, "devicemodel", "999"), invalid("devicemodel")),
        HostileCase("devicemodel 0", replacing(measureDemo, "devicemodel", "0"), invalid("devicemodel")),
        HostileCase("ver 101", replacing(measureDemo, "ver", "101"), .fail(demo, "ERROR_UNSUPPORTED_VERSION:ver")),
        HostileCase("ver 99", replacing(measureDemo, "ver", "99"), .fail(demo, "ERROR_UNSUPPORTED_VERSION:ver")),
        HostileCase("unit 11", replacing(measureDemo, "unit", "11"), invalid("unit")),
        HostileCase("unit -1", replacing(measureDemo, "unit", "-1"), invalid("unit")),
        HostileCase(
            "a glucose unit for blood pressure", replacing(measureDemo, "unit", "0"),
            .fail(demo, "ERROR_UNIT_MISMATCH:unit")),
        HostileCase(
            "a pressure unit for an activity monitor", replacing(addAM4, "unit", "2"),
            .fail(demo, "ERROR_UNIT_MISMATCH:unit")),
        HostileCase("mac of 11 digits", replacing(measureDemo, "mac", "004D3208D2F"), invalid("mac")),
        HostileCase("mac of 13 digits", replacing(measureDemo, "mac", "004D3208D2F40"), invalid("mac")),
        HostileCase("addtype 2", replacing(addAM4, "addtype", "2"), invalid("addtype")),
        HostileCase(
            "popflag 2", "ihealth-layer://?cmd=1&devicemodel=100&addtype=0&popflag=2&scheme=vitalbridge-demo",
            invalid("popflag")),
        HostileCase("userid 0", replacing(addAM4, "userid", "0"), invalid("userid")),
        HostileCase("userid past 32 bits", replacing(addAM4, "userid", "2147483648"), invalid("userid")),
        HostileCase("age 0", replacing(addAM4, "age", "0"), invalid("age")),
        HostileCase("age 256", replacing(addAM4, "age", "256"), invalid("age")),
        HostileCase("sex 2", replacing(addAM4, "sex", "2"), invalid("sex")),
        HostileCase("height 0", replacing(addAM4, "height", "0"), invalid("height")),
        HostileCase("height 256", replacing(addAM4, "height", "256"), invalid("height")),
        HostileCase("weight 0", replacing(addAM4, "weight", "0"), invalid("weight")),
        HostileCase("weight 256", replacing(addAM4, "weight", "256"), invalid("weight")),
        HostileCase("swim 2", replacing(addAM4, "swim", "2"), invalid("swim")),
        HostileCase("codetype 9", replacing(measureBG5, "codetype", "9"), invalid("codetype")),
        HostileCase(
            "a code of 513 characters", replacing(measureBG5, "code", String(repeating: "a", count: 513)),
            invalid("code")),
        HostileCase("since in month 13", syncBP5 + "&since=2026-13-01+00:00:00", invalid("since")),
        HostileCase(
            "a profile parameter where none applies", measureDemo + "&age=30",
            .fail(demo, "ERROR_PARAMETER_NOT_APPLICABLE:age")),
    ]

    /// Runs `hostile` on a fresh home and checks its outcome, and that a request refused or failed left the home as
    /// it was: no reading taken, no device added.
    static func check(_ hostile: HostileCase) throws {
        let home = try TestHome(whitelist: ["org.example.dynamic": "*"])
        let output = try home.run(
            ["open", "--home", home.path] + (hostile.caller.map { ["--caller", $0] } ?? []) + [hostile.url])
        let lines = output.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        switch hostile.outcome {
        case .refused:
            #expect(output.status == 3, "\(output.stdout)")
            #expect(output.stdout.isEmpty)
            #expect(output.stderr.hasPrefix("no callback: "), "\(output.stderr)")
            // one line, escaped: the caller's text can neither forge a line nor reach the terminal raw
            #expect(output.stderr.filter(\.isNewline).count == 1 && output.stderr.hasSuffix("\n"))
            #expect(!output.stderr.dropLast().unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F })
        case .fail(let destination, let reason):
            #expect(output.status == 0, "\(output.stderr)")
            #expect(lines.count == 2 && lines[1].isEmpty)
            let callback = try LayeredCallback(parsing: String(lines[0]))
            #expect(callback.destination == destination)
            #expect(callback.reason?.rawValue == reason)
            #expect(callback.result == nil && callback.status.rawValue != 0)
        case .answered(let destination):
            #expect(output.status == 0, "\(output.stderr)")
            #expect(lines.count == 2 && lines[1].isEmpty)
            let callback = try LayeredCallback(parsing: String(lines[0]))
            #expect(callback.destination == destination)
            #expect(callback.status.rawValue == 0 && callback.reason == nil)
            // the echo is the request's parameters but mac, byte for byte: nothing injected, nothing decoded
            let request = try LayeredQuery(parsing: hostile.url, maximumLength: 20_000)
            #expect(callback.echo == request.parameters.filter { $0.key != "mac" })
            #expect(callback.mac == MACAddress(macOf(.bp5)))
            // the result is what the hub stored of the BP5, in mmHg: its live reading (first) and the records it had
            let stored = try home.store().readings.all(device: MACAddress(macOf(.bp5))!)
            guard case .list(let objects)? = callback.result else {
                Issue.record("no list result")
                return
            }
            #expect(objects.map(\.json).sorted() == stored.map { $0.reading.resultObject(unit: .mmHg).json }.sorted())
            return
        }
        let store = home.path + "/vitalbridge.sqlite"
        if FileManager.default.fileExists(atPath: store) {
            #expect(try home.store().readings.all().isEmpty)
            #expect(try home.run(["devices", "--home", home.path]).stdout.hasPrefix("no devices yet"))
        }
    }

    @Test("unknown callers get no callback", arguments: unknownCallers)
    func unknown(hostile: HostileCase) throws { try Self.check(hostile) }

    @Test("spoofed appid and scheme, and callerurl where it is not allowed", arguments: spoofedCallers)
    func spoofed(hostile: HostileCase) throws { try Self.check(hostile) }

    @Test(
        "a * caller's callerurl to a web, network or system scheme or the hub's own gets no callback",
        arguments: forbiddenDestinations)
    func forbidden(destination: String) throws {
        try Self.check(
            HostileCase(
                destination, dynamicCaller + "&callerurl=" + PercentEncoding.encode(destination), .refused))
        // and the same destinations are refused as fixed entries
        let home = try TestHome()
        #expect(try home.run(["whitelist", "add", "--home", home.path, "com.x", destination]).status == 1)
    }

    @Test("parameters that try to inject keys, encoded and double-encoded", arguments: injections)
    func injected(hostile: HostileCase) throws { try Self.check(hostile) }

    @Test("NUL and control bytes", arguments: controlBytes)
    func control(hostile: HostileCase) throws { try Self.check(hostile) }

    @Test("over-long URLs", arguments: overLong)
    func long(hostile: HostileCase) throws { try Self.check(hostile) }

    @Test("duplicate keys", arguments: duplicateKeys)
    func duplicates(hostile: HostileCase) throws { try Self.check(hostile) }

    @Test("values of the wrong type", arguments: wrongTypes)
    func wrongType(hostile: HostileCase) throws { try Self.check(hostile) }

    @Test("every parameter out of its range", arguments: outOfRange)
    func range(hostile: HostileCase) throws { try Self.check(hostile) }
}
