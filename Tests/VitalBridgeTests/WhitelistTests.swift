import Foundation
import Testing
import VitalTestSupport

@testable import LayeredProtocol
@testable import VitalBridge

/// `AppWhiteList.plist` is read and written by VitalBridge's own XML property-list code; Foundation's
/// `PropertyListSerialization` is the oracle.
@Suite("Whitelist files")
struct WhitelistTests {
    /// Foundation's XML form of `entries`.
    static func foundationXML(_ entries: [String: String]) throws -> [UInt8] {
        Array(try PropertyListSerialization.data(fromPropertyList: entries, format: .xml, options: 0))
    }

    /// What Foundation reads from `bytes`, as a dictionary of strings.
    static func foundationRead(_ bytes: [UInt8]) throws -> [String: String]? {
        try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil) as? [String: String]
    }

    /// Random app ids (any text, with the characters XML escapes) and callback URLs (printable ASCII).
    static func randomEntries(_ random: inout SeededGenerator) -> [String: String] {
        let idAlphabet = Array("abcXYZ019.-_ &<>\"'éü漢🙂]]>") + [" "]
        let urlAlphabet = Array("abcxyz0129/:._~-&<>\"'=%!$()*+,;@[]")
        var entries: [String: String] = [:]
        // each fixed entry with a scheme of its own: two callers never share one
        for index in 0..<Int.random(in: 0...12, using: &random) {
            let id = String(
                (0..<Int.random(in: 1...24, using: &random)).map { _ in idAlphabet.randomElement(using: &random)! })
            let path = String(
                (0..<Int.random(in: 0...30, using: &random)).map { _ in urlAlphabet.randomElement(using: &random)! })
            entries[id] = Bool.random(using: &random) ? "*" : "app\(index)://" + path
        }
        return entries
    }

    @Test("what Foundation writes is read back exactly, and what VitalBridge writes Foundation reads exactly")
    func foundationAgrees() throws {
        var random = SeededGenerator(seed: 0x5EED_0001)
        for _ in 0..<300 {
            let entries = Self.randomEntries(&random)
            #expect(try Whitelist(plist: Self.foundationXML(entries)).entries == entries)
            let ours = Whitelist(entries: entries).plist
            #expect(try Self.foundationRead(ours) == entries)
            #expect(try Whitelist(plist: ours).entries == entries)
        }
    }

    /// A whitelist as a person might write it.
    static let handWrittenDocument = """
        \u{FEFF}<?xml version="1.0" encoding="UTF-8"?>\r
        <!-- callers -->\r
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version='1.0'>
          <dict >
            <key>com.example.&#x41;pp</key> <!-- a comment between key and value -->
            <string><![CDATA[myapp://<x>&]]></string>
            <key>org.example.web</key><string>&#42;</string>
            <key>a &amp; b</key>
            <string>xy://&quot;q&quot;&apos;</string>
          </dict>
        </plist>

        """

    @Test("hand-written forms: comments, CDATA, character references, no <plist> wrapper, CRLF, a byte-order mark")
    func handWritten() throws {
        let document = Self.handWrittenDocument
        let expected = ["com.example.App": "myapp://<x>&", "org.example.web": "*", "a & b": "xy://\"q\"'"]
        #expect(try Whitelist(plist: Array(document.utf8)).entries == expected)
        #expect(try Self.foundationRead(Array(document.utf8)) == expected)
        let bare = "<dict><key>a</key><string>a://</string></dict>"
        #expect(try Whitelist(plist: Array(bare.utf8)).entries == ["a": "a://"])
        #expect(try Whitelist(plist: Array("<plist><dict/></plist>".utf8)).entries == [:])
    }

    /// Files that are not whitelists, with what the error must say.
    static let rejectedDocuments: [(String, String)] = [
        ("", "not an XML property list: an element is expected (byte 0)"),
        ("hello", "not an XML property list: an element is expected (byte 0)"),
        (
            "<plist><array><string>a://</string></array></plist>",
            "not an XML property list: the root is not a dictionary"
        ),
        ("<dict><key>a</key><integer>1</integer></dict>", "the entry of a is not a string"),
        (
            "<dict><key>a</key><dict><key>b</key><string>b://</string></dict></dict>",
            "the entry of a is not a string"
        ),
        ("<dict><key>a</key><true/></dict>", "the entry of a is not a string"),
        (
            "<dict><key>a</key><string>a://</string><key>a</key><string>b://</string></dict>",
            "a has more than one entry"
        ),
        ("<dict><key></key><string>a://</string></dict>", "an entry has an empty key"),
        // the journal's name of a DDS source: a caller of that name would share its deliveries
        (
            "<dict><key>dds:DemoApp</key><string>a://</string></dict>",
            "the entry of dds:DemoApp: an app id cannot hold ':'"
        ),
        (
            "<dict><key>a</key><string>not a url</string></dict>",
            "the entry of a: 'not a url' cannot be a callback URL"
        ),
        ("<dict><key>a</key><string>a://x?y</string></dict>", "the entry of a: 'a://x?y' cannot be a callback URL"),
        ("<dict><key>a</key><string>a://</string>", "not an XML property list: an element is expected (byte 39)"),
        ("<dict><key>a</key><string>a://</dict>", "not an XML property list: </string> is expected (byte 30)"),
        ("<dict><string>a://</string></dict>", "not an XML property list: <key> is expected, not <string>"),
        (
            "<dict><key>a</key><string>&foo;</string></dict>",
            "not an XML property list: &foo; is not a character (byte 26)"
        ),
        (
            "<dict><key>a</key><string>a & b</string></dict>",
            "not an XML property list: a lone & (write &amp;) (byte 28)"
        ),
        ("<dict><key>a</key><string>&#0;</string></dict>", "&#0; is not a character"),
        ("<dict><key>a</key><string>a://</string></dict>trailing", "there is more after the root element"),
        ("<dict><!-- unterminated", "a comment does not end"),
        ("<dict><key>a</key><string><![CDATA[a://</string></dict>", "a CDATA section does not end"),
        ("<dict><key>a</key><array><string>x</dict>", "</string> is expected"),
        ("<plist><dict/>", "</plist> is expected"),
    ]

    @Test("a file that is not a whitelist is rejected with what is wrong", arguments: rejectedDocuments)
    func rejected(document: String, message: String) {
        #expect {
            try Whitelist(plist: Array(document.utf8))
        } throws: { error in
            "\(error)".hasPrefix("AppWhiteList.plist") && "\(error)".contains(message)
        }
    }

    @Test("text that is not UTF-8 and binary property lists are rejected")
    func notText() throws {
        let invalid = Array("<dict><key>a</key><string>".utf8) + [0xFF, 0xFE] + Array("</string></dict>".utf8)
        #expect(throws: WhitelistError.self) { try Whitelist(plist: invalid) }
        #expect((try? Whitelist(plist: invalid)) == nil)
        do {
            _ = try Whitelist(plist: invalid)
        } catch {
            #expect(error.message.contains("the text of <string> is not UTF-8"))
        }
        let binary = Array(
            try PropertyListSerialization.data(fromPropertyList: ["a": "a://"], format: .binary, options: 0))
        do {
            _ = try Whitelist(plist: binary)
            Issue.record("a binary property list was accepted")
        } catch {
            #expect(error.message.contains("binary property list"))
        }
    }

    @Test("every prefix of a valid file is rejected, never read as a shorter whitelist")
    func truncated() throws {
        let document = Whitelist(entries: ["org.example.a": "a://", "org.example.b": "*"]).plist
        for length in 0..<document.count {
            let prefix = Array(document.prefix(length))
            // the only prefixes that are complete documents end after </plist> with the final newline missing
            if let read = try? Whitelist(plist: prefix) {
                #expect(read.entries.count == 2 && length == document.count - 1)
            }
        }
    }
}

