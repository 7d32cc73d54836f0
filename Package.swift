// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "LiveRelay",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LiveRelayCore", targets: ["LiveRelayCore"]),
        .library(name: "Rules", targets: ["Rules"]),
    ],
    dependencies: [
    ],
    targets: [
        .target(name: "LiveRelayCore"),
        // Pure decisions: no I/O, no clock, nothing but Core.
        .target(name: "Rules", dependencies: ["LiveRelayCore"]),
        .testTarget(name: "LiveRelayCoreTests", dependencies: ["LiveRelayCore"]),
        .testTarget(
            name: "RulesTests",
            dependencies: ["Rules", "LiveRelayCore"],
            resources: [.copy("Resources")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
