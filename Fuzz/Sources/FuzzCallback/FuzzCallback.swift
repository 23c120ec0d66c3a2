import FuzzCheck
import LayeredClient
import LayeredProtocol
import VitalCore

// A callback URL as a caller app receives it (from the hub, or from anyone who can open its scheme). Properties:
// the parser never traps; what it accepts rebuilds to the same URL and parses back to itself; the caller's client
// (LayeredClient) reads whatever the parser accepts without trapping.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCallback(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let url = fuzzText(fuzzInput(data, size))
    guard let callback = try? LayeredCallback(parsing: url, maximumLength: 1 << 20) else { return 0 }
    requireRoundTrip(callback, "a callback", encode: \.url) { (url: String) throws(LayeredError) in
        try LayeredCallback(parsing: url, maximumLength: 1 << 20)
    }
    _ = try? LayeredResponse(parsing: url)
    return 0
}
