// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "LiveRelay",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LiveRelayCore", targets: ["LiveRelayCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // Value types shared by every stage. No dependencies.
        .target(name: "LiveRelayCore"),
        // Feed bodies → facts per entity → changes. Pure apart from fetching.
        .target(name: "Feeds", dependencies: ["LiveRelayCore"]),
        // Content-state ledger and push budget. Pure: no I/O, no clock.
        .target(name: "Throttling", dependencies: ["LiveRelayCore"]),
        // Push providers (APNs, console, …) and the sender in front of them.
        .target(name: "Delivery", dependencies: ["LiveRelayCore"]),
        // SQLite state.
        .target(name: "Store", dependencies: ["LiveRelayCore", .product(name: "GRDB", package: "GRDB.swift")]),

        .testTarget(name: "LiveRelayCoreTests", dependencies: ["LiveRelayCore"]),
        .target(name: "Rules", dependencies: ["LiveRelayCore"]),
        .testTarget(name: "RulesTests", dependencies: ["Rules", "LiveRelayCore"]),
    ],
    swiftLanguageModes: [.v6]
)
