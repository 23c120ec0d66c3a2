// swift-tools-version: 6.1
import PackageDescription

/// A benchmark executable `name` in `Benchmarks/<name>`, using the VitalBridge products `products`.
func benchmark(_ name: String, using products: [String]) -> Target {
    .executableTarget(
        name: name,
        dependencies: [.product(name: "Benchmark", package: "benchmark"), "BenchmarkInputs"]
            + products.map { .product(name: $0, package: "VitalBridge") },
        path: "Benchmarks/\(name)",
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    )
}

// Benchmarks for VitalBridge, kept out of the main package so that `swift test` never builds them.
// Run from this folder: swift package --disable-sandbox benchmark
let package = Package(
    name: "VitalBridgeBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
        .package(name: "VitalBridge", path: ".."),
        // the floor a push sync is measured against: one bare SQLite commit (same GRDB as the store)
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        benchmark("LayeredProtocolBenchmarks", using: ["VitalCore", "LayeredProtocol"]),
        benchmark("HealthGATTBenchmarks", using: ["HealthGATT"]),
        benchmark("HRVBenchmarks", using: ["VitalCore"]),
        benchmark("ExportBenchmarks", using: ["VitalCore", "VitalExports", "LayeredProtocol"]),
        benchmark("DeviceBenchmarks", using: ["VitalCore", "VitalDevices", "VitalSimulation", "LayeredProtocol"]),
        // the D-Bus path of a notification against the in-process seam; starts a private dbus-daemon
        benchmark(
            "BlueZBenchmarks",
            using: [
                "BlueZ", "SimulatedBlueZ", "VitalDevices", "VitalSimulation", "VitalCore", "LayeredProtocol",
                "VitalTestSupport",
            ]
        ),
        .executableTarget(
            name: "StoreBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"), .product(name: "GRDB", package: "GRDB.swift"),
            ]
                + ["VitalBridge", "VitalStore", "VitalDevices", "VitalSimulation", "VitalCore", "LayeredProtocol"].map {
                    .product(name: $0, package: "VitalBridge")
                },
            path: "Benchmarks/StoreBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // What the micro-benchmarks measure, and the same work run alone for callgrind to count (figures.sh)
        .target(name: "BenchmarkInputs", path: "Sources/BenchmarkInputs"),
        .executableTarget(
            name: "instructions",
            dependencies: [
                "BenchmarkInputs", .product(name: "VitalCore", package: "VitalBridge"),
                .product(name: "LayeredProtocol", package: "VitalBridge"),
                .product(name: "HealthGATT", package: "VitalBridge"),
            ],
            path: "Sources/instructions"),
        // The baseline of open-latency.sh: a Swift program that imports Foundation and prints one line.
        .executableTarget(name: "foundation-hello", path: "Sources/foundation-hello"),
        // The whitelist read by swift-foundation's PropertyListDecoder and by VitalBridge's reader, whole process.
        .executableTarget(name: "plist-foundation", path: "Sources/plist-foundation"),
        .executableTarget(
            name: "plist-vitalbridge", dependencies: [.product(name: "LayeredProtocol", package: "VitalBridge")],
            path: "Sources/plist-vitalbridge"),
        // A fleet file and a device's saved state read by swift-foundation's JSONDecoder and by VitalBridge's
        // reader, whole process (json-readers.sh).
        .executableTarget(name: "json-foundation", path: "Sources/json-foundation"),
        .executableTarget(
            name: "json-vitalbridge",
            dependencies: [
                .product(name: "VitalCore", package: "VitalBridge"),
                .product(name: "VitalSimulation", package: "VitalBridge"),
            ],
            path: "Sources/json-vitalbridge"),
    ],
    swiftLanguageModes: [.v6]
)
