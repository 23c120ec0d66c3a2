import DBus
import Foundation
import Testing
import VitalTestSupport

/// Something outside the Swift toolchain a test needs: a program, a shared library, or the Python oracles.
///
/// `swift test` passes on a machine with only the toolchain: a test that needs something missing is skipped, and
/// Swift Testing prints the skip with what is missing by name and the Debian package that has it. CI sets
/// `VITALBRIDGE_TESTS_REQUIRE_ALL=1`: then nothing is skipped, and a test whose requirement is missing fails.
public struct Requirement: Sendable, CustomStringConvertible {
    /// What the skip says is missing, e.g. `dbus-daemon (Debian package dbus-daemon)`.
    public var description: String
    private let isMet: @Sendable () -> Bool

    /// A program found on `PATH` (or at its absolute path), from the Debian package `package`.
    public static func program(_ name: String, package: String) -> Requirement {
        Requirement(description: "\(name) (Debian package \(package))") { executable(name) != nil }
    }

    /// A private `dbus-daemon`: ``PrivateBus`` starts one.
    public static let dbusDaemon = program("/usr/bin/dbus-daemon", package: "dbus-daemon")
    /// sd-bus, which the DBus module loads at run time.
    public static let libsystemd = Requirement(description: "libsystemd.so.0 (Debian package libsystemd0)") {
        DBusConnection.libraryProblem == nil
    }
    /// A real D-Bus: both a daemon to start and sd-bus to talk to it.
    public static let bus: [Requirement] = [dbusDaemon, libsystemd]
    /// strace, which kills a process at an exact system call in the crash tests.
    public static let strace = program("strace", package: "strace")
    /// A private MQTT broker (``PrivateBroker``) and its clients: mosquitto and mosquitto_passwd (Debian package
    /// mosquitto), mosquitto_sub (Debian package mosquitto-clients), and openssl for its certificates.
    public static let mosquitto = [
        program("/usr/sbin/mosquitto", package: "mosquitto"),
        program("/usr/bin/mosquitto_passwd", package: "mosquitto"),
        program("/usr/bin/mosquitto_sub", package: "mosquitto-clients"), program("openssl", package: "openssl"),
    ]
    /// Python 3 (its standard library: csv, sqlite3, pty, uuid).
    public static let python3 = program("python3", package: "python3")
    /// Headless Chromium, which renders the report.
    public static let chromium = program("/usr/bin/chromium", package: "chromium")
    /// xdg-utils, which registers URL handlers and opens URLs as a desktop does.
    public static let xdgUtils = [program("xdg-mime", package: "xdg-utils"), program("xdg-open", package: "xdg-utils")]
    /// GLib's launcher, which starts a desktop entry as a desktop environment does.
    public static let gio = program("gio", package: "libglib2.0-bin")
    /// desktop-file-validate, which `install-handler` runs on the entry it writes.
    public static let desktopFileUtils = program("desktop-file-validate", package: "desktop-file-utils")
    /// A mount namespace of the test's own (`unshare -m`, as root), in which a program or library can be hidden.
    public static let rootNamespaces = Requirement(description: "root and unshare (Debian package util-linux)") {
        geteuid() == 0 && executable("/usr/bin/unshare") != nil
    }
    /// The independent implementations in `Tests/Oracles` (hrv-analysis, bleak, fhir.resources), in their virtual
    /// environment: python3 with venv and PyPI.
    public static let oracles = Requirement(
        description: "the Python oracles (Tests/Oracles/setup.sh: Debian packages python3 and python3-venv, and PyPI)"
    ) { (try? Oracles.python()) != nil }

    /// A private PostgreSQL cluster (``PrivatePostgres``): its server (initdb, pg_ctl), psql, and openssl for its
    /// certificates.
    public static let postgres = Requirement(
        description:
            "initdb and pg_ctl (Debian package postgresql), psql (Debian package postgresql-client) and openssl (Debian package openssl)"
    ) {
        PrivatePostgres.serverBinaries() != nil && executable("psql") != nil && executable("openssl") != nil
    }

    /// Those of `requirements` that are not met.
    static func missing(_ requirements: [Requirement]) -> [Requirement] { requirements.filter { !$0.isMet() } }

    /// `VITALBRIDGE_TESTS_REQUIRE_ALL=1`: nothing is skipped (CI).
    static let requireAll = ProcessInfo.processInfo.environment["VITALBRIDGE_TESTS_REQUIRE_ALL"] == "1"

    /// The path of the executable `name` (a path, or a name looked up on `PATH`), if there is one.
    public static func executable(_ name: String) -> String? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only where everything in `requirements` is present; elsewhere it is skipped, saying what is
    /// missing (or, in CI, run anyway so that it fails).
    public static func needs(_ requirements: Requirement...) -> Self { needs(requirements) }

    /// Runs the test only where everything in `requirements` is present (see ``Requirement``).
    public static func needs(_ requirements: [Requirement]) -> Self {
        let missing = Requirement.requireAll ? [] : Requirement.missing(requirements)
        let names = missing.map(\.description).joined(separator: ", ")
        return .enabled(if: missing.isEmpty, "needs \(names), which this machine lacks")
    }
}
