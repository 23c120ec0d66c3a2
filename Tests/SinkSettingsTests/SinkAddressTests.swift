import SinkSettings
import Testing

@Suite("SinkAddress")
struct SinkAddressTests {
    struct Accepted: Sendable, CustomTestStringConvertible {
        var text: String
        var user: String
        var database: String
        var endpoint: SinkAddress.Endpoint
        var sslMode: SinkAddress.SSLMode
        var rootCertificate: String? = nil
        var testDescription: String { text }
    }

    static let accepted: [Accepted] = [
        Accepted(
            text: "postgresql://hub@db.example/health", user: "hub", database: "health",
            endpoint: .tcp(host: "db.example", port: 5432), sslMode: .require),
        Accepted(
            text: "postgres://hub@db.example:6432/health", user: "hub", database: "health",
            endpoint: .tcp(host: "db.example", port: 6432), sslMode: .require),
        Accepted(
            text: "POSTGRESQL://hub@localhost/health", user: "hub", database: "health",
            endpoint: .tcp(host: "localhost", port: 5432), sslMode: .prefer),
        Accepted(
            text: "postgresql://hub@127.0.0.1:5433/health", user: "hub", database: "health",
            endpoint: .tcp(host: "127.0.0.1", port: 5433), sslMode: .prefer),
        Accepted(
            text: "postgresql://hub@127.8.9.10/health", user: "hub", database: "health",
            endpoint: .tcp(host: "127.8.9.10", port: 5432), sslMode: .prefer),
        Accepted(
            text: "postgresql://hub@[::1]/health", user: "hub", database: "health",
            endpoint: .tcp(host: "::1", port: 5432), sslMode: .prefer),
        Accepted(
            text: "postgresql://hub@[2001:DB8::1]:5433/health", user: "hub", database: "health",
            endpoint: .tcp(host: "2001:db8::1", port: 5433), sslMode: .require),
        Accepted(
            text: "postgresql://hub@%2Frun%2Fpg/health", user: "hub", database: "health",
            endpoint: .unixSocket(directory: "/run/pg", port: 5432), sslMode: .prefer),
        Accepted(
            text: "postgresql://hub@%2frun%2fpg:5433/health", user: "hub", database: "health",
            endpoint: .unixSocket(directory: "/run/pg", port: 5433), sslMode: .prefer),
        Accepted(
            text: "postgresql://hub@/health?host=/run/pg", user: "hub", database: "health",
            endpoint: .unixSocket(directory: "/run/pg", port: 5432), sslMode: .prefer),
        Accepted(
            text: "postgresql://hub@/health?host=%2Frun%2Fpg&port=5433&sslmode=disable", user: "hub",
            database: "health", endpoint: .unixSocket(directory: "/run/pg", port: 5433), sslMode: .disable),
        Accepted(
            text: "postgresql://hub@/health?host=db.example", user: "hub", database: "health",
            endpoint: .tcp(host: "db.example", port: 5432), sslMode: .require),
        Accepted(
            text: "postgresql://hub@/health?host=2001:DB8::1&port=5433", user: "hub", database: "health",
            endpoint: .tcp(host: "2001:db8::1", port: 5433), sslMode: .require),
        Accepted(
            text: "postgresql://hub@/health?host=%3A%3A1", user: "hub", database: "health",
            endpoint: .tcp(host: "::1", port: 5432), sslMode: .prefer),
        Accepted(
            text: "postgresql://h%C3%BCb%40home@db.example/my%20db%2Fx?sslmode=allow", user: "hüb@home",
            database: "my db/x", endpoint: .tcp(host: "db.example", port: 5432), sslMode: .allow),
        Accepted(
            text: "postgresql://hub@db.example/health?sslmode=prefer", user: "hub", database: "health",
            endpoint: .tcp(host: "db.example", port: 5432), sslMode: .prefer),
        Accepted(
            text: "postgresql://hub@localhost/health?sslmode=require", user: "hub", database: "health",
            endpoint: .tcp(host: "localhost", port: 5432), sslMode: .require),
        Accepted(
            text: "postgresql://hub@db.example/health?sslmode=verify-ca&sslrootcert=%2Fetc%2Fca%20x.pem", user: "hub",
            database: "health", endpoint: .tcp(host: "db.example", port: 5432), sslMode: .verifyCA,
            rootCertificate: "/etc/ca x.pem"),
        Accepted(
            text: "postgresql://hub@db.example:65535/health?sslrootcert=/etc/ca.pem&sslmode=verify-full", user: "hub",
            database: "health", endpoint: .tcp(host: "db.example", port: 65535), sslMode: .verifyFull,
            rootCertificate: "/etc/ca.pem"),
        Accepted(
            text: "postgresql://hub@db.example/health?sslmode=verify-full", user: "hub", database: "health",
            endpoint: .tcp(host: "db.example", port: 5432), sslMode: .verifyFull),
    ]

