import Foundation
import Locking

/// A private mosquitto broker for a test: on a free loopback port, anonymous clients refused, one user
/// (``user``, ``password``) in its password file, its sessions saved when it stops (``restart()`` keeps them), and no
/// limit on the messages it queues for a client's session (a subscriber that reconnects gets everything sent
/// meanwhile). With TLS, a second listener on
/// ``tlsPort`` presents a certificate for the name `localhost` only (not `127.0.0.1`), signed by the CA in
/// ``caFile``; ``otherCAFile`` signed nothing of it.
public final class PrivateBroker: Sendable {
    public static let user = "hub"
    public static let password = "hub-secret"

    public let port: Int
    /// The TLS listener's port, when the broker has one.
    public let tlsPort: Int?
    public let folder: TemporaryDirectory
    private let process: Locked<SpawnedProgram?>

    public var caFile: String { folder.file("ca.crt") }
    public var otherCAFile: String { folder.file("other-ca.crt") }

    /// Starts a broker (with a TLS listener too when `tls`), and returns once it accepts connections.
    public init(tls: Bool = false) throws {
        folder = try TemporaryDirectory("vitalbridge-broker")
        let passwords = folder.file("passwd")
        let made = try SpawnedProgram.run(
            "/usr/bin/mosquitto_passwd", ["-c", "-b", passwords, Self.user, Self.password])
        guard made.status == 0 else { throw BrokerError(description: "mosquitto_passwd: \(made.stderr)") }
        port = try Self.freePort()
        tlsPort = tls ? try Self.freePort() : nil
        var configuration = """
            listener \(port) 127.0.0.1
            allow_anonymous false
            password_file \(passwords)
            persistence true
            persistence_location \(folder.path)/
            max_queued_messages 0
            log_dest file \(folder.file("log"))
            log_type error
            log_type warning
            log_type notice

            """
        // mosquitto started as root changes to the user mosquitto, which could not read the folder
        if geteuid() == 0 { configuration += "user root\n" }
        if let tlsPort {
            try Self.makeCertificates(in: folder)
            configuration += """
                listener \(tlsPort) 127.0.0.1
                cafile \(folder.file("ca.crt"))
                certfile \(folder.file("server.crt"))
                keyfile \(folder.file("server.key"))

                """
        }
        try configuration.write(toFile: folder.file("mosquitto.conf"), atomically: true, encoding: .utf8)
        process = Locked(nil)
        do {
            try start()
        } catch {
            stop()
            throw error
        }
    }

    /// Starts mosquitto, and returns once it accepts connections.
    private func start() throws {
        let started = try SpawnedProgram("/usr/sbin/mosquitto", ["-c", folder.file("mosquitto.conf")])
        process.withLock { $0 = started }
        for _ in 0..<500 {
            if Self.accepts(port) && tlsPort.map(Self.accepts) != false { return }
            if kill(started.pid, 0) != 0 { break }
            usleep(10_000)
        }
        let log = (try? String(contentsOfFile: folder.file("log"), encoding: .utf8)) ?? ""
        throw BrokerError(description: "mosquitto did not start: \(log)")
    }

    /// Stops mosquitto (SIGTERM: it saves its sessions and their queued messages) and starts it again on the same
    /// ports; returns once it accepts connections.
    public func restart() throws {
        halt()
        try start()
    }

    /// Kills mosquitto (SIGKILL: what it kept only in memory, retained messages included, is lost since its last
    /// save) and starts it again on the same ports; returns once it accepts connections.
    public func crash() throws {
        if let running = process.withLock({ $0.take() }) {
            kill(running.pid, SIGKILL)
            _ = running.wait()
        }
        try start()
    }

    /// Stops the broker (SIGTERM, then waits for it) and removes its folder.
    public func stop() {
        halt()
        folder.remove()
    }

    private func halt() {
        guard let running = process.withLock({ $0.take() }) else { return }
        kill(running.pid, SIGTERM)
        _ = running.wait()
    }

    /// Runs mosquitto_sub (Debian package mosquitto-clients) as the broker's user with `arguments`.
    public func subscribe(_ arguments: [String]) throws -> ProcessOutput {
        try SpawnedProgram.run(
            "/usr/bin/mosquitto_sub",
            ["-h", "127.0.0.1", "-p", "\(port)", "-u", Self.user, "-P", Self.password] + arguments)
    }

    /// A CA, a server certificate it signs for the name `localhost` alone, and another CA, made by openssl.
    static func makeCertificates(in folder: TemporaryDirectory) throws {
        let script = """
            set -e
            cd "$1"
            openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=VitalBridge broker CA" -keyout ca.key \
                -out ca.crt
            openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=VitalBridge other CA" -keyout other-ca.key \
                -out other-ca.crt
            openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout server.key -out server.csr
            printf 'subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\n' >server.ext
            openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -extfile server.ext \
                -out server.crt
            """
        let made = try SpawnedProgram.run("/bin/sh", ["-c", script, "sh", folder.path])
        guard made.status == 0 else { throw BrokerError(description: "openssl: \(made.stderr)") }
    }

    /// A TCP port nothing listens on now, from the kernel.
    public static func freePort() throws -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(socket, generic, length) == 0 && getsockname(socket, generic, &length) == 0
            }
        }
        guard bound else { throw BrokerError(description: "no free port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts a TCP connection on `port` of the loopback address.
    public static func accepts(_ port: Int) -> Bool {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

public struct BrokerError: Error, CustomStringConvertible {
    public var description: String
}
