import Foundation
import HealthGATT
import HealthGATTJSON
import Testing
import VitalCore

/// `gatt decode`'s table: characteristics named as a person types them, and bytes as they are captured.
@Suite struct GATTDecoderTests {
    @Test("a characteristic by its UUID with or without 0x, in any case, or sfloat / float")
    func names() {
        #expect(GATTDecoder.named("2A35")?.name == BloodPressureMeasurement.name)
        #expect(GATTDecoder.named("0x2a35")?.uuid == 0x2A35)
        #expect(GATTDecoder.named("sfloat")?.uuid == nil && GATTDecoder.named("FLOAT")?.name == "IEEE 11073 FLOAT")
        #expect(GATTDecoder.named("2A00") == nil && GATTDecoder.named("") == nil && GATTDecoder.named("0x") == nil)
        #expect(GATTDecoder.all.count == 27)
    }

    @Test("hex as captured: spaces, colons and dashes between bytes and a leading 0x are ignored")
    func hex() {
        #expect(GATTDecoder.bytes(hex: "1E 8A00:58-00") == [0x1E, 0x8A, 0x00, 0x58, 0x00])
        #expect(GATTDecoder.bytes(hex: "0xBDF0") == [0xBD, 0xF0])
        #expect(GATTDecoder.bytes(hex: "") == [])
        #expect(GATTDecoder.bytes(hex: "ABC") == nil && GATTDecoder.bytes(hex: "GG") == nil)
    }

    @Test("a bare number decodes from exactly its width; fewer or more bytes name the offset")
    func bareNumbers() throws {
        let sfloat = try #require(GATTDecoder.named("sfloat"))
        let json = try gattJSON(sfloat.decode([0xF0, 0xBD])).serialized(pretty: true)
        #expect(String(decoding: json, as: UTF8.self).contains("\"exponent\": -5"))
        #expect { try sfloat.decode([0xF0]) } throws: { ($0 as? GATTError)?.offset == 0 }
        #expect { try sfloat.decode([0xF0, 0xBD, 0x00]) } throws: { ($0 as? GATTError)?.offset == 2 }
        let float = try #require(GATTDecoder.named("float"))
        #expect(throws: GATTError.self) { try float.decode([0x72, 0x01, 0x00]) }
    }
}