/// The XML property-list reader on the cases a review found.
@Suite("Whitelist reader: XML details")
struct PropertyListDetailTests {
    static func read(_ document: String) throws -> [(key: String, value: XMLPropertyList.Value)] {
        try XMLPropertyList.dictionary(Array(document.utf8))
    }

    @Test(
        "a character reference is digits only: no sign, no empty number, no character XML forbids",
        arguments: [
            "&#+65;", "&#x+41;", "&#-0;", "&#;", "&#x;", "&#1;", "&#x1F;", "&#0;", "&#xFFFE;", "&#xD800;",
        ])
    func signedReferences(reference: String) {
        #expect(throws: XMLPropertyList.Failure.self) {
            try Self.read("<dict><key>a</key><string>\(reference)</string></dict>")
        }
    }

    @Test("a DOCTYPE with > and ] inside quoted literals is skipped whole")
    func quotedDocumentType() throws {
        let document = """
            <!DOCTYPE plist SYSTEM "odd>name.dtd" [ <!ENTITY x "]>"> <!-- ]> --> ]>
            <plist><dict><key>a</key><string>a://</string></dict></plist>
            """
        let entries = try Self.read(document)
        #expect(entries.count == 1 && entries[0].key == "a" && entries[0].value == .string("a://"))
    }

    @Test("processing instructions inside a skipped value and inside text are left out")
    func processingInstructions() throws {
        let entries = try Self.read(
            "<dict><key>n</key><array><?pi <x>?><integer>1</integer></array><key>s</key><string>a<?pi?>b</string></dict>"
        )
        #expect(entries.map(\.key) == ["n", "s"])
        #expect(entries[0].value == .other(element: "array") && entries[1].value == .string("ab"))
    }

    @Test("line ends in text are normalised as XML says; &#13; keeps a carriage return")
    func lineEnds() throws {
        let entries = try Self.read("<dict><key>k</key><string>a\r\nb\rc\nd&#13;e<![CDATA[f\r\ng]]></string></dict>")
        #expect(entries[0].value == .string("a\nb\nc\nd\re" + "f\ng"))
        // Foundation's reader agrees on the references (it leaves raw CR alone, which XML does not allow it to)
        let written = XMLPropertyList.document([("k", "a\rb")])
        #expect(try Self.read(String(decoding: written, as: UTF8.self))[0].value == .string("a\rb"))
        let foundation = try PropertyListSerialization.propertyList(from: Data(written), format: nil)
        #expect((foundation as? [String: String])?["k"] == "a\rb")
    }

    @Test(
        "a raw control character is refused in text, and a whitelist entry cannot hold one",
        arguments: [
            "\u{1}", "\u{8}", "\u{1F}",
        ])
    func controlCharacters(character: String) {
        #expect(throws: XMLPropertyList.Failure.self) {
            try Self.read("<dict><key>a</key><string>x\(character)</string></dict>")
        }
        var whitelist = Whitelist()
        #expect(throws: WhitelistError.self) { try whitelist.set("ex://", for: "org.example\(character)") }
        #expect(throws: WhitelistError.self) { try whitelist.set("ex://\(character)", for: "org.example") }
    }
}
