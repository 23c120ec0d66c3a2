import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a sink's password comes from: a file the user names (`--password-file`), or libpq's password file
/// (`PGPASSFILE`, else `~/.pgpass`). Never the address, never a command line.
///
/// A password file the user names must be a regular file (not a symbolic link), of mode 0600 or 0400, owned by
/// the user; its first line is the password. libpq's password file has lines
/// `hostname:port:database:username:password`, where `*` matches anything and `\:` and `\\` stand for `:` and
/// `\`; the first line that matches wins; lines starting with `#` are comments. Like libpq, the file is ignored
/// (with a warning) unless it is a regular file without any permission for its group or others.
///
/// The host matched, as libpq does: a TCP address's host as written; for a Unix socket, `localhost` when the socket
/// folder is the default one (`/var/run/postgresql`, Debian's), and the folder's path otherwise.
///
/// ```swift
/// let password = try SinkPassword.read(file: "/home/ana/.config/vitalbridge/sink-password")
/// let fromPgpass = SinkPassword.lookup(for: address, passfile: "/home/ana/.pgpass", logger: logger)
/// ```
public enum SinkPassword {
    /// The largest password file read.
    public static let maximumFileSize = 1 << 20
    /// The socket folder libpq on Debian uses when none is given: its sockets match `localhost` in `~/.pgpass`.
    public static let defaultSocketDirectory = "/var/run/postgresql"

