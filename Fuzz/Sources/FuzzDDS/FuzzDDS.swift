import FuzzCheck
import VitalCore
import WelltoryDDS

// Welltory's Data Delivery Service: a request link a provider reads, and the callback URL with the results a
// requester reads. Properties: neither reader traps; what each accepts writes back to a link or URL that reads as
// the same request or results.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDDS(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = fuzzText(fuzzInput(data, size))
    if let request = try? DDSRequest(link: text) {
        requireRoundTrip(
            request, "a DDS request", encode: { $0.link() },
            decode: { (link: String) throws(DDSError) in try DDSRequest(link: link) })
    }
    if let result = try? DDSResult(callback: text) {
        requireRoundTrip(
            result, "DDS results", encode: { $0.callbackURL(on: "myapp://dds") },
            decode: { (url: String) throws(DDSError) in try DDSResult(callback: url) })
    }
    return 0
}
