import Testing
import VitalTestSupport

@testable import LayeredProtocol
@testable import VitalBridge

/// The seeds of `Fuzz/Sources/FuzzWhitelist`: the whitelist files of this target's tests, read and refused.
@Suite("Fuzz corpus: whitelist")
struct WhitelistCorpusTests {
    @Test("the whitelist seeds are the hand-written file, Foundation's and ours, and every refused file")
    func seeds() throws {
        var random = SeededGenerator(seed: 0x5EED_0002)
        var documents: [[UInt8]] = [Array(WhitelistTests.handWrittenDocument.utf8), Whitelist.default.plist]
        for _ in 0..<3 {
            let entries = WhitelistTests.randomEntries(&random)
            documents += [try WhitelistTests.foundationXML(entries), Whitelist(entries: entries).plist]
        }
        documents += WhitelistTests.rejectedDocuments.map { Array($0.0.utf8) }
        let seeds = documents.enumerated().map { (name: "whitelist-\($0.offset)", bytes: $0.element) }
        #expect(try FuzzCorpus.differences("FuzzWhitelist", seeds) == [])
    }
}
