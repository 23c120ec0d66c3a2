import Crypto

/// UUIDs as FHIR writes them (lowercase `8-4-4-4-12` hexadecimal), and name-based ones (RFC 9562 version 5,
/// SHA-1): the same namespace and name always give the same UUID, so that an export's ids are stable.
enum NameBasedUUID {
    /// VitalBridge's namespace for names that are the same on every hub (a device's MAC).
    static let vitalBridge: [UInt8] = bytes(of: "34697a1a-2496-4a95-8874-6d22b0a3c92c")!

    /// The version-5 UUID of `name` in `namespace` (16 bytes), as Python's `uuid.uuid5` makes it.
    static func v5(namespace: [UInt8], name: String) -> String {
        var hash = Insecure.SHA1()
        hash.update(data: namespace)
        hash.update(data: Array(name.utf8))
        var bytes = Array(hash.finalize().prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return text(of: bytes)
    }

    /// The 16 bytes of `uuid`, in either case; `nil` if it is not `8-4-4-4-12` hexadecimal digits.
    static func bytes(of uuid: String) -> [UInt8]? {
        let utf8 = Array(uuid.utf8)
        guard utf8.count == 36 else { return nil }
        var bytes: [UInt8] = []
        var high: UInt8?
        for (index, character) in utf8.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard character == UInt8(ascii: "-") else { return nil }
                continue
            }
            let digit: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = character - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = character - UInt8(ascii: "A") + 10
            default: return nil
            }
            if let first = high {
                bytes.append(first << 4 | digit)
                high = nil
            } else {
                high = digit
            }
        }
        return bytes
    }

    /// `bytes` (16) as a lowercase UUID.
    static func text(of bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(index) { text.append(UInt8(ascii: "-")) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
