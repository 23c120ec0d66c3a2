import Foundation
import TestRequirements
import Testing
import VitalCore
import VitalTestSupport

@testable import WelltoryDDS

@Suite("DDS links and callbacks")
struct DDSLinkTests {
    @Test("the document's request links: first launch and direct, callback percent-encoded, extras kept in order")
    func requestLinks() throws {
        let request = DDSRequest(source: "DemoApp", callback: "https://www.demoapp.com/dds/")
        #expect(
            request.link(on: DDSRequest.firstLaunchLink)
                == "https://welltory.onelink.me/2180424117/bf497b9?source=DemoApp&callback=https%3A%2F%2Fwww.demoapp.com%2Fdds%2F"
        )
        #expect(
            request.link()
                == "https://welltory.com/action/dds/measurement?source=DemoApp&callback=https%3A%2F%2Fwww.demoapp.com%2Fdds%2F"
        )
        let extended = DDSRequest(
            source: "Demo App", callback: "https://demoapp.com/dds/?user=1", extra: [("visit", "a&b"), ("n", "2")])
        let link = extended.link()
        #expect(
            link.hasSuffix("?source=Demo%20App&callback=https%3A%2F%2Fdemoapp.com%2Fdds%2F%3Fuser%3D1&visit=a%26b&n=2"))
        #expect(try DDSRequest(link: link) == extended)
    }

    @Test(
        "an extra parameter is NAME=VALUE, its value possibly empty or holding =; the request's own names are refused",
        arguments: [
            ("visit=7", "visit", "7"), ("n=", "n", ""), ("q=a=b", "q", "a=b"), ("visit", nil, nil), ("=7", nil, nil),
            ("source=x", nil, nil), ("callback=https://x/", nil, nil), ("", nil, nil),
        ] as [(String, String?, String?)])
    func extraParameter(item: String, name: String?, value: String?) {
        let extra = DDSRequest.extra(parsing: item)
        #expect(extra?.name == name && extra?.value == value)
    }

    /// Request links that are refused, with the error.
    static let badRequestLinks: [(String, String)] = [
        ("https://welltory.com/action/dds/measurement?callback=x", "source is required"),
        ("https://welltory.com/action/dds/measurement?source=A", "callback is required"),
        ("https://welltory.com/action/dds/measurement?source=&callback=x", "source is required"),
        ("https://welltory.com/action/dds/measurement?source=A&source=B&callback=x", "source is given twice"),
        ("https://welltory.com/action/dds/measurement?source=A&callback=%ZZ", "callback is not percent-encoded"),
    ]

    @Test(
        "a request link without source or callback, or with a name twice, is refused naming the parameter",
        arguments: badRequestLinks)
    func badRequests(link: String, message: String) {
        #expect(throws: DDSError.self) { try DDSRequest(link: link) }
        #expect((try? DDSRequest(link: link)) == nil)
        do {
            _ = try DDSRequest(link: link)
        } catch {
            #expect(error.description == message)
        }
    }

    /// The document's callback example.
    static let callback =
        "https://demoapp.com/dds/?stress=0.32&energy=0.75&productivity=0.63&rmssd=90.3&sdnn=45.1&power=100&stress_c=green&productivity_c=red&energy_c=yellow"
    /// The callback URL the refused queries follow.
    static let base = "https://demoapp.com/dds/?"

    @Test("the document's callback example decodes to its values and colours")
    func callbackExample() throws {
        let result = try DDSResult(callback: Self.callback)
        #expect(result.stress == 0.32 && result.energy == 0.75 && result.productivity == 0.63)
        #expect(result.rmssd == 90.3 && result.sdnn == 45.1 && result.power == 100)
        #expect(result.stressColour == .green && result.productivityColour == .red && result.energyColour == .yellow)
        #expect(result.energyColour?.meaning == "Normal" && result.token == nil && result.extra.isEmpty)
        // an unknown colour stays unknown, with its text; extra parameters are kept
        let other = try DDSResult(callback: "https://x/?stress_c=unknown&energy_c=purple&visit=7&token=abc")
        #expect(other.stressColour == .unknown("unknown") && other.energyColour == .unknown("purple"))
        #expect(other.energyColour?.meaning == "Unknown" && other.token == "abc")
        #expect(other.extra.count == 1 && other.extra[0] == ("visit", "7"))
        // what a provider writes reads back the same
        let written = result.callbackURL(on: "https://demoapp.com/dds/?visit=7")
        #expect(written.hasPrefix("https://demoapp.com/dds/?visit=7&stress=0.32&energy=0.75"))
        var expected = result
        expected.extra = [("visit", "7")]
        #expect(try DDSResult(callback: written) == expected)
    }

    /// Callback queries that are refused, with the error.
    static let badCallbackQueries: [(String, String)] = [
        ("stress=1.5", "stress must be a number from 0 to 1, not '1.5'"),
        ("energy=-0.1", "energy must be a number from 0 to 1, not '-0.1'"),
        ("productivity=abc", "productivity must be a number from 0 to 1, not 'abc'"),
        ("rmssd=-3", "rmssd must be a number of at least 0, not '-3'"),
        ("sdnn=nan", "sdnn must be a number of at least 0, not 'nan'"),
        ("power=inf", "power must be a number of at least 0, not 'inf'"),
        ("stress=0.1&stress=0.2", "stress is given twice"),
        // FuzzDDS found these: a raw byte was read, then written back escaped as one the reader refuses (%00)
        ("\0?", "the URL has a byte that is not printable ASCII at offset 25; percent-encode it"),
        ("token=a b", "the URL has a byte that is not printable ASCII at offset 32; percent-encode it"),
        ("token=\u{1B}[2J", "the URL has a byte that is not printable ASCII at offset 31; percent-encode it"),
        ("token=é", "the URL has a byte that is not printable ASCII at offset 31; percent-encode it"),
        // no result at all: the callback URL alone, or only what the request echoes
        ("", Self.noResult),
        ("visit=7&n=2", Self.noResult),
    ]

    /// How a callback without any result is refused.
    static let noResult =
        "the callback carries no result: none of stress, energy, productivity, rmssd, sdnn, power, token, stress_c, energy_c, productivity_c or error"

    @Test("an out-of-range or non-numeric value is an error naming the parameter", arguments: badCallbackQueries)
    func badCallbacks(query: String, message: String) {
        do {
            _ = try DDSResult(callback: Self.base + query)
            Issue.record("accepted \(query)")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test("the share page of a token has the token percent-encoded: abc+123 is abc%2B123, never a raw +")
    func shareLink() throws {
        let result = try DDSResult(callback: Self.base + "token=abc%2B123")
        #expect(result.token == "abc+123")
        #expect(result.shareLink == "https://app.welltory.com/share-measurement?token=abc%2B123")
        // any token reads back from its page as itself
        for token in ["abc+123", "a b&c=d#e%f?g/h", "é🙂", "", String(repeating: "+", count: 500)] {
            let link = try #require(DDSResult(token: token).shareLink)
            #expect(link.hasPrefix(DDSResult.sharePage + "?token="))
            let query = try DDSEncoding.query(of: link)
            #expect(query.count == 1 && query[0] == ("token", token), "\(link)")
        }
        #expect(try DDSResult(callback: Self.base + "rmssd=1").shareLink == nil)
    }

    @Test(
        "results follow a callback URL's own query with &, keep it, and go before its fragment",
        arguments: [
            ("myapp://dds?x=1", "myapp://dds?x=1&rmssd=38.6&visit=7"),
            ("myapp://dds?x=1&y=a%26b", "myapp://dds?x=1&y=a%26b&rmssd=38.6&visit=7"),
            ("myapp://dds?", "myapp://dds?rmssd=38.6&visit=7"),
            ("myapp://dds?x=1&", "myapp://dds?x=1&rmssd=38.6&visit=7"),
            ("myapp://dds", "myapp://dds?rmssd=38.6&visit=7"),
            ("myapp://dds#top", "myapp://dds?rmssd=38.6&visit=7#top"),
            ("https://demoapp.com/dds/?user=1#top", "https://demoapp.com/dds/?user=1&rmssd=38.6&visit=7#top"),
        ])
    func callbackWithQuery(callback: String, expected: String) throws {
        let result = DDSResult(rmssd: 38.6, extra: [("visit", "7")])
        let url = result.callbackURL(on: callback)
        #expect(url == expected)
        // the callback's own parameters read back first, as extras, then the echoed ones
        let read = try DDSResult(callback: url)
        let own = try DDSEncoding.query(of: callback)
        #expect(read.rmssd == 38.6)
        #expect(read.extra.map(\.name) == own.map(\.name) + ["visit"])
        #expect(read.extra.map(\.value) == own.map(\.value) + ["7"])
        #expect(throws: Never.self) { try DDSResult.check(callback: callback) }
    }

    @Test(
        "a callback URL whose query has a result parameter, or does not read, cannot take the results",
        arguments: [
            ("myapp://dds?stress=1", "stress is a result parameter; a callback URL's own query cannot have it"),
            ("myapp://dds?x=1&error=2", "error is a result parameter; a callback URL's own query cannot have it"),
            ("myapp://dds?token", "token is a result parameter; a callback URL's own query cannot have it"),
            ("myapp://dds?x=1&x=2", "x is given twice"),
            ("myapp://dds?x=%ZZ", "x is not percent-encoded"),
            ("myapp://dds?x=a b", "the URL has a byte that is not printable ASCII at offset 15; percent-encode it"),
        ])
    func badCallbackURLs(callback: String, message: String) {
        do {
            try DDSResult.check(callback: callback)
            Issue.record("accepted \(callback)")
        } catch {
            #expect(error.description == message)
        }
    }
}
