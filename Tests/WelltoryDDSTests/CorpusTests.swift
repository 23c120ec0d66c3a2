import Testing
import VitalCore
import VitalTestSupport

@testable import WelltoryDDS

/// The seeds of `Fuzz/Sources/FuzzDDS`: the document's request links and callback, and this target's refused ones.
@Suite("Fuzz corpus: Welltory DDS")
struct DDSCorpusTests {
    @Test("the seeds are the document's links and callback and every refused link or callback")
    func seeds() throws {
        let request = DDSRequest(source: "DemoApp", callback: "https://www.demoapp.com/dds/")
        let extended = DDSRequest(
            source: "Demo App", callback: "https://demoapp.com/dds/?user=1", extra: [("visit", "a&b"), ("n", "2")])
        let texts =
            [request.link(on: DDSRequest.firstLaunchLink), request.link(), extended.link(), DDSLinkTests.callback]
            + DDSLinkTests.badRequestLinks.map(\.0) + DDSLinkTests.badCallbackQueries.map { DDSLinkTests.base + $0.0 }
        let seeds = texts.enumerated().map { (name: "link-\($0.offset)", bytes: Array($0.element.utf8)) }
        #expect(try FuzzCorpus.differences("FuzzDDS", seeds) == [])
    }
}
