// swift-tools-version: 6.1
import PackageDescription

// libFuzzer targets for LiveRelay's input-facing code. Kept out of the main package so that its build and CI
// do not change; build and run them with scripts/fuzz.sh (it passes -sanitize=fuzzer,address, which these
// targets need to link: libFuzzer supplies the driver they call).
let package = Package(
    name: "LiveRelayFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "LiveRelay", path: "..")],
    targets: [
        // The driver hook every target starts from, and the invariant check.
        .target(name: "FuzzSupport"),
        // JSONParser: plain, decimal, selective and source-mapped parsing, and the serialiser round trip.
        .executableTarget(
            name: "fuzz-json",
            dependencies: ["FuzzSupport", .product(name: "LiveRelayCore", package: "LiveRelay")]),
        // RuleLoader (parse, schema, compile with diagnostics) and JsonLogic compile + evaluate.
        .executableTarget(
            name: "fuzz-rules",
            dependencies: [
                "FuzzSupport", .product(name: "LiveRelayCore", package: "LiveRelay"),
                .product(name: "Rules", package: "LiveRelay"),
            ]),
        // Every preset normaliser and the generic mapping. Feeds is not a product of its own; Worker brings it.
        .executableTarget(
            name: "fuzz-feeds",
            dependencies: [
                "FuzzSupport", .product(name: "LiveRelayCore", package: "LiveRelay"),
                .product(name: "Worker", package: "LiveRelay"),
            ]),
        // ConfigLoader.load(path:environment:) on a config file written to a scratch folder.
        .executableTarget(
            name: "fuzz-config",
            dependencies: [
                "FuzzSupport", .product(name: "LiveRelayCore", package: "LiveRelay"),
                .product(name: "Worker", package: "LiveRelay"),
            ]),
        // The token API's path-step validation and body decoding (needs -enable-testing: they are internal).
        .executableTarget(
            name: "fuzz-tokenapi",
            dependencies: [
                "FuzzSupport", .product(name: "LiveRelayCore", package: "LiveRelay"),
                .product(name: "Worker", package: "LiveRelay"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
