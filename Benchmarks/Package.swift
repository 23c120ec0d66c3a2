// swift-tools-version: 6.1
import PackageDescription

// Benchmarks for VitalBridge, kept out of the main package so that `swift test` never builds them.
// Run from this folder: swift package --disable-sandbox benchmark
let package = Package(
    name: "VitalBridgeBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
        .package(name: "VitalBridge", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "LayeredProtocolBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "LayeredProtocol", package: "VitalBridge"),
            ],
            path: "Benchmarks/LayeredProtocolBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "DeviceBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "VitalDevices", package: "VitalBridge"),
                .product(name: "VitalSimulation", package: "VitalBridge"),
                .product(name: "LayeredProtocol", package: "VitalBridge"),
            ],
            path: "Benchmarks/DeviceBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "StoreBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "VitalBridge", package: "VitalBridge"),
                .product(name: "VitalStore", package: "VitalBridge"),
                .product(name: "VitalDevices", package: "VitalBridge"),
                .product(name: "VitalSimulation", package: "VitalBridge"),
                .product(name: "LayeredProtocol", package: "VitalBridge"),
            ],
            path: "Benchmarks/StoreBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The baseline of open-latency.sh: a Swift program that imports Foundation and prints one line.
        .executableTarget(name: "foundation-hello", path: "Sources/foundation-hello"),
        .executableTarget(
            name: "HealthGATTBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "HealthGATT", package: "VitalBridge"),
            ],
            path: "Benchmarks/HealthGATTBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
