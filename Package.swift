// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "VitalBridge",
    products: [
        .library(name: "LayeredProtocol", targets: ["LayeredProtocol"])
    ],
    targets: [
        .target(name: "LayeredProtocol"),
        .testTarget(name: "LayeredProtocolTests", dependencies: ["LayeredProtocol"]),
    ],
    swiftLanguageModes: [.v6]
)
