import FuzzCheck
import SinkSettings

// A sink's connection URL (`postgresql://USER@HOST/DATABASE?…`, or an MQTT broker's `mqtt://[USER@]HOST/PREFIX?…`)
// as a user types it, and a password file (pgpass) as a user writes it. The first byte picks the reader. Properties: neither reader traps; an address is accepted or
// refused with a thrown `SinkError`; an accepted address writes back (its description, which holds no secret) to a
// URL that reads as the same address; a password file's match is a pure function that finds only what a line holds.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSinkAddress(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    dispatch(fuzzInput(data, size), to: [address, passwordFile, brokerAddress])
    return 0
}

@Sendable func address(_ bytes: [UInt8]) {
    let text = fuzzText(bytes)
    let address: SinkAddress
    do throws(SinkError) {
        address = try SinkAddress(text)
    } catch {
        require(!error.message.isEmpty, "a refused address gives no reason (\(error.code))")
        return
    }
    require(!address.user.isEmpty, "an accepted address has no user")
    require(!address.database.isEmpty, "an accepted address has no database")
    switch address.endpoint {
    case .tcp(_, let port), .unixSocket(_, let port):
        require((1...65535).contains(port), "an accepted address has the port \(port)")
    }
    requireRoundTrip(address, "a sink address", encode: \.description) { (url: String) throws(SinkError) in
        try SinkAddress(url)
    }
}

@Sendable func passwordFile(_ bytes: [UInt8]) {
    let contents = fuzzText(bytes)
    let (host, port) = ("db.example.org", "5432")
    for (database, user) in [("health", "hub"), ("*", "*"), ("", "")] {
        guard let password = SinkPassword.match(contents, host: host, port: port, database: database, user: user)
        else { continue }
        require(!password.isEmpty, "a password file matches with an empty password")
        require(
            password.unicodeScalars.allSatisfy { scalar in contents.unicodeScalars.contains(scalar) },
            "a password file's match holds a character the file does not")
    }
}

@Sendable func brokerAddress(_ bytes: [UInt8]) {
    let address: MQTTAddress
    do throws(SinkError) {
        address = try MQTTAddress(fuzzText(bytes))
    } catch {
        require(!error.message.isEmpty, "a refused broker address gives no reason (\(error.code))")
        return
    }
    require((1...65535).contains(address.port), "an accepted broker address has the port \(address.port)")
    require(
        address.tls || address.cleartextAllowed || SinkAddress.isLoopback(address.host),
        "mqtt:// to \(address.host) was accepted without cleartext=allow")
    for prefix in [address.prefix, address.discoveryPrefix] {
        require(
            !prefix.isEmpty && !prefix.contains("+") && !prefix.contains("#") && !prefix.hasPrefix("$"),
            "an accepted broker address has the prefix \(prefix.debugDescription)")
    }
    requireRoundTrip(address, "a broker address", encode: \.description) { (url: String) throws(SinkError) in
        try MQTTAddress(url)
    }
}
