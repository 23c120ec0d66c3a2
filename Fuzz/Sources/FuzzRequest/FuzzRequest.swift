import FuzzCheck
import LayeredProtocol
import VitalCore

// A request URL as any app can open it. Properties:
// - the parser never traps; what it accepts rebuilds to the same query and the same request;
// - the callback answering an accepted request parses back to itself;
// - the addressing decision sends a callback only where the whitelist allows: a fixed caller's own URL, or for a
//   `*` caller a custom app scheme that is not refused (never http, file, javascript, … or the hub's own scheme)
//   and that no fixed caller has.

private let whitelist = Whitelist(entries: [
    "org.example.fixed": "fixedapp://readings", "org.example.other": "otherapp://", "org.example.dynamic": "*",
])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let url = fuzzText(fuzzInput(data, size))
    if let query = try? LayeredQuery(parsing: url, maximumLength: 1 << 20) {
        requireRoundTrip(query, "a query", encode: \.url) { (url: String) throws(LayeredError) in
            try LayeredQuery(parsing: url, maximumLength: 1 << 20)
        }
    }
    for platform in [Platform.ios, .android] {
        if let request = try? LayeredRequest(parsing: url, platform: platform) {
            checkAccepted(request)
        }
        for caller in [nil, "org.example.fixed", "org.example.dynamic", "org.example.unknown"] {
            checkAddressing(url: url, platform: platform, caller: caller)
        }
    }
    return 0
}

private func checkAccepted(_ request: LayeredRequest) {
    let platform = request.platform
    requireRoundTrip(request, "a request", encode: \.query.url) { (url: String) throws(LayeredError) in
        try LayeredRequest(parsing: url, platform: platform, maximumLength: 1 << 20)
    }
    guard
        let callback = try? LayeredCallback(
            answering: request, destination: "fixedapp://readings", status: .success, reason: nil)
    else { return }
    requireRoundTrip(callback, "the callback of a request", encode: \.url) { (url: String) throws(LayeredError) in
        try LayeredCallback(parsing: url, maximumLength: 1 << 20)
    }
}

private func checkAddressing(url: String, platform: Platform, caller: String?) {
    let addressee: Addressee
    switch Addressing.address(url: url, platform: platform, caller: caller, whitelist: whitelist, budget: 20_000) {
    case .refused: return
    case .fail(let answer, _, _): addressee = answer
    case .request(let answer, let request):
        addressee = answer
        checkAccepted(request)
    }
    guard let entry = whitelist.entries[addressee.caller] else {
        fatalError("property broken: a callback for \(addressee.caller), who is not whitelisted")
    }
    if let caller { require(addressee.caller == caller, "the platform's caller was replaced by a claim") }
    if entry == Whitelist.dynamic {
        require(
            LayeredCallback.refusal(ofDestination: addressee.destination) == nil,
            "a dynamic callback to a refused destination: \(addressee.destination)")
        let fixedSchemes = whitelist.entries.values.filter { $0 != Whitelist.dynamic }.map(scheme(of:))
        require(
            !fixedSchemes.contains(scheme(of: addressee.destination)),
            "a dynamic callback to another caller's scheme: \(addressee.destination)")
    } else {
        require(addressee.destination == entry, "a fixed caller's callback went to \(addressee.destination)")
    }
}

/// The scheme of a callback URL, lower-cased.
private func scheme(of destination: String) -> String {
    String(destination.prefix { $0 != ":" }).lowercased()
}
