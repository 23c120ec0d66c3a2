import Testing
import VitalCore
import VitalTestSupport

@testable import LayeredProtocol

/// The seeds of `Fuzz/Sources/FuzzRequest`, `FuzzCallback` and `FuzzJSON`: the spec's examples and this target's
/// rejected URLs, the callbacks answering the examples, and their result JSON.
@Suite("Fuzz corpus: layered protocol")
struct LayeredProtocolCorpusTests {
    /// Requests FuzzRequest's whitelist knows (`org.example.fixed` → `fixedapp://readings`, `org.example.dynamic`
    /// → `*`), so that its seeds reach every branch of the addressing decision.
    static let addressed = [
        "ihealth-layer://?appid=org.example.fixed&cmd=2&devicemodel=100&mac=004D3208D2F4&ver=100&scheme=fixedapp",
        "ihealth-layer://?appid=org.example.fixed&cmd=2&devicemodel=100&mac=004D3208D2F4&callerurl=evil://x",
        "ihealth-layer://?appid=org.example.dynamic&cmd=0&devicemodel=100&mac=004D3208D2F4&callerurl=dyn-app://cb",
        "ihealth-layer://?appid=org.example.dynamic&cmd=0&devicemodel=100&mac=004D3208D2F4&callerurl=https://x.org",
        "ihealth-layer://?cmd=2&devicemodel=100&mac=004D3208D2F4&scheme=otherapp&requestid=r-1&x=%26%3D%23",
    ]

    static func seeds(_ texts: [String], _ prefix: String) -> [(name: String, bytes: [UInt8])] {
        texts.enumerated().map { ("\(prefix)-\($0.offset)", Array($0.element.utf8)) }
    }

    @Test("the request seeds are the spec's examples, the rejected URLs and the addressed requests")
    func requests() throws {
        let urls =
            LayeredCallbackTests.specRequests.map(\.0) + [SpecURL.measureExampleAndroid, SpecURL.syncIOSAsWritten]
            + Self.addressed
        for url in urls {
            #expect(throws: Never.self) { try LayeredQuery(parsing: url, maximumLength: 20_000) }
        }
        let seeds = Self.seeds(urls, "example") + Self.seeds(LayeredRequestTests.rejections.map(\.url), "rejected")
        #expect(try FuzzCorpus.differences("FuzzRequest", seeds) == [])
    }

    @Test("the callback seeds answer the spec's examples; the JSON seeds are their results and tricky documents")
    func callbacks() throws {
        let callbacks = try LayeredCallbackTests.specCallbacks()
        #expect(try FuzzCorpus.differences("FuzzCallback", Self.seeds(callbacks.map(\.url), "callback")) == [])
        let documents =
            callbacks.compactMap { $0.result?.json } + [
                #"{"a":[1,-2.5e+3,true,false,null,"\u00e9\ud83d\ude00\n\"\\"],"b":{"c":{}}}"#, "[]", "0", #""""#,
                #"{"measureresult":[],"syncresult":[{"n":1.25,"s":"x","o":{"p":[{"q":1}]}}]}"#,
            ]
        for document in documents { #expect(throws: Never.self) { try JSON.parse(Array(document.utf8)) } }
        #expect(try FuzzCorpus.differences("FuzzJSON", Self.seeds(documents, "document")) == [])
    }
}
