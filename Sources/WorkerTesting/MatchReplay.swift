import Crypto
public import Foundation
public import LiveRelayCore
public import LiveRelayTesting
public import Logging
public import Store
import Synchronization
public import Worker
public import _CryptoExtras

/// The recorded AUS v EGY match replayed through the composition root into a provider a test configures
/// (pointing at a running fake): a temporary folder with the demo's feed and rules and a config whose
/// provider section the test gives, and the checks every provider's replay shares (its golden file, the
/// events and content-states the APNs golden carries).
public struct MatchReplay: Sendable {
    public static let authority = try! TestCertificateAuthority()
    public static let match = EntityKey(feed: "espn-worldcup", id: "760499")
    public static let startToken = "80" + String(repeating: "a1", count: 79)
    public static let activityToken = "5f" + String(repeating: "3c", count: 79)

    /// The folder (removed after the test).
    public let directory: URL
    /// The config file in it.
    public let configPath: String

    /// A replay of the config at `configPath` in `directory`.
    public init(directory: URL, configPath: String) {
        self.directory = directory
        self.configPath = configPath
    }

    /// Writes the config with `provider` (none when `nil`) and `extra` sections, and `files` beside it, runs
    /// `body`, and removes the folder.
    public static func with(
        provider: JSONValue?, extra: [String: JSONValue] = [:], files: [String: String] = [:],
        _ body: (MatchReplay) async throws -> Void
    ) async throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, content) in files {
            try content.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        var config = try DemoConfig()
        config["http"] = ["ca-file": .string(authority.caFile)]
        config["provider"] = provider
        for (key, value) in extra { config[key] = value }
        try await body(MatchReplay(directory: directory, configPath: try config.write(to: directory)))
    }

    /// Builds the worker through the composition root (backoff on a clock that does not sleep) and replays
    /// the recorded match; `registering` fills the registry first, `started` runs once the match's activity
    /// is active (its start delivered), as an app reports the new activity's update token then, and
    /// `finished` once the sequence is over, before the worker stops. Returns the store.
    @discardableResult
    public func replay(
        logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
        metrics: LiveRelayMetrics = .none, registering: (SQLiteStore) async throws -> Void,
        started: @escaping @Sendable (SQLiteStore) async throws -> Void = { _ in },
        finished: (LiveRelayWorker) async throws -> Void = { _ in }
    ) async throws -> SQLiteStore {
        let loaded = try ConfigLoader.load(path: configPath)
        let store = try SQLiteStore(path: directory.appendingPathComponent("state.sqlite").path)
        try await registering(store)
        let worker = try await LiveRelayWorker.build(
            loaded, rules: loaded.loadRules(), store: store,
            environment: .test(
                now: { Int(Date().timeIntervalSince1970) }, logger: logger, metrics: metrics,
                variables: ProcessInfo.processInfo.environment))
        defer { worker.shutdown() }
        let sequence = try ReplaySequence.load(path: Repository.path("Samples/sequences/espn-aus-egy/sequence.json"))
        let once = StartedOnce()
        _ = try await Replayer(pipeline: worker.pipeline, feed: loaded.feeds[0], write: { _ in })
            .replay(sequence, directory: Repository.path("Samples/sequences/espn-aus-egy")) { _ in
                let phase = try await store.activities(["match-760499"])["match-760499"]?.phase
                if phase == .active || phase == .ended, once.first() { try await started(store) }
            }
        try await finished(worker)
        return store
    }

    /// One device subscribed to the match, with its push-to-start token (as for the APNs golden).
    public static func registerDevice(_ store: SQLiteStore) async throws {
        try await store.subscribe(device: "iphone-a", to: match, now: 0)
        try await store.registerPushToStartToken(
            device: "iphone-a", attributesType: "MatchAttributes", token: startToken, environment: .sandbox, now: 0)
    }

    /// The update token the app reports once the match's activity started on the device.
    public static func registerActivityToken(_ store: SQLiteStore) async throws {
        try await store.registerActivityToken(
            activity: "match-760499", device: "iphone-a", token: activityToken, environment: .sandbox, now: 0)
    }

    /// Compares `actual` with the golden file byte for byte; LIVERELAY_UPDATE_GOLDEN=1 rewrites it.
    public static func golden(_ name: String, _ actual: Data) throws -> (actual: String, expected: String) {
        let golden = Repository.path("Samples/sequences/espn-aus-egy/\(name)")
        if ProcessInfo.processInfo.environment["LIVERELAY_UPDATE_GOLDEN"] == "1" {
            try actual.write(to: URL(fileURLWithPath: golden))
        }
        return (String(decoding: actual, as: UTF8.self), try String(contentsOfFile: golden, encoding: .utf8))
    }

    /// The events and content-states of the APNs golden, in order: what every provider must carry too.
    public static func apnsEvents() throws -> [String] {
        let data = try Data(contentsOf: Repository.url("Samples/sequences/espn-aus-egy/expected-apns.json"))
        let pushes = try JSONSerialization.jsonObject(with: data) as! [[String: Any]]
        return try pushes.map { push in
            let body = try JSONSerialization.jsonObject(with: Data((push["body"] as! String).utf8)) as! [String: Any]
            let aps = body["aps"] as! [String: Any]
            return try eventLine(aps["event"] as? String ?? "?", aps["content-state"])
        }
    }

    /// `event content-state` with sorted keys, for comparing providers.
    public static func eventLine(_ event: String, _ state: Any?) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: state ?? [:], options: [.sortedKeys])
        return event + " " + String(decoding: data, as: UTF8.self)
    }

    /// A Google service-account key file for a generated key, as Google issues them.
    public static func serviceAccountJSON(key: _RSA.Signing.PrivateKey, tokenURI: String) throws -> String {
        let object: [String: String] = [
            "type": "service_account", "project_id": "demo-project", "private_key_id": "0123abcd",
            "private_key": key.pkcs8PEMRepresentation, "client_email": "liverelay@demo-project.iam.gserviceaccount.com",
            "client_id": "1234567890", "token_uri": tokenURI,
        ]
        return String(
            decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }
}

