/// Why a sink refused an address or a password file, or could not reach or write its database: a code to match on
/// and a one-line message for a person (what `vitalbridge sink status` shows).
///
/// A message never contains a password nor a health value; it names what was wrong (the parameter, the file, the
/// host or socket, the step that failed).
///
/// ```swift
/// do {
///     _ = try SinkAddress("postgresql://hub:secret@db.example/health")
/// } catch {
///     error.code      // .passwordInAddress
///     error.message   // "the address contains a password: give it with --password-file or in ~/.pgpass"
/// }
/// ```
public struct SinkError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem it is: an open set, so that new codes may come.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name: `passwordInAddress`.
        public var rawValue: String
        /// The code named `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// The address is longer than ``SinkAddress/maximumLength``.
        public static let addressTooLong = Code(rawValue: "addressTooLong")
        /// The address (or a percent-decoded part of it) contains a control character.
        public static let controlCharacter = Code(rawValue: "controlCharacter")
        /// The address is not a `postgresql://` or `postgres://` URL.
        public static let unknownScheme = Code(rawValue: "unknownScheme")
        /// The address has a password (`user:password@`, or `password=`).
        public static let passwordInAddress = Code(rawValue: "passwordInAddress")
        /// The address names no user.
        public static let missingUser = Code(rawValue: "missingUser")
        /// The address names no database.
        public static let missingDatabase = Code(rawValue: "missingDatabase")
        /// The host is malformed (an unclosed `[`, several hosts).
        public static let badHost = Code(rawValue: "badHost")
        /// The port is not a number from 1 to 65535.
        public static let badPort = Code(rawValue: "badPort")
        /// `sslmode` is not one of libpq's six modes.
        public static let unknownSSLMode = Code(rawValue: "unknownSSLMode")
        /// A query parameter is not one the sink knows, or is given twice.
        public static let unknownParameter = Code(rawValue: "unknownParameter")
        /// A parameter's value does not fit the rest of the address (`sslrootcert` without verification, TLS over a
        /// Unix socket).
        public static let conflictingParameter = Code(rawValue: "conflictingParameter")
        /// A `%` is not followed by two hex digits, or the decoded bytes are not UTF-8.
        public static let badPercentEncoding = Code(rawValue: "badPercentEncoding")
        /// The address is not a URL of the form the sink reads.
        public static let malformedAddress = Code(rawValue: "malformedAddress")
        /// A password file cannot be used (missing, not a regular file, a symbolic link, its mode, its owner, empty).
        public static let passwordFile = Code(rawValue: "passwordFile")
        /// The database could not be reached or refused the connection (authentication, TLS).
        public static let connectionFailed = Code(rawValue: "connectionFailed")
        /// A statement failed: the message says which step and the server's reason.
        public static let queryFailed = Code(rawValue: "queryFailed")
        /// A reading cannot be written (a value outside its column's range).
        public static let unwritableReading = Code(rawValue: "unwritableReading")
    }

    /// What kind of problem it is.
    public var code: Code
    /// One line for a person; never a password or a health value.
    public var message: String

    /// An error of `code` saying `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
