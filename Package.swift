// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "VitalBridge",
    products: [
        .library(name: "LayeredProtocol", targets: ["LayeredProtocol"]),
        .executable(name: "vitalbridge", targets: ["vitalbridge"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2")
    ],
    targets: [
        .target(name: "LayeredProtocol"),
        .target(
            name: "VitalBridgeCLI",
            dependencies: ["LayeredProtocol", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(name: "vitalbridge", dependencies: ["VitalBridgeCLI"]),
        .testTarget(name: "LayeredProtocolTests", dependencies: ["LayeredProtocol"]),
        .testTarget(name: "VitalBridgeCLITests", dependencies: ["vitalbridge", "LayeredProtocol"]),
    ],
    swiftLanguageModes: [.v6]
)
