// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "LiveRelay",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LiveRelayCore", targets: ["LiveRelayCore"]),
        .library(name: "HTTP", targets: ["HTTP"]),
        .library(name: "LiveRelayTesting", targets: ["LiveRelayTesting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
    ],
    targets: [
        .target(name: "LiveRelayCore"),
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .target(
            name: "HTTP",
            dependencies: [
                "CCurl",
                "LiveRelayCore",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "LiveRelayTesting",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(name: "LiveRelayCoreTests", dependencies: ["LiveRelayCore"]),
        .testTarget(name: "HTTPTests", dependencies: ["HTTP", "LiveRelayTesting"]),
    ],
    swiftLanguageModes: [.v6]
)
