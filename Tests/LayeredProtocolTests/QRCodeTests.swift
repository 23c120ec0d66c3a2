import Testing
import VitalCore

@testable import LayeredProtocol

@Suite("DeviceQRCode")
struct QRCodeTests {
    @Test("a bare MAC is the MAC, upper-cased")
    func bare() throws {
        let code = try DeviceQRCode(parsing: "004d3208d2f4", requestedModel: .bp5)
        #expect(code.mac.description == "004D3208D2F4")
        #expect(code.model == nil && code.identifier == nil)
    }

    @Test("ID:MAC uses the MAC and keeps the identifier")
    func identifier() throws {
        let code = try DeviceQRCode(parsing: "SN12345:004D3208D2F4\n", requestedModel: .hs4)
        #expect(code.mac.description == "004D3208D2F4")
        #expect(code.identifier == "SN12345")
        #expect(code.model == nil)
    }

    @Test(
        "MODEL:MAC accepts every catalogued model string for its model",
        arguments: DeviceModel.allCases.compactMap { model in model.qrModelString.map { (model, $0) } })
    func model(model: DeviceModel, string: String) throws {
        let code = try DeviceQRCode(parsing: "\(string):A1B2C3D4E5F6", requestedModel: model)
        #expect(code.model == model)
        #expect(code.mac.value == 0xA1B2_C3D4_E5F6)
    }

    @Test("KN550BT is BPTRACK and FDIR-V3 is THV3")
    func aliases() throws {
        #expect(try DeviceQRCode(parsing: "KN550BT:A1B2C3D4E5F6", requestedModel: .bpTrack).model == .bpTrack)
        #expect(try DeviceQRCode(parsing: "FDIR-V3:A1B2C3D4E5F6", requestedModel: .thv3).model == .thv3)
    }

    @Test(
        "a model string for another model is a model mismatch",
        arguments: ["BP3L:A1B2C3D4E5F6", "KN550BT:A1B2C3D4E5F6", "bp7s:A1B2C3D4E5F6", "FDIR-V3:zz"])
    func mismatch(text: String) {
        let error = #expect(throws: LayeredError.self) { try DeviceQRCode(parsing: text, requestedModel: .bp5) }
        #expect(error?.code == .qrModelMismatch)
        #expect(error?.reason == .qrModelMismatch)
    }

    @Test(
        "a MAC that is not 12 hex digits is an invalid MAC",
        arguments: ["", "BP5:", "A1B2C3D4E5", "A1B2C3D4E5F6A", "A1:B2:C3:D4:E5:F6", "BP5:G1B2C3D4E5F6", "ID:", ":"])
    func invalidMAC(text: String) {
        let error = #expect(throws: LayeredError.self) { try DeviceQRCode(parsing: text, requestedModel: .bp5) }
        #expect(error?.code == .qrInvalidMAC)
        #expect(error?.reason == .qrInvalidMAC)
    }

    @Test("the model is checked before the MAC")
    func order() {
        let error = #expect(throws: LayeredError.self) { try DeviceQRCode(parsing: "PO3:bad", requestedModel: .bp5) }
        #expect(error?.code == .qrModelMismatch)
    }

    @Test("MAC addresses accept either case and write upper case")
    func macs() {
        #expect(MACAddress("abcdefABCDEF")?.description == "ABCDEFABCDEF")
        #expect(MACAddress("000000000000")?.value == 0)
        #expect(MACAddress(value: 1 << 48) == nil)
        #expect(MACAddress(value: 0xFFFF_FFFF_FFFF)?.description == "FFFFFFFFFFFF")
        #expect(MACAddress(" 00000000000") == nil)
    }
}
