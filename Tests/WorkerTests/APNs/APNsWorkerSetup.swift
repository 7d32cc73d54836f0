import Crypto
import Foundation
import LiveRelayCore
import LiveRelayTesting
import Worker

/// A temporary folder with an APNs config pointing at a running fake APNs: the key file, the test CA and
/// the demo's feed and rules.
struct APNsWorkerSetup {
    static let authority = try! TestCertificateAuthority()
    static let bundleID = "com.example.scores"
    static let startToken = "80" + String(repeating: "a1", count: 79)
    static let activityToken = "5f" + String(repeating: "3c", count: 79)

    let directory: URL
    let fake: FakeAPNs
    let configPath: String

    static func with(_ body: (APNsWorkerSetup) async throws -> Void) async throws {
        let directory = try Repository.temporaryDirectory()
        let key = P256.Signing.PrivateKey()
        try key.pemRepresentation.write(
            to: directory.appendingPathComponent("AuthKey_ABC123DEFG.p8"), atomically: true, encoding: .utf8)
        let fake = try await FakeAPNs.start(
            authority: authority,
            configuration: FakeAPNs.Configuration(
                keyID: "ABC123DEFG", teamID: "DEF123GHIJ", publicKey: key.publicKey, bundleID: bundleID))
        let demo = try JSONParser.parse(Data(contentsOf: Repository.url("Samples/demo/liverelay.json")))
        guard case .object(var config) = demo, case .array(var feeds) = config["feeds"],
            case .object(var feed) = feeds[0]
        else { fatalError("the demo config changed shape") }
        feed["url"] = .string("file:" + Repository.path("Samples/recordings/espn-soccer-scoreboard-1-first-half.json"))
        feeds[0] = .object(feed)
        config["feeds"] = .array(feeds)
        config["$schema"] = nil
        config["rules"] = [.string(Repository.path("Rules/soccer.rules.json"))]
        config["http"] = ["ca-file": .string(authority.caFile)]
        config["provider"] = [
            "type": "apns", "bundle-id": .string(bundleID), "key-id": "ABC123DEFG", "team-id": "DEF123GHIJ",
            "key": ["file": "AuthKey_ABC123DEFG.p8"], "environment": "sandbox", "endpoint": .string(fake.url),
            "timeout": 60,
        ]
        let configPath = directory.appendingPathComponent("liverelay.json").path
        try JSONValue.object(config).jsonString().write(toFile: configPath, atomically: true, encoding: .utf8)
        let setup = APNsWorkerSetup(directory: directory, fake: fake, configPath: configPath)
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            try await body(setup)
        } catch {
            try? await fake.stop()
            throw error
        }
        try await fake.stop()
    }
}
