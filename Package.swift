// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "LiveRelay",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LiveRelayCore", targets: ["LiveRelayCore"]),
    ],
    dependencies: [
    ],
    targets: [
        .target(name: "LiveRelayCore"),
        .testTarget(name: "LiveRelayCoreTests", dependencies: ["LiveRelayCore"]),
        .target(name: "Rules", dependencies: ["LiveRelayCore"]),
        .testTarget(name: "RulesTests", dependencies: ["Rules", "LiveRelayCore"]),
    ],
    swiftLanguageModes: [.v6]
)
