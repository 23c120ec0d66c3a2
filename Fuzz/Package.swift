// swift-tools-version: 6.1
import PackageDescription

/// A libFuzzer target `name` in `Sources/<name>`, fuzzing the VitalBridge products `products`.
func fuzzTarget(_ name: String, using products: [String], also: [Target.Dependency] = []) -> Target {
    .executableTarget(
        name: name,
        dependencies: ["FuzzCheck"] + products.map { .product(name: $0, package: "VitalBridge") } + also
    )
}

// libFuzzer targets for every parser and decoder VitalBridge exposes to callers, devices and files. Kept out of the
// main package: they define `LLVMFuzzerTestOneInput` instead of `main`, so they link only with libFuzzer's runtime.
// Build one: swift build -c debug --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address \
//     --product FuzzRequest (the last flag is what gives Swift code coverage: fuzz.sh says why)
// Run them all as CI does: bash fuzz.sh ci (DEVELOPERS.md has the recipe and the long run).
let package = Package(
    name: "VitalBridgeFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "VitalBridge", path: ".."),
        // the sealed-box target seals the fuzzer's plaintext itself, to reach what opens it
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        .target(name: "FuzzCheck"),
        fuzzTarget("FuzzRequest", using: ["VitalCore", "LayeredProtocol"]),
        fuzzTarget("FuzzCallback", using: ["VitalCore", "LayeredProtocol", "LayeredClient"]),
        fuzzTarget("FuzzHealthGATT", using: ["HealthGATT", "HealthGATTJSON", "VitalCore"]),
        fuzzTarget("FuzzFleet", using: ["VitalSimulation"]),
        fuzzTarget("FuzzWhitelist", using: ["LayeredProtocol"]),
        fuzzTarget("FuzzJSON", using: ["VitalCore", "LayeredProtocol"]),
        fuzzTarget("FuzzSmartband", using: ["VitalCore", "VitalDevices", "LayeredProtocol", "HealthGATT"]),
        fuzzTarget(
            "FuzzSealedBox", using: ["ShareVitalSigns", "VitalCore"],
            also: [.product(name: "Crypto", package: "swift-crypto")]),
        fuzzTarget("FuzzDDS", using: ["VitalCore", "WelltoryDDS"]),
        fuzzTarget("FuzzFeedCursor", using: ["VitalCore"]),
        fuzzTarget("FuzzSinkAddress", using: ["SinkSettings"]),
        fuzzTarget("FuzzDBus", using: ["DBus"]),
        fuzzTarget("FuzzMQTT", using: ["MQTT"]),
    ],
    swiftLanguageModes: [.v6]
)
