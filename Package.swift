// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "VitalBridge",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "LayeredProtocol", targets: ["LayeredProtocol"]),
        .library(name: "LayeredClient", targets: ["LayeredClient"]),
        .library(name: "HealthGATT", targets: ["HealthGATT"]),
        .library(name: "VitalDevices", targets: ["VitalDevices"]),
        .library(name: "VitalSimulation", targets: ["VitalSimulation"]),
        .library(name: "VitalStore", targets: ["VitalStore"]),
        .library(name: "VitalBridge", targets: ["VitalBridge"]),
        .library(name: "ShareVitalSigns", targets: ["ShareVitalSigns"]),
        .library(name: "WelltoryDDS", targets: ["WelltoryDDS"]),
        .library(name: "VitalExports", targets: ["VitalExports"]),
        .library(name: "DBus", targets: ["DBus"]),
        .library(name: "BlueZ", targets: ["BlueZ"]),
        .library(name: "SimulatedBlueZ", targets: ["SimulatedBlueZ"]),
        // what the tests and the benchmarks share: a private dbus-daemon, temporary folders, the Python oracles
        .library(name: "VitalTestSupport", targets: ["VitalTestSupport"]),
        .executable(name: "vitalbridge", targets: ["vitalbridge"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        .target(name: "LayeredProtocol"),
        // a caller's side, with no Linux-only API: an iOS app could use it
        .target(name: "LayeredClient", dependencies: ["LayeredProtocol"]),
        .target(name: "HealthGATT"),
        .target(
            name: "ShareVitalSigns",
            dependencies: ["LayeredProtocol", .product(name: "Crypto", package: "swift-crypto")]),
        .target(name: "WelltoryDDS", dependencies: ["LayeredProtocol"]),
        .target(name: "VitalDevices", dependencies: ["LayeredProtocol", "HealthGATT", "Locking"]),
        // FHIR R4 bundles and the HTML report: pure functions from readings to bytes (SHA-1 for name-based UUIDs,
        // SDNN from WelltoryDDS's HRV)
        .target(
            name: "VitalExports",
            dependencies: ["LayeredProtocol", "WelltoryDDS", .product(name: "Crypto", package: "swift-crypto")]),
        // Locked, a value behind a pthread mutex: the lock ThreadSanitizer sees (Synchronization.Mutex it does not)
        .target(name: "Locking"),
        // sd-bus is loaded at run time from libsystemd.so.0 (SDBus.swift): building needs no -dev package
        .target(name: "DBus", dependencies: ["Locking"]),
        .target(
            name: "BlueZ",
            dependencies: [
                "DBus", "Locking", "VitalDevices", "LayeredProtocol", .product(name: "Logging", package: "swift-log"),
            ]),
        .target(
            name: "SimulatedBlueZ",
            dependencies: ["BlueZ", "DBus", "VitalSimulation", "VitalDevices", "LayeredProtocol"]),
        .target(name: "VitalSimulation", dependencies: ["VitalDevices", "HealthGATT", "LayeredProtocol", "Locking"]),
        .target(name: "VitalStore", dependencies: ["LayeredProtocol", .product(name: "GRDB", package: "GRDB.swift")]),
        .target(
            name: "VitalBridge",
            dependencies: [
                "LayeredProtocol", "Locking", "VitalDevices", "VitalStore", "ShareVitalSigns", "WelltoryDDS",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "VitalBridgeCLI",
            dependencies: [
                "LayeredProtocol", "LayeredClient", "HealthGATT", "VitalDevices", "VitalSimulation", "VitalStore",
                "VitalBridge", "Locking",
                "ShareVitalSigns", "WelltoryDDS", "VitalExports", "DBus", "BlueZ", "SimulatedBlueZ",
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
                .unsafeFlags(["-Xlinker", "--no-export-dynamic"], .when(platforms: [.linux], configuration: .release))
            ]),
        .target(name: "VitalTestSupport", dependencies: ["VitalSimulation"], path: "Tests/VitalTestSupport"),
        // the trait `.needs(…)`: a test that needs a program the machine may lack is skipped naming it (CI runs all)
        .target(name: "TestRequirements", dependencies: ["VitalTestSupport", "DBus"], path: "Tests/TestRequirements"),
        .testTarget(name: "LayeredProtocolTests", dependencies: ["LayeredProtocol", "VitalTestSupport"]),
        .testTarget(name: "LayeredClientTests", dependencies: ["LayeredClient", "LayeredProtocol"]),
        .testTarget(name: "HealthGATTTests", dependencies: ["HealthGATT", "VitalTestSupport"]),
        .testTarget(
            name: "ShareVitalSignsTests", dependencies: ["ShareVitalSigns", "LayeredProtocol", "VitalTestSupport"]),
        .testTarget(name: "WelltoryDDSTests", dependencies: ["WelltoryDDS", "VitalTestSupport", "TestRequirements"]),
        .testTarget(
            name: "VitalExportsTests",
            dependencies: ["VitalExports", "LayeredProtocol", "WelltoryDDS", "VitalTestSupport", "TestRequirements"]
        ),
        .testTarget(name: "LockingTests", dependencies: ["Locking"]),
        .testTarget(name: "DBusTests", dependencies: ["DBus", "VitalTestSupport", "TestRequirements"]),
        .testTarget(
            name: "BlueZTests",
            dependencies: [
                "BlueZ", "SimulatedBlueZ", "DBus", "VitalDevices", "VitalSimulation", "HealthGATT", "LayeredProtocol",
                "VitalTestSupport", "TestRequirements", "Locking", .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "VitalSimulationTests",
            dependencies: [
                "VitalSimulation", "VitalDevices", "HealthGATT", "LayeredProtocol", "VitalTestSupport", "Locking",
            ]
        ),
        .testTarget(
            name: "VitalStoreTests",
            dependencies: [
                "VitalStore", "LayeredProtocol", "VitalTestSupport", "Locking",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "VitalBridgeTests",
            dependencies: [
                "VitalBridge", "VitalTestSupport", "VitalSimulation", "VitalStore", "VitalDevices", "LayeredProtocol",
                "WelltoryDDS", "ShareVitalSigns", "Locking", "HealthGATT",
            ]),
        .testTarget(
            name: "VitalBridgeCLITests",
            dependencies: [
                "vitalbridge", "VitalBridgeCLI", "LayeredProtocol", "LayeredClient", "VitalBridge", "VitalSimulation",
                "VitalStore",
                "VitalDevices", "ShareVitalSigns", "WelltoryDDS", "VitalTestSupport", "TestRequirements",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