    @Test("reads every accepted form, with its sslmode default", arguments: accepted)
    func readsEveryForm(_ form: Accepted) throws {
        let address = try SinkAddress(form.text)
        #expect(address.user == form.user)
        #expect(address.database == form.database)
        #expect(address.endpoint == form.endpoint)
        #expect(address.sslMode == form.sslMode)
        #expect(address.sslRootCertificate == form.rootCertificate)
    }

    @Test("its description parses back to the same address, and is stable", arguments: accepted)
    func descriptionRoundTrips(_ form: Accepted) throws {
        let address = try SinkAddress(form.text)
        let again = try SinkAddress(address.description)
        #expect(again == address)
        #expect(again.description == address.description)
        #expect(address.description.hasPrefix("postgresql://"))
        #expect(address.description.contains("sslmode=\(address.sslMode.rawValue)"))
    }

    @Test("an address whose canonical form is exactly the limit is read, and reads back from that form")
    func canonicalFormAtTheLimit() throws {
        // "postgresql://hub@db.example:5432/" and "?sslmode=require" around the database: 50 bytes
        let frame = "postgresql://hub@db.example:5432/?sslmode=require".utf8.count
        let spaces = (SinkAddress.maximumLength - frame) / 3
        let filler = String(repeating: "x", count: SinkAddress.maximumLength - frame - 3 * spaces)
        let address = try SinkAddress("postgresql://hub@db.example/" + filler + String(repeating: " ", count: spaces))
        #expect(address.description.utf8.count == SinkAddress.maximumLength)
        #expect(try SinkAddress(address.description) == address)
        #expect(throws: SinkError.self) {
            try SinkAddress("postgresql://hub@db.example/x" + filler + String(repeating: " ", count: spaces))
        }
    }

    @Test("a socket's file is named by its port")
    func socketPath() throws {
        #expect(try SinkAddress("postgresql://hub@%2Frun%2Fpg/health").socketPath == "/run/pg/.s.PGSQL.5432")
        #expect(
            try SinkAddress("postgresql://hub@/health?host=/run/pg/&port=6000").socketPath == "/run/pg/.s.PGSQL.6000")
        #expect(try SinkAddress("postgresql://hub@db.example/health").socketPath == nil)
        #expect(
            try SinkAddress("postgresql://hub@%2Frun%2Fpg/health").description
                == "postgresql://hub@%2Frun%2Fpg:5432/health?sslmode=prefer")
    }

    struct Refused: Sendable, CustomTestStringConvertible {
        var text: String
        var code: SinkError.Code
        var says: String
        var testDescription: String { text.count > 80 ? String(text.prefix(80)) + "…" : text }
    }

    static let refused: [Refused] = [
        Refused(text: "postgresql://hub:s3cret@db.example/health", code: .passwordInAddress, says: "--password-file"),
        Refused(text: "postgresql://hub:s3/cr@et@db.example/health", code: .passwordInAddress, says: "~/.pgpass"),
        Refused(text: "postgresql://hub:@db.example/health", code: .passwordInAddress, says: "password"),
        Refused(
            text: "postgresql://hub@db.example/health?password=s3cret", code: .passwordInAddress, says: "password"),
        Refused(text: "postgresql://db.example/health", code: .missingUser, says: "no user"),
        Refused(text: "postgresql://@db.example/health", code: .missingUser, says: "no user"),
        Refused(text: "postgresql://hub@db.example", code: .missingDatabase, says: "no database"),
        Refused(text: "postgresql://hub@db.example/", code: .missingDatabase, says: "no database"),
        Refused(text: "postgresql://hub@db.example/?sslmode=require", code: .missingDatabase, says: "no database"),
        Refused(text: "postgresql://hub@db.example:0/health", code: .badPort, says: "port 0"),
        Refused(text: "postgresql://hub@db.example:65536/health", code: .badPort, says: "port 65536"),
        Refused(text: "postgresql://hub@db.example:http/health", code: .badPort, says: "port http"),
        Refused(text: "postgresql://hub@db.example:/health", code: .badPort, says: "port"),
        Refused(text: "postgresql://hub@/health?host=/run/pg&port=-1", code: .badPort, says: "port -1"),
        Refused(text: "mysql://hub@db.example/health", code: .unknownScheme, says: "mysql"),
        Refused(text: "db.example/health", code: .unknownScheme, says: "postgresql://"),
        Refused(text: "postgresql://hub@db.example/health?sslmode=strict", code: .unknownSSLMode, says: "strict"),
        Refused(text: "postgresql://hub@db.example/health?sslmode=", code: .unknownSSLMode, says: "sslmode"),
        Refused(
            text: "postgresql://hub@db.example/health?application_name=x", code: .unknownParameter,
            says: "application_name"),
        Refused(
            text: "postgresql://hub@db.example/health?sslmode=require&sslmode=disable", code: .unknownParameter,
            says: "sslmode twice"),
        Refused(text: "postgresql://hub@db.example/health\n", code: .controlCharacter, says: "control character"),
        Refused(text: "postgresql://hub@db.example/he\u{7F}alth", code: .controlCharacter, says: "control character"),
        Refused(text: "postgresql://hub@db.example/health%00", code: .controlCharacter, says: "the database"),
        Refused(text: "postgresql://h%0Aub@db.example/health", code: .controlCharacter, says: "the user"),
        Refused(
            text: "postgresql://hub@db.example/" + String(repeating: "x", count: 2100), code: .addressTooLong,
            says: "2048"),
        Refused(text: "postgresql://hub@db.example/health%2", code: .badPercentEncoding, says: "hex digits"),
        Refused(text: "postgresql://hub@db.example/health%zz", code: .badPercentEncoding, says: "hex digits"),
        Refused(text: "postgresql://hub@db.example/health%C3", code: .badPercentEncoding, says: "UTF-8"),
        Refused(
            text: "postgresql://hub@db.example/health?sslrootcert=/etc/ca.pem", code: .conflictingParameter,
            says: "verify-ca"),
        Refused(
            text: "postgresql://hub@%2Frun%2Fpg/health?sslmode=require", code: .conflictingParameter,
            says: "Unix socket"),
        Refused(
            text: "postgresql://hub@db.example/health?host=other.example", code: .conflictingParameter,
            says: "host twice"),
        Refused(text: "postgresql://hub@db1.example,db2.example/health", code: .badHost, says: "several hosts"),
        Refused(text: "postgresql://hub@[::1/health", code: .badHost, says: "]"),
        Refused(text: "postgresql://hub@[zz]/health", code: .badHost, says: "IPv6"),
        Refused(text: "postgresql://hub@db%20example/health", code: .badHost, says: "host name"),
        Refused(text: "postgresql://hub@/health", code: .badHost, says: "no host"),
        // found by Fuzz/FuzzSinkAddress: host= was taken as any text, so its canonical form did not read back
        Refused(text: "postgresql://hub@/health?host=a%20b", code: .badHost, says: "host= is not a host name"),
        Refused(text: "postgresql://hub@/health?host=db%2Fexample", code: .badHost, says: "host= is not a host name"),
        Refused(text: "postgresql://hub@/health?host=h%C3%BCb", code: .badHost, says: "host= is not a host name"),
        Refused(text: "postgresql://hub@/health?host=%5B::1%5D", code: .badHost, says: "host= is not an IPv6"),
        Refused(text: "postgresql://hub@/health?host=%EF%BC%A1::1", code: .badHost, says: "host= is not an IPv6"),
        Refused(text: "postgresql://hub@[%EF%BC%A1::1]/health", code: .badHost, says: "IPv6"),
        // found by Fuzz/FuzzSinkAddress: a text under the limit whose canonical (percent-encoded) form is over it
        Refused(
            text: "postgresql://hub@db.example/" + String(repeating: "é", count: 700), code: .addressTooLong,
            says: "canonical form (percent-encoded) is 4249 bytes"),
        Refused(
            text: "postgresql://hub@db.example/" + String(repeating: " ", count: 1000), code: .addressTooLong,
            says: "canonical form"),
        Refused(text: "postgresql://hub@db.example/health#x", code: .malformedAddress, says: "fragment"),
        Refused(text: "postgresql://hub@db.example/health?sslmode", code: .malformedAddress, says: "no value"),
    ]

    @Test("refuses, naming the problem", arguments: refused)
    func refuses(_ form: Refused) {
        #expect {
            _ = try SinkAddress(form.text)
        } throws: { error in
            guard let error = error as? SinkError else { return false }
            #expect(error.code == form.code)
            #expect(error.message.contains(form.says), "\(error.message)")
            #expect(!error.message.contains("\n"))
            return true
        }
    }

    @Test(
        "a password in the address is never echoed",
        arguments: [
            "postgresql://hub:Sup3rS3cret@db.example/health",
            "postgresql://hub:Sup3rS3cret@db.example:99999/health?sslmode=bogus",
            "postgresql://hub@db.example/health?password=Sup3rS3cret",
            "postgresql://hub@db.example/health?sslmode=bogus&password=Sup3rS3cret",
            "postgresql://hub:Sup3rS3cret/x@db.example/health",
            "postgresql://hub:Sup3rS3cret@db.example/health#frag",
        ])
    func passwordNeverEchoed(_ text: String) {
        do {
            _ = try SinkAddress(text)
            Issue.record("accepted \(text)")
        } catch {
            #expect(!error.message.contains("Sup3rS3cret"))
            #expect(!"\(error)".contains("Sup3rS3cret"))
        }
    }

    @Test("the TLS default is prefer on a socket or loopback, require elsewhere")
    func defaults() {
        #expect(SinkAddress.defaultSSLMode(for: .unixSocket(directory: "/run/pg", port: 5432)) == .prefer)
        for host in ["localhost", "127.0.0.1", "127.255.0.3", "::1"] {
            #expect(SinkAddress.defaultSSLMode(for: .tcp(host: host, port: 5432)) == .prefer, "\(host)")
        }
        for host in ["db.example", "10.0.0.5", "128.0.0.1", "localhost.example", "127.0.0.1.example", "::2"] {
            #expect(SinkAddress.defaultSSLMode(for: .tcp(host: host, port: 5432)) == .require, "\(host)")
        }
    }

    @Test("an IP address is IPv6 or four decimal octets without leading zeros; anything else is a name")
    func ipAddresses() {
        for host in ["127.0.0.1", "10.0.0.5", "255.255.255.255", "0.0.0.0", "::1", "fe80::1", "2001:db8::8"] {
            #expect(SinkAddress.isIPAddress(host), "\(host)")
        }
        // a resolver reads these as names: a TLS check must name them
        for host in [
            "localhost", "broker.lan", "127.0.0.08", "256.0.0.1", "1.2.3", "1.2.3.4.5", "1..2.3", "01.2.3.4", "",
        ] {
            #expect(!SinkAddress.isIPAddress(host), "\(host)")
        }
        #expect(!SinkAddress.isLoopback("127.0.0.08") && SinkAddress.isLoopback("127.1.2.3"))
    }
}