extension MatchReplay {
    /// The bundle id the fake APNs accepts.
    public static let bundleID = "com.example.scores"

    /// A running fake APNs (checking provider tokens against a generated `.p8` key, written as
    /// `AuthKey_ABC123DEFG.p8` beside the config) and a config whose APNs provider (sandbox) points at it.
    /// `channels` is the provider's `channels` object (none when `nil`), `extra` more sections of the config
    /// (`activity-modes`).
    public static func withFakeAPNs(
        channels: JSONValue? = nil, extra: [String: JSONValue] = [:],
        _ body: (MatchReplay, FakeAPNs) async throws -> Void
    ) async throws {
        let key = P256.Signing.PrivateKey()
        let fake = try await FakeAPNs.start(
            authority: authority,
            configuration: FakeAPNs.Configuration(
                keyID: "ABC123DEFG", teamID: "DEF123GHIJ", publicKey: key.publicKey, bundleID: bundleID))
        try await fake.serving { fake in
            var provider: [String: JSONValue] = [
                "type": "apns", "bundle-id": .string(bundleID), "key-id": "ABC123DEFG", "team-id": "DEF123GHIJ",
                "key": ["file": "AuthKey_ABC123DEFG.p8"], "environment": "sandbox", "endpoint": .string(fake.url),
                "timeout": 60,
            ]
            provider["channels"] = channels
            try await with(
                provider: .object(provider), extra: extra,
                files: ["AuthKey_ABC123DEFG.p8": key.pemRepresentation]
            ) { replay in try await body(replay, fake) }
        }
    }
}

/// True the first time it is asked, false after.
final class StartedOnce: Sendable {
    private let done = Mutex(false)

    func first() -> Bool {
        done.withLock { done in
            defer { done = true }
            return !done
        }
    }
}
