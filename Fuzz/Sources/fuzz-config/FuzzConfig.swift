import Foundation
import FuzzSupport
import LiveRelayCore
import Rules
import Worker

/// ConfigLoader.load(path:environment:) on any bytes as a config file, and, for a config that loads, the
/// checks `liverelay check` adds (provider settings and credentials, the API token, routes). The file is
/// written to `a/b/liverelay.json` in a scratch folder whose `Rules` links to the repository's, so the sample
/// configs' relative paths (`../../Rules/…`) reach real contracts. A thrown `Diagnostics` is an answer.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Data(bytes: data, count: size)
    guard FileManager.default.createFile(atPath: scratch.config, contents: input) else {
        fatalError("cannot write \(scratch.config)")
    }
    do {
        let loaded = try ConfigLoader.load(path: scratch.config, environment: environment)
        _ = loaded.startProblems(rules: RuleSet(), variables: environment)
    } catch {
        invariant(!error.items.isEmpty, "a config refused without a diagnostic")
        for item in error.items { _ = item.description }
    }
    return 0
}

private let environment = [
    "LIVERELAY_API_TOKEN": "0123456789abcdef0123456789abcdef", "FOOTBALL_DATA_TOKEN": "token",
    "HEADER_WITH_NEWLINE": "a\r\nInjected: yes", "EMPTY": "",
]

private let scratch: (folder: String, config: String) = {
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "liverelay-fuzz-config-\(ProcessInfo.processInfo.processIdentifier)")
    let configFolder = folder.appendingPathComponent("a/b")
    try! FileManager.default.createDirectory(at: configFolder, withIntermediateDirectories: true)
    try? FileManager.default.createSymbolicLink(
        at: folder.appendingPathComponent("Rules"), withDestinationURL: repository.appendingPathComponent("Rules"))
    try! "secret-from-a-file\n".write(
        to: configFolder.appendingPathComponent("secret.txt"), atomically: true, encoding: .utf8)
    return (folder.path, configFolder.appendingPathComponent("liverelay.json").path)
}()

@_cdecl("fuzz_config_main")
public func fuzzConfigMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzzConfig)
}
