import FuzzCheck
import LayeredProtocol

// The whitelist file (an XML property list a user edits). Properties: the reader never traps; what it accepts holds
// only entries the whitelist allows (each `*` or a custom app scheme's URL, no scheme shared by two callers), and it
// writes back to a file that reads as the same whitelist.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWhitelist(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let whitelist = try? Whitelist(plist: fuzzInput(data, size)) else { return 0 }
    requireRoundTrip(whitelist, "a whitelist", encode: \.plist) { (bytes: [UInt8]) throws(WhitelistError) in
        try Whitelist(plist: bytes)
    }
    var rebuilt = Whitelist()
    for (appID, destination) in whitelist.entries.sorted(by: { $0.key < $1.key }) {
        do {
            try rebuilt.check(destination, for: appID)
            try rebuilt.set(destination, for: appID)
        } catch {
            fatalError("property broken: the file held an entry the whitelist refuses: \(error)")
        }
    }
    return 0
}
