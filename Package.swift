// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "LiveRelay",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "liverelay", targets: ["liverelay"]),
        .library(name: "LiveRelayCore", targets: ["LiveRelayCore"]),
        .library(name: "Rules", targets: ["Rules"]),
        .library(name: "HTTP", targets: ["HTTP"]),
        .library(name: "Worker", targets: ["Worker"]),
        .library(name: "LiveRelayTesting", targets: ["LiveRelayTesting"]),
        // For the benchmarks' package (Benchmarks/).
        .library(name: "Feeds", targets: ["Feeds"]),
        .library(name: "Throttling", targets: ["Throttling"]),
        .library(name: "Delivery", targets: ["Delivery"]),
        .library(name: "Store", targets: ["Store"]),
        .library(name: "PostgresStore", targets: ["PostgresStore"]),
        .library(name: "Report", targets: ["Report"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        // The loopback servers that stand in for feeds and providers (test support); swift-crypto also signs
        // APNs provider tokens.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // The API's connection guard sees Hummingbird's HTTP parts (already in the build through Hummingbird).
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        // The shared state of several workers (PostgreSQL).
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        // Value types shared by every stage. No dependencies.
        .target(name: "LiveRelayCore"),
        // libcurl, with typed wrappers for its variadic calls.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // nghttp2 and OpenSSL, for the push lane.
        .systemLibrary(
            name: "CNGHTTP2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev", "libssl-dev"])]),
        // HTTPTransport, CurlTransport (libcurl multi on its own threads) and HTTP2Lane (nghttp2, for pushes).
        .target(
            name: "HTTP",
            dependencies: ["CCurl", "CNGHTTP2", "LiveRelayCore", .product(name: "Logging", package: "swift-log")]),
        // Feeds fetched (through HTTP's libcurl transport) and polled; bodies → facts per entity → changes.
        .target(name: "Feeds", dependencies: ["LiveRelayCore", "HTTP"]),
        // JsonLogic, rule files, the rule engine. Pure: no I/O besides reading rule files, no clock.
        .target(name: "Rules", dependencies: ["LiveRelayCore"]),
        // Content-state ledger and push budget. Pure: no I/O, no clock.
        .target(name: "Throttling", dependencies: ["LiveRelayCore"]),
        // The replay report: its data model built from the pipeline's decisions, and its HTML and SVG. Pure:
        // values in, bytes out.
        .target(name: "Report", dependencies: ["LiveRelayCore"]),
        // Push providers (APNs, console, …) and the sender in front of them.
        .target(
            name: "Delivery",
            dependencies: [
                "LiveRelayCore", "HTTP", .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                // RS256 for Google service-account assertions (FCM).
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]),
        // The store's values and the business rules both backends share, as pure functions. No database library.
        .target(name: "StoreCore", dependencies: ["LiveRelayCore"]),
        // SQLite state.
        .target(
            name: "Store",
            dependencies: [
                "LiveRelayCore", "StoreCore", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]),
        // The whole state in PostgreSQL, shared by several workers: migrations, leases, outbox claims.
        .target(
            name: "PostgresStore",
            dependencies: [
                "LiveRelayCore", "Store", .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        // The composition root: config, pipeline, tick, replay.
        .target(
            name: "Worker",
            dependencies: [
                "LiveRelayCore", "HTTP", "Feeds", "Rules", "Throttling", "Delivery", "Store", "Report",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ]),
        // The command-line tool.
        .executableTarget(
            name: "liverelay",
            dependencies: [
                "Worker", "LiveRelayCore", "Rules", "Delivery", "Store", "Feeds", "Report", "PostgresStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        // Test support: loopback servers and fakes, generated certificates, repository paths, the test clock, a
        // recording provider and the demo config; nothing of the worker or its store (see WorkerTesting).
        .target(
            name: "LiveRelayTesting",
            dependencies: [
                "LiveRelayCore", "HTTP", "Delivery",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]),

        // What the worker's tests and benchmarks share on top of LiveRelayTesting: the recorded match's and the
        // sequences' replays, the test environment, the state file's lock. Apart, so that the tests of Rules,
        // Feeds, HTTP and Delivery build neither the worker nor its store.
        .target(
            name: "WorkerTesting",
            dependencies: [
                "LiveRelayTesting", "LiveRelayCore", "Delivery", "Store", "Worker",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]),

        .testTarget(name: "LiveRelayCoreTests", dependencies: ["LiveRelayCore", "LiveRelayTesting"]),
        .testTarget(name: "HTTPTests", dependencies: ["HTTP", "LiveRelayTesting"]),
        .testTarget(name: "FeedsTests", dependencies: ["Feeds", "HTTP", "LiveRelayCore", "LiveRelayTesting"]),
        .testTarget(
            name: "RulesTests", dependencies: ["Rules", "LiveRelayCore", "LiveRelayTesting"],
            exclude: ["Fixtures"], resources: [.copy("Resources")]),
        .testTarget(
            name: "ThrottlingTests",
            dependencies: [
                "Throttling", "LiveRelayCore", "LiveRelayTesting",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]),
        .testTarget(
            name: "DeliveryTests",
            dependencies: [
                "Delivery", "LiveRelayCore", "HTTP", "LiveRelayTesting",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]),
        .testTarget(name: "StoreCoreTests", dependencies: ["StoreCore", "LiveRelayCore"]),
        .testTarget(
            name: "StoreTests",
            dependencies: ["Store", "LiveRelayCore", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "PostgresStoreTests", dependencies: ["PostgresStore", "Store", "LiveRelayCore"]),
        .testTarget(
            name: "ReportTests",
            dependencies: [
                "Report", "Worker", "Rules", "LiveRelayCore", "LiveRelayTesting", "WorkerTesting", "liverelay",
            ]),
        .testTarget(
            name: "WorkerTests",
            dependencies: [
                "Worker", "Delivery", "Store", "LiveRelayCore", "LiveRelayTesting", "WorkerTesting", "liverelay",
                "Report", "Rules", "PostgresStore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)

// What the model packages (swift-nio, Hummingbird) turn on: `any` on every existential, members visible only
// from modules a file imports itself, and imports internal unless a file says `public import`.
for target in package.targets where target.type != .system {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility"),
            .enableUpcomingFeature("InternalImportsByDefault"),
        ]
}