    /// The first line of the file at `path`, without its line ending.
    ///
    /// Throws a ``SinkError`` with code ``SinkError/Code/passwordFile`` naming the file and what is wrong with it
    /// (missing, a symbolic link, not a regular file, group or others may read it, another owner, empty), never
    /// its content.
    public static func read(file path: String) throws(SinkError) -> String {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            let error = errno
            switch error {
            case ELOOP: throw fileError(path, "is a symbolic link: name the file itself")
            case ENOENT: throw fileError(path, "does not exist")
            case EACCES: throw fileError(path, "cannot be read (permission denied)")
            default: throw fileError(path, "cannot be opened (\(String(cString: strerror(error))))")
            }
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw fileError(path, "cannot be examined") }
        guard status.st_mode & S_IFMT == S_IFREG else { throw fileError(path, "is not a regular file") }
        let mode = status.st_mode & 0o7777
        guard mode == 0o600 || mode == 0o400 else {
            throw fileError(
                path,
                "has mode \(String(mode, radix: 8)): it must be 600 or 400 (chmod 600 \(path)), so that no one else can read it"
            )
        }
        guard status.st_uid == geteuid() else {
            throw fileError(path, "belongs to user \(status.st_uid), not to this user (\(geteuid()))")
        }
        guard let bytes = readAll(descriptor, limit: 4096) else { throw fileError(path, "cannot be read") }
        var line = bytes.prefix { $0 != UInt8(ascii: "\n") }
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        guard !line.isEmpty else { throw fileError(path, "is empty: its first line is the password") }
        guard let password = String(validating: line, as: UTF8.self) else {
            throw fileError(path, "is not UTF-8 text")
        }
        return password
    }

    /// The password libpq's password file gives for `address`, or `nil` (no file, no matching line, or a file
    /// ignored with a warning on `logger`).
    ///
    /// - Parameters:
    ///   - address: the sink's address: its host (see ``passfileHost(_:)``), port, database and user are matched.
    ///   - passfile: the file; `nil`: ``defaultPassfile(environment:)``.
    ///   - logger: where a file ignored for its mode or type is reported.
    public static func lookup(
        for address: SinkAddress, passfile: String? = nil, logger: Logger
    ) -> String? {
        guard let path = passfile ?? defaultPassfile() else { return nil }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            logger.warning("password file \(path) is not a plain file: ignored")
            return nil
        }
        guard status.st_mode & 0o077 == 0 else {
            logger.warning(
                "password file \(path) has group or world access (mode \(String(status.st_mode & 0o777, radix: 8))): ignored; permissions should be u=rw (0600) or less"
            )
            return nil
        }
        guard let bytes = readAll(descriptor, limit: maximumFileSize) else {
            logger.warning("password file \(path) cannot be read or is larger than \(maximumFileSize) bytes: ignored")
            return nil
        }
        let (host, port) = passfileHost(address)
        return match(
            String(decoding: bytes, as: UTF8.self), host: host, port: String(port), database: address.database,
            user: address.user)
    }

    /// `PGPASSFILE` when set (and not empty), else `~/.pgpass` (`HOME`, else the user's home from the password
    /// database).
    public static func defaultPassfile(environment: [String: String]? = nil) -> String? {
        func variable(_ name: String) -> String? {
            if let environment { return environment[name] }
            return getenv(name).map { String(cString: $0) }
        }
        if let file = variable("PGPASSFILE"), !file.isEmpty { return file }
        if let home = variable("HOME"), !home.isEmpty { return home + "/.pgpass" }
        guard let entry = getpwuid(geteuid()), let directory = entry.pointee.pw_dir else { return nil }
        return String(cString: directory) + "/.pgpass"
    }

    /// The host and port a password file's line is matched against for `address` (see ``SinkPassword``).
    public static func passfileHost(_ address: SinkAddress) -> (host: String, port: Int) {
        switch address.endpoint {
        case .tcp(let host, let port): (host, port)
        case .unixSocket(let directory, let port):
            (directory == defaultSocketDirectory ? "localhost" : directory, port)
        }
    }

    /// The password of the first line of `contents` (a password file) that matches, as libpq matches: each of the
    /// first four fields is `*` or equal to its value (after `\` escapes); the fifth is the password, up to an
    /// unescaped `:`. `nil` when no line matches, or the matching line's password is empty.
    public static func match(_ contents: String, host: String, port: String, database: String, user: String)
        -> String?
    {
        let wanted = [host, port, database, user]
        for rawLine in contents.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            var line = Substring(rawLine)
            if line.last == "\r" { line = line.dropLast() }
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            var fields: [(text: String, isWildcard: Bool)] = []
            var current = ""
            var escaped = false
            var currentIsJustStar = false
            var rest = line.unicodeScalars[...]
            var passwordStart: Substring.UnicodeScalarView.SubSequence?
            while let scalar = rest.popFirst() {
                if escaped {
                    current.unicodeScalars.append(scalar)
                    escaped = false
                    currentIsJustStar = false
                } else if scalar == "\\" {
                    escaped = true
                } else if scalar == ":" {
                    fields.append((current, currentIsJustStar && current == "*"))
                    current = ""
                    currentIsJustStar = false
                    if fields.count == 4 {
                        passwordStart = rest
                        break
                    }
                } else {
                    current.unicodeScalars.append(scalar)
                    currentIsJustStar = current == "*"
                }
            }
            guard fields.count == 4, let passwordStart else { continue }
            let matches = zip(fields, wanted).allSatisfy { field, value in field.isWildcard || field.text == value }
            guard matches else { continue }
            // the password: up to the next unescaped colon, its escapes removed (a last lone \\ stays, as in libpq)
            var password = ""
            var scalars = passwordStart
            while let scalar = scalars.popFirst(), scalar != ":" {
                if scalar == "\\", let next = scalars.popFirst() {
                    password.unicodeScalars.append(next)
                } else {
                    password.unicodeScalars.append(scalar)
                }
            }
            return password.isEmpty ? nil : password
        }
        return nil
    }

    static func fileError(_ path: String, _ problem: String) -> SinkError {
        SinkError(.passwordFile, "the password file \(path) \(problem)")
    }

    /// Everything `descriptor` holds, or `nil` past `limit` bytes or on a read error.
    static func readAll(_ descriptor: Int32, limit: Int) -> [UInt8]? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
            if bytes.count > limit { return nil }
        }
    }
}

/// The C library's `read`, which ``SinkPassword/read(file:)`` hides inside the type.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
