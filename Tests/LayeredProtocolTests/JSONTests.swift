import Foundation
import Testing
import VitalCore

@testable import LayeredProtocol

/// The JSON reader and writer, on the cases a review found: signed `\u` escapes, non-finite numbers, and the one
/// string escaper both writers share.
@Suite("JSON reader and writer")
struct JSONTests {
    @Test(
        "a \\u escape is four hexadecimal digits, never a signed number",
        arguments: [
            #""\u+041""#, #""\u-000""#, #""\u 041""#, #""\u04G1""#, #""\u041""#, #""\ud83d\u+e00""#,
        ])
    func signedEscapes(document: String) {
        #expect(throws: JSON.SyntaxError.self) { try JSON.parse(Array(document.utf8)) }
    }

    @Test("a valid \\u escape and a surrogate pair still read")
    func validEscapes() throws {
        guard case .string(let text) = try JSON.parse(Array(#""\u0041\u00e9\ud83d\ude00""#.utf8)) else {
            Issue.record("not a string")
            return
        }
        #expect(text == "Aé😀")
    }

    @Test(
        "NaN and infinity are written as null, which every JSON reader reads",
        arguments: [
            Double.nan, .infinity, -.infinity,
        ])
    func nonFinite(value: Double) throws {
        let document = JSON.array([.number(value), .number(1.5)]).serialized(pretty: false)
        #expect(String(decoding: document, as: UTF8.self) == "[null,1.5]")
        #expect(try JSONSerialization.jsonObject(with: Data(document)) is [Any])
    }

    @Test(
        "both writers escape a string alike, and Foundation reads it back",
        arguments: [
            "plain", "quote \" and backslash \\", "line\nfeed\r\ttab", "\u{0}\u{1}\u{1F}\u{7F}", "é 😀 \u{2028}",
        ])
    func oneEscaper(text: String) throws {
        let document = JSON.string(text).serialized(pretty: false)
        var result: [UInt8] = []
        JSONWriter.appendString(text, to: &result)
        #expect(document == result)
        let read = try JSONSerialization.jsonObject(with: Data(document), options: .fragmentsAllowed) as? String
        #expect(read == text)
    }
}
