/// A network or TLS error in words, on one line of at most 200 characters; `caFile` names the option that gives the
/// trusted CA.
func brief(_ error: any Error, caFile: String = "sslrootcert") -> String {
    let text = String(describing: error)
    if text.contains("CERTIFICATE_VERIFY_FAILED") {
        return "TLS: the server's certificate is not signed by a trusted CA (check \(caFile))"
    }
    if text.contains("failedToValidateHostname") || text.contains("unableToValidateCertificate") {
        return "TLS: the server's certificate does not name the host"
    }
    if text.contains("Connection refused") {
        return "connection refused (no server listens there)"
    }
    if text.contains("No such file or directory") {
        return "no such socket (no server listens there)"
    }
    if text.contains("Permission denied") {
        return "permission denied"
    }
    if text.lowercased().contains("timed out") || text.contains("connectTimeout") {
        return "the connection timed out"
    }
    // the error's own words, without the source paths some of them carry
    let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
    let words = line.split(separator: " ").filter { !$0.hasPrefix("/") }.joined(separator: " ")
    return words.count <= 200 ? words : String(words.prefix(199)) + "…"
}
