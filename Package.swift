// swift-tools-version: 6.1
import PackageDescription

/// `VITALBRIDGE_THREAD_SANITIZER=own` (`bash Tests/tsan.sh --own`, CI's ThreadSanitizer step): see below; `all`: the
/// whole package under ThreadSanitizer (`bash Tests/tsan.sh`).
let threadSanitizer = Context.environment["VITALBRIDGE_THREAD_SANITIZER"]
let ownTargetsSanitized = threadSanitizer == "own"

/// With `VITALBRIDGE_STATIC_DEBUG=1` (CI, and `Packaging/build-deb.sh --debug`) the debug build's `vitalbridge` links
/// the Swift runtime and Foundation statically, as the package's release binary does (`--static-swift-stdlib`): the
/// loader then binds no symbol of theirs at start, which took a debug process 32 ms of CPU for `--version` (14.5 ms
/// static) and 37 ms for an `open` (25 ms). The tests start it some thousands of times. Objects compiled for the
/// dynamic runtime name only Foundation among Foundation's libraries: the rest are named here (this toolchain's
/// `usr/lib/swift_static`), as one group so that their order does not matter. Never under ThreadSanitizer, whose
/// allocator then meets memory the static libdispatch freed ("CHECK failed: sanitizer_allocator_secondary.h", exit 66,
/// at every command). Without it the debug build links as SwiftPM does by default.
let staticRuntime =
    Context.environment["VITALBRIDGE_STATIC_DEBUG"] != "1" || threadSanitizer != nil
    ? []
    : ["-static-stdlib", "-Xlinker", "--start-group"]
        + [
            "Foundation", "CoreFoundation", "FoundationInternationalization", "_FoundationICU", "FoundationEssentials",
            "_FoundationCShims", "_FoundationCollections", "swiftDispatch", "dispatch", "BlocksRuntime", "stdc++", "m",
        ].flatMap { ["-Xlinker", "-l\($0)"] } + ["-Xlinker", "--end-group"]

/// With `VITALBRIDGE_WHOLE_MODULE_DEBUG=1` (CI) each of this package's modules is compiled in one frontend process
/// (`-wmo`, still `-Onone`), not in batches that each parse and check every file's declarations again: less CPU for
/// a build from scratch, which is all CI does, and a whole module recompiled for any change, which is why a
/// developer's build leaves it off.
/// Its module is emitted by the same process (not by a job of its own that checks every declaration again first), and
/// two threads generate code, one object a file as SwiftPM links them (a single object fails the index store's check).
/// Own modules of a fresh debug tree, 2026-11-30: 513 CPU-seconds in batches, 270 so. The fuzz targets' build
/// (Fuzz/Package.swift, which depends on this package by path) compiles these modules whole too. A module instrumented
/// by the ThreadSanitizer rebuild (`own`) is compiled in batches there, the other modules keep their flags, so those
/// of them whose inputs did not change are not rebuilt. Whether batches pay in that rebuild is not settled: 167 s in
/// batches at stop 70, 205 s whole and 241 s in batches at stop 71, on a machine whose speed moved by a minute a build.
let wholeModuleDebug = Context.environment["VITALBRIDGE_WHOLE_MODULE_DEBUG"] == "1"
let wholeModuleFlags = ["-wmo", "-num-threads", "2", "-no-emit-module-separately-wmo"]

