// swift-tools-version: 6.1
import PackageDescription

// The benchmarks (`liverelay-bench`, run by scripts/bench/*.sh), kept out of the main package so that the
// everyday build and test loop does not compile and link them. They build in release against the main
// package's products: swift build -c release --package-path Benchmarks (scripts/bench/build.sh).
let package = Package(
    name: "LiveRelayBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "LiveRelay", path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
    ],
    targets: [
        .executableTarget(
            name: "liverelay-bench",
            dependencies: [
                .product(name: "LiveRelayCore", package: "LiveRelay"), .product(name: "Feeds", package: "LiveRelay"),
                .product(name: "Rules", package: "LiveRelay"), .product(name: "Throttling", package: "LiveRelay"),
                .product(name: "Delivery", package: "LiveRelay"), .product(name: "Store", package: "LiveRelay"),
                .product(name: "HTTP", package: "LiveRelay"), .product(name: "Worker", package: "LiveRelay"),
                .product(name: "Report", package: "LiveRelay"),
                .product(name: "LiveRelayTesting", package: "LiveRelay"),
                .product(name: "PostgresStore", package: "LiveRelay"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"), .product(name: "Crypto", package: "swift-crypto"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility"),
            .enableUpcomingFeature("InternalImportsByDefault"),
        ]
}
