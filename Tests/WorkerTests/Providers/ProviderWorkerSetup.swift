import Foundation
import LiveRelayCore
import LiveRelayTesting
import Logging
import Store
import Worker
import _CryptoExtras

/// A temporary folder with the demo's feed and rules and a config whose provider section a test gives
/// (pointing at a running fake), plus a helper replaying the recorded match through the real pipeline.
struct ProviderWorkerSetup {
    static let authority = try! TestCertificateAuthority()
    static let match = EntityKey(feed: "espn-worldcup", id: "760499")
    static let startToken = "80" + String(repeating: "a1", count: 79)
    static let activityToken = "5f" + String(repeating: "3c", count: 79)

    let directory: URL
    let configPath: String

    /// Writes the config with `provider` (none when `nil`; and optional `providers`/`routes`), runs `body`,
    /// removes the folder.
    static func with(
        provider: JSONValue?, extra: [String: JSONValue] = [:], files: [String: String] = [:],
        _ body: (ProviderWorkerSetup) async throws -> Void
    ) async throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, content) in files {
            try content.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
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
        config["provider"] = provider
        for (key, value) in extra { config[key] = value }
        let configPath = directory.appendingPathComponent("liverelay.json").path
        try JSONValue.object(config).jsonString().write(toFile: configPath, atomically: true, encoding: .utf8)
        try await body(ProviderWorkerSetup(directory: directory, configPath: configPath))
    }

    /// Replays the recorded match; `registering` fills the registry first.
    func replay(
        logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
        metrics: LiveRelayMetrics = .none,
        registering: (SQLiteStore) async throws -> Void
    ) async throws -> SQLiteStore {
        let loaded = try ConfigLoader.load(path: configPath)
        let rules = WorkerFactory.rules(for: loaded)
        let store = try SQLiteStore(path: directory.appendingPathComponent("state.sqlite").path)
        try await registering(store)
        let provider = try WorkerFactory.provider(for: loaded, write: { _ in })
        let router = try WorkerFactory.router(
            for: loaded, rules: rules, store: store, logger: logger, defaultProvider: provider, clock: ImmediateClock(),
            write: { _ in })
        let pipeline = try await WorkerFactory.pipeline(
            for: loaded, rules: rules, store: store, provider: provider, logger: logger, metrics: metrics,
            clock: ImmediateClock(), router: router)
        let sequence = try ReplaySequence.load(path: Repository.path("Samples/sequences/espn-aus-egy/sequence.json"))
        _ = try await Replayer(pipeline: pipeline, feed: loaded.feeds[0], write: { _ in })
            .replay(sequence, directory: Repository.path("Samples/sequences/espn-aus-egy"))
        return store
    }

    /// One device subscribed to the match, with its APNs tokens (as for the APNs golden).
    static func registerTokens(_ store: SQLiteStore) async throws {
        try await store.subscribe(device: "iphone-a", to: match)
        try await store.registerPushToStartToken(
            device: "iphone-a", attributesType: "MatchAttributes", token: startToken, environment: .sandbox, now: 0)
        try await store.registerActivityToken(
            activity: "match-760499", device: "iphone-a", token: activityToken, environment: .sandbox, now: 0)
    }

    /// Compares `actual` with the golden file byte for byte; LIVERELAY_UPDATE_GOLDEN=1 rewrites it.
    static func golden(_ name: String, _ actual: Data) throws -> (actual: String, expected: String) {
        let golden = Repository.path("Samples/sequences/espn-aus-egy/\(name)")
        if ProcessInfo.processInfo.environment["LIVERELAY_UPDATE_GOLDEN"] == "1" {
            try actual.write(to: URL(fileURLWithPath: golden))
        }
        return (String(decoding: actual, as: UTF8.self), try String(contentsOfFile: golden, encoding: .utf8))
    }

    /// The events and content-states of the APNs golden, in order: what every provider must carry too.
    static func apnsEvents() throws -> [String] {
        let data = try Data(contentsOf: Repository.url("Samples/sequences/espn-aus-egy/expected-apns.json"))
        let pushes = try JSONSerialization.jsonObject(with: data) as! [[String: Any]]
        return try pushes.map { push in
            let body = try JSONSerialization.jsonObject(with: Data((push["body"] as! String).utf8)) as! [String: Any]
            let aps = body["aps"] as! [String: Any]
            return try eventLine(aps["event"] as? String ?? "?", aps["content-state"])
        }
    }

    /// `event content-state` with sorted keys, for comparing providers.
    static func eventLine(_ event: String, _ state: Any?) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: state ?? [:], options: [.sortedKeys])
        return event + " " + String(decoding: data, as: UTF8.self)
    }

    /// A Google service-account key file for a generated key, as Google issues them.
    static func serviceAccountJSON(key: _RSA.Signing.PrivateKey, tokenURI: String) throws -> String {
        let object: [String: String] = [
            "type": "service_account", "project_id": "demo-project", "private_key_id": "0123abcd",
            "private_key": key.pkcs8PEMRepresentation, "client_email": "liverelay@demo-project.iam.gserviceaccount.com",
            "client_id": "1234567890", "token_uri": tokenURI,
        ]
        return String(
            decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }
}