let package = Package(
    name: "VitalBridge",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "VitalCore", targets: ["VitalCore"]),
        .library(name: "LayeredProtocol", targets: ["LayeredProtocol"]),
        .library(name: "LayeredClient", targets: ["LayeredClient"]),
        .library(name: "HealthGATT", targets: ["HealthGATT"]),
        .library(name: "HealthGATTJSON", targets: ["HealthGATTJSON"]),
        .library(name: "VitalDevices", targets: ["VitalDevices"]),
        .library(name: "VitalSimulation", targets: ["VitalSimulation"]),
        .library(name: "VitalStore", targets: ["VitalStore"]),
        .library(name: "VitalBridge", targets: ["VitalBridge"]),
        .library(name: "ShareVitalSigns", targets: ["ShareVitalSigns"]),
        .library(name: "WelltoryDDS", targets: ["WelltoryDDS"]),
        .library(name: "VitalExports", targets: ["VitalExports"]),
        .library(name: "DBus", targets: ["DBus"]),
        .library(name: "BlueZ", targets: ["BlueZ"]),
        .library(name: "SinkSettings", targets: ["SinkSettings"]),
        .library(name: "MQTT", targets: ["MQTT"]),
        .library(name: "VitalSinks", targets: ["VitalSinks"]),
        .library(name: "SimulatedBlueZ", targets: ["SimulatedBlueZ"]),
        .library(name: "VitalHome", targets: ["VitalHome"]),
        // what the tests and the benchmarks share: a private dbus-daemon, temporary folders, the Python oracles
        .library(name: "VitalTestSupport", targets: ["VitalTestSupport"]),
        .executable(name: "vitalbridge", targets: ["vitalbridge"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    ],
    targets: [
        // what every layer shares: MAC addresses, times, device models and units, each reading kind described once
        .target(name: "VitalCore"),
        .target(name: "LayeredProtocol", dependencies: ["VitalCore"]),
        // a caller's side, with no Linux-only API: an iOS app could use it
        .target(name: "LayeredClient", dependencies: ["VitalCore", "LayeredProtocol"]),
        .target(name: "HealthGATT"),
        // the JSON of `gatt decode`, beside the codec (as swift-http-types keeps HTTPTypesFoundation beside its core)
        .target(name: "HealthGATTJSON", dependencies: ["HealthGATT", "VitalCore"]),
        .target(
            name: "ShareVitalSigns",
            dependencies: ["VitalCore", .product(name: "Crypto", package: "swift-crypto")]),
        .target(name: "WelltoryDDS", dependencies: ["VitalCore"]),
        .target(name: "VitalDevices", dependencies: ["VitalCore", "HealthGATT", "Locking"]),
        // FHIR R4 bundles and the HTML report: pure functions from readings to bytes (SHA-1 for name-based UUIDs,
        // SDNN from WelltoryDDS's HRV)
        .target(
            name: "VitalExports",
            dependencies: ["VitalCore", .product(name: "Crypto", package: "swift-crypto")]),
        // Locked, a value behind a pthread mutex: the lock ThreadSanitizer sees (Synchronization.Mutex it does not)
        .target(name: "Locking"),
        // sd-bus is loaded at run time from libsystemd.so.0 (SDBus.swift): building needs no -dev package
        .target(name: "DBus", dependencies: ["Locking"]),
        .target(
            name: "BlueZ",
            dependencies: [
                "VitalCore", "DBus", "Locking", "VitalDevices", .product(name: "Logging", package: "swift-log"),
            ]),
        .target(
            name: "SimulatedBlueZ",
            dependencies: ["VitalCore", "BlueZ", "DBus", "VitalSimulation", "VitalDevices"]),
        .target(
            name: "VitalSimulation",
            dependencies: ["VitalCore", "VitalDevices", "HealthGATT", "Locking"]),
        .target(
            name: "VitalStore",
            dependencies: [
                "VitalCore", .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, for the statements a pushed reading runs (DirectStatement)
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]),
        // where a sink is and how it logs in: its address, its password's sources and its errors, without the network
        // stack (the fuzz targets and `sink add`'s checks need no PostgresNIO)
        .target(name: "SinkSettings", dependencies: [.product(name: "Logging", package: "swift-log")]),
        // MQTT 3.1.1 packets encoded and decoded, no I/O: the MQTT sink's connection (VitalSinks) speaks them
        .target(name: "MQTT"),
        // the outbox's far sides: PostgreSQL through postgres-nio, the only module that imports it, and the MQTT
        // broker's connection on SwiftNIO
        .target(
            name: "VitalSinks",
            dependencies: [
                "VitalCore", "SinkSettings", "MQTT", "VitalExports", "Locking",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        .target(
            name: "VitalBridge",
            dependencies: [
                "VitalCore", "LayeredProtocol", "Locking", "VitalDevices", "VitalStore", "ShareVitalSigns",
                "WelltoryDDS",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // the home's files: its layout, link and owner checks, atomic writes, device leases, process identity, the DDS
        // sources and ShareVitalSigns' board and keys, the programs the hub runs (the opener), the desktop's handler
        // registration, and `doctor`'s checks of all of it and of BlueZ
        .target(
            name: "VitalHome",
            dependencies: [
                "VitalCore", "LayeredProtocol", "VitalBridge", "VitalDevices", "VitalSimulation", "VitalStore",
                "ShareVitalSigns", "WelltoryDDS", "VitalExports", "BlueZ", "DBus", "Locking", "SinkSettings",
                "VitalSinks",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(
            name: "VitalBridgeCLI",
            dependencies: [
                "VitalCore", "LayeredProtocol", "LayeredClient", "HealthGATT", "HealthGATTJSON", "VitalDevices",
                "VitalSimulation",
                "VitalStore",
                "VitalBridge", "Locking",
                "ShareVitalSigns", "WelltoryDDS", "VitalExports", "DBus", "BlueZ", "SimulatedBlueZ", "SinkSettings",
                "VitalSinks", "VitalHome",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "vitalbridge", dependencies: ["VitalBridgeCLI"],
            // The static Swift runtime's link arguments export every symbol of the program (18,000 of them) for no
            // caller: nothing looks them up, yet the runtime's dladdr at start scans them all. Not exporting them
            // takes 0.4 ms and 1.6 MiB off each `open` of the release build (Benchmarks/README.md, "One lean binary").
            linkerSettings: [
                .unsafeFlags(["-Xlinker", "--no-export-dynamic"], .when(platforms: [.linux], configuration: .release)),
                .unsafeFlags(staticRuntime, .when(platforms: [.linux], configuration: .debug)),
            ]),
        .target(
            name: "VitalTestSupport",
            dependencies: [
                "VitalCore", "VitalSimulation", "Locking", .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/VitalTestSupport"),
        // the trait `.needs(…)`: a test that needs a program the machine may lack is skipped naming it (CI runs all)
        .target(name: "TestRequirements", dependencies: ["VitalTestSupport", "DBus"], path: "Tests/TestRequirements"),
        .testTarget(name: "VitalCoreTests", dependencies: ["VitalCore", "VitalTestSupport", "TestRequirements"]),
        .testTarget(name: "LayeredProtocolTests", dependencies: ["VitalCore", "LayeredProtocol", "VitalTestSupport"]),
        .testTarget(
            name: "LayeredClientTests",
            dependencies: ["VitalCore", "LayeredClient", "LayeredProtocol", "VitalTestSupport"]),
        .testTarget(
            name: "HealthGATTTests", dependencies: ["HealthGATT", "HealthGATTJSON", "VitalCore", "VitalTestSupport"]),
        .testTarget(
            name: "ShareVitalSignsTests",
            dependencies: ["VitalCore", "ShareVitalSigns", "VitalTestSupport"]),
        .testTarget(
            name: "WelltoryDDSTests",
            dependencies: ["VitalCore", "WelltoryDDS", "VitalTestSupport", "TestRequirements"]),
        .testTarget(
            name: "VitalExportsTests",
            dependencies: [
                "VitalCore", "VitalExports", "VitalTestSupport", "TestRequirements",
            ]
        ),
        .testTarget(name: "LockingTests", dependencies: ["Locking"]),
        // the sink against a private PostgreSQL cluster (Tests/postgres.sh); psql reads the tables back and is the
        // oracle of ~/.pgpass
        .testTarget(name: "SinkSettingsTests", dependencies: ["SinkSettings"]),
        .testTarget(name: "MQTTTests", dependencies: ["MQTT"]),
        .testTarget(
            name: "VitalSinksTests",
            dependencies: [
                "VitalCore", "SinkSettings", "VitalSinks", "VitalExports", "VitalTestSupport", "TestRequirements",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(name: "DBusTests", dependencies: ["DBus", "VitalTestSupport", "TestRequirements"]),
        .testTarget(
            name: "BlueZTests",
            dependencies: [
                "VitalCore", "BlueZ", "SimulatedBlueZ", "DBus", "VitalDevices", "VitalSimulation", "HealthGATT",
                "VitalTestSupport",
                "TestRequirements", "Locking", .product(name: "Logging", package: "swift-log"),
            ]),
        // each driver against a scripted connection: real SIG bytes in, exact readings and writes out
        .testTarget(
            name: "VitalDevicesTests",
            dependencies: ["VitalCore", "VitalDevices", "HealthGATT", "LayeredProtocol", "Locking"]),
        .testTarget(
            name: "VitalSimulationTests",
            dependencies: [
                "VitalCore", "VitalSimulation", "VitalDevices", "HealthGATT", "LayeredProtocol", "VitalTestSupport",
                "VitalBridge",
                "Locking",
            ]
        ),
        .testTarget(
            name: "VitalStoreTests",
            dependencies: [
                "VitalCore", "VitalStore", "VitalTestSupport", "Locking",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "VitalBridgeTests",
            dependencies: [
                "VitalCore", "VitalBridge", "VitalTestSupport", "VitalSimulation", "VitalStore", "VitalDevices",
                "LayeredProtocol",
                "WelltoryDDS", "ShareVitalSigns", "Locking", "HealthGATT", "TestRequirements",
            ]),
        .testTarget(
            name: "VitalHomeTests",
            dependencies: [
                "VitalHome", "VitalCore", "VitalBridge", "VitalStore", "ShareVitalSigns", "VitalExports",
                "LayeredProtocol", "Locking",
                "VitalTestSupport",
            ]),
        // The tests start the vitalbridge executable, which `swift test` builds with every product: depending on it
        // would link its objects, and its static runtime (staticRuntime), into the test bundle too.
        .testTarget(
            name: "VitalBridgeCLITests",
            dependencies: [
                "VitalCore", "VitalBridgeCLI", "LayeredProtocol", "LayeredClient", "VitalBridge",
                "VitalSimulation",
                "VitalStore",
                "VitalDevices", "ShareVitalSigns", "WelltoryDDS", "VitalTestSupport", "TestRequirements", "VitalHome",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// `VITALBRIDGE_THREAD_SANITIZER=own` (`bash Tests/tsan.sh --own`, CI's ThreadSanitizer step): this package's own
// targets are built with ThreadSanitizer and its dependencies are not, so a debug tree rebuilds only its own targets
// (about 6 CPU-minutes here, against 16 for everything), the dependencies uninstrumented as sd-bus and the Swift
// runtime always are.
// The codecs and value types share no state across threads: they are left uninstrumented too (the debug tree's build
// of them is kept), which takes about a third off the rebuild.
let sharingNothing: Set<String> = [
    "VitalCore", "LayeredProtocol", "LayeredClient", "HealthGATT", "HealthGATTJSON", "ShareVitalSigns", "WelltoryDDS",
    "VitalExports", "SinkSettings", "MQTT",
]
// The test targets that hold the suites CI's ThreadSanitizer step runs (.ci/run names them). The others are left out
// of the package in that build: each would be compiled again (they depend on VitalTestSupport, which is instrumented)
// to run nothing. The command-line tests are built but not instrumented: their own code only starts vitalbridge
// processes, and the binary they start is.
let threadSanitizerTestTargets: Set<String> = [
    "LockingTests", "DBusTests", "BlueZTests", "VitalDevicesTests", "VitalSinksTests", "VitalStoreTests",
    "VitalBridgeTests", "VitalBridgeCLITests",
]
if ownTargetsSanitized {
    package.targets.removeAll { $0.type == .test && !threadSanitizerTestTargets.contains($0.name) }
}

// Every target: an existential says `any`, and a member is visible only from a module the file imports.
for target in package.targets {
    let sanitized =
        ownTargetsSanitized && !sharingNothing.contains(target.name) && target.name != "VitalBridgeCLITests"
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility"),
        ] + (sanitized ? [.unsafeFlags(["-sanitize=thread"])] : [])
        + (wholeModuleDebug && !sanitized ? [.unsafeFlags(wholeModuleFlags, .when(configuration: .debug))] : [])
    if ownTargetsSanitized, target.type == .test || target.type == .executable {
        target.linkerSettings = (target.linkerSettings ?? []) + [.unsafeFlags(["-sanitize=thread"])]
    }
}
