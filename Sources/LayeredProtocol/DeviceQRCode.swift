import VitalCore

/// The text of a device's QR code, read when a device is added with `addtype=1`.
///
/// Three forms exist: `MAC`, `ID:MAC` and `MODEL:MAC`. The part before the last `:` is a model when it is a
/// catalogued model string (`DeviceModel.init(modelString:)`: a catalog name, `KN550BT` or `FDIR-V3`, any case)
/// and an identifier otherwise, which is ignored.
public struct DeviceQRCode: Hashable, Sendable {
    /// The device's address.
    public let mac: MACAddress
    /// The model the code names, if its prefix is a model string.
    public let model: DeviceModel?
    /// The prefix when it is not a model string (`ID` in `ID:MAC`).
    public let identifier: String?

    /// Parses the QR code `text`, checking that it names a device of `requestedModel` when one is requested.
    ///
    /// Surrounding white space (a scanner's trailing newline) is ignored.
    public init(parsing text: String, requestedModel: DeviceModel?) throws(LayeredError) {
        let trimmed = text.trimmingASCIIWhitespace()
        let prefix: Substring?
        let macText: Substring
        if let colon = trimmed.lastIndex(of: ":") {
            prefix = trimmed[..<colon]
            macText = trimmed[trimmed.index(after: colon)...]
        } else {
            prefix = nil
            macText = trimmed[...]
        }
        var model: DeviceModel?
        var identifier: String?
        if let prefix {
            if let named = DeviceModel(modelString: prefix) {
                if let requestedModel, named != requestedModel {
                    throw LayeredError(
                        .qrModelMismatch, parameter: "qr",
                        message: "the QR code names model \(named.name), not the requested \(requestedModel.name)")
                }
                model = named
            } else {
                identifier = String(prefix)
            }
        }
        guard let mac = MACAddress(macText) else {
            throw LayeredError(
                .qrInvalidMAC, parameter: "qr", message: "the QR code's MAC is not 12 hexadecimal digits")
        }
        self.mac = mac
        self.model = model
        self.identifier = identifier
    }
}

extension StringProtocol {
    /// The text without leading and trailing ASCII spaces, tabs, carriage returns and line feeds.
    func trimmingASCIIWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        let start = firstIndex { !isSpace($0) } ?? endIndex
        let end = lastIndex { !isSpace($0) }.map(index(after:)) ?? start
        return String(self[start..<end])
    }
}
