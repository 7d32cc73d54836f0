import Crypto
import Foundation
import LiveRelayCore
import LiveRelayTesting
import Store
import Worker
import WorkerTesting
import _CryptoExtras

/// Each provider with its fake running, as the life-cycle scenarios need it: the config's provider section,
/// the registration of one device, an outage switch, and the events the fake accepted, in order. A provider
/// brings its own entry (`static let apns = FakeProviderCase(…)`); `allCases` lists them.
struct FakeProviderCase: Sendable, CustomStringConvertible {
    /// Every provider the life-cycle scenarios run through.
    static let allCases: [FakeProviderCase] = [.apns, .fcm, .pushwoosh, .getui, .example]

    /// The provider's type.
    let name: String
    /// Starts its fake.
    let start: @Sendable () async throws -> Running

    var description: String { name }

    struct Running: Sendable {
        var provider: JSONValue
        var files: [String: String]
        var register: @Sendable (SQLiteStore) async throws -> Void
        /// Makes the fake refuse every push with an answer the worker retries later (a `Retry-After` longer
        /// than the sender waits in process), or ends the outage.
        var setOutage: @Sendable (Bool) -> Void
        var events: @Sendable () -> [String]
        var stop: @Sendable () async throws -> Void
        /// The APNs pushes the fake accepted (APNs only; empty for the others).
        var accepted: @Sendable () -> [(event: String, state: JSONValue?)] = { [] }
    }

    static let cid = "0123456789abcdef0123456789abcdef"

    /// Starts the fake and runs `body` with it; stops it afterwards.
    func run(_ body: (Running) async throws -> Void) async throws {
        let running = try await start()
        do {
            try await body(running)
        } catch {
            try? await running.stop()
            throw error
        }
        try await running.stop()
    }

    static let apns = FakeProviderCase(name: "apns") {
        let authority = MatchReplay.authority
        // The same key for the fake and the config: written by `files`.
        let key = P256.Signing.PrivateKey()
        let fake = try await FakeAPNs.start(
            authority: authority,
            configuration: FakeAPNs.Configuration(
                keyID: "ABC123DEFG", teamID: "DEF123GHIJ", publicKey: key.publicKey,
                bundleID: MatchReplay.bundleID))
        return Running(
            provider: [
                "type": "apns", "bundle-id": .string(MatchReplay.bundleID), "key-id": "ABC123DEFG",
                "team-id": "DEF123GHIJ", "key": ["file": "key.p8"], "environment": "sandbox",
                "endpoint": .string(fake.url),
            ],
            files: ["key.p8": key.pemRepresentation], register: Self.registerTwoDevices,
            setOutage: { fake.setOutage($0 ? .status(429, reason: "TooManyRequests", retryAfter: 60) : nil) },
            events: { fake.accepted.map { Self.event(of: $0.body, at: ["aps"]) } }, stop: { try await fake.stop() },
            accepted: {
                fake.accepted.map { push in
                    let aps = (try? JSONParser.parse(push.body))?["aps"]
                    return (aps?["event"]?.stringValue ?? "?", aps?["content-state"])
                }
            })
    }

    static let fcm = FakeProviderCase(name: "fcm") {
        let authority = MatchReplay.authority
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let fake = try await FakeFCM.start(
            authority: authority, clientEmail: "liverelay@demo-project.iam.gserviceaccount.com",
            projectID: "demo-project", publicKey: key.publicKey)
        return Running(
            provider: [
                "type": "fcm", "bundle-id": "com.example.scores", "service-account": ["file": "sa.json"],
                "endpoint": .string(fake.url),
            ],
            files: ["sa.json": try MatchReplay.serviceAccountJSON(key: key, tokenURI: fake.tokenURL)],
            register: { store in
                try await Self.registerTwoDevices(store)
                for device in ["iphone-a", "iphone-b"] {
                    _ = try await store.registerAddress(
                        RegisteredAddress(device: device, provider: "fcm", address: "fcm-registration-\(device)"),
                        now: 0)
                }
            },
            setOutage: {
                fake.setOutage(
                    $0
                        ? FakeFCM.Fault(
                            status: 429, canonical: "RESOURCE_EXHAUSTED", errorCode: "QUOTA_EXCEEDED",
                            retryAfter: 60) : nil)
            },
            events: { fake.accepted.map { Self.event(of: $0.body, at: ["message", "apns", "payload", "aps"]) } },
            stop: { try await fake.stop() })
    }

    static let pushwoosh = FakeProviderCase(name: "pushwoosh") {
        let authority = MatchReplay.authority
        let fake = try await FakePushwoosh.start(
            authority: authority, application: "ABCDE-12345", apiToken: "pw-token")
        return Running(
            provider: [
                "type": "pushwoosh", "application": "ABCDE-12345", "api-token": ["file": "pw.token"],
                "endpoint": .string(fake.url),
            ],
            files: ["pw.token": "pw-token"],
            register: { store in
                try await store.subscribe(device: "iphone-a", to: MatchReplay.match, now: 0)
                _ = try await store.registerAddress(
                    RegisteredAddress(device: "iphone-a", provider: "pushwoosh", address: "HWID-iphone-a"), now: 0)
            },
            setOutage: {
                fake.setOutage($0 ? FakePushwoosh.Fault(status: 429, statusCode: 429, retryAfter: 60) : nil)
            },
            events: {
                fake.accepted.map { request in
                    request.path.hasSuffix("startLiveActivity")
                        ? "start"
                        : Self.event(of: request.body, at: ["request", "notifications", "0", "live_activity"])
                }
            },
            stop: { try await fake.stop() })
    }

    static let getui = FakeProviderCase(name: "getui") {
        let authority = MatchReplay.authority
        let fake = try await FakeGetui.start(
            authority: authority, appID: "demoAppId0123", appKey: "demoAppKey456", masterSecret: "ms")
        return Running(
            provider: [
                "type": "getui", "app-id": "demoAppId0123", "app-key": "demoAppKey456",
                "master-secret": ["file": "getui.secret"], "endpoint": .string(fake.url),
            ],
            files: ["getui.secret": "ms"],
            register: { store in
                try await store.subscribe(device: "iphone-a", to: MatchReplay.match, now: 0)
                _ = try await store.registerAddress(
                    RegisteredAddress(device: "iphone-a", provider: "getui", address: Self.cid), now: 0)
            },
            // 10005: a per-minute limit; the provider pauses for a minute.
            setOutage: { fake.setOutage($0 ? FakeGetui.Fault(code: 10005, msg: "limit exceeded") : nil) },
            events: {
                fake.accepted.map { Self.event(of: $0.body, at: ["push_channel", "ios", "aps"]) }
            },
            stop: { try await fake.stop() })
    }

    /// Two devices follow the match: iphone-a runs its activity already (its update token is known: updates
    /// and the end reach it), iphone-b waits for its start (a push-to-start token only).
    static func registerTwoDevices(_ store: SQLiteStore) async throws {
        for device in ["iphone-a", "iphone-b"] {
            try await store.subscribe(device: device, to: MatchReplay.match, now: 0)
        }
        try await store.registerActivityToken(
            activity: "match-760499", device: "iphone-a", token: MatchReplay.activityToken, environment: .sandbox,
            now: 0)
        try await store.registerPushToStartToken(
            device: "iphone-b", attributesType: "MatchAttributes", token: MatchReplay.startToken,
            environment: .sandbox, now: 0)
    }

    /// The `event` of the object at `path` in a request's JSON body (array indices as numbers).
    static func event(of body: String, at path: [String]) -> String {
        var value = try? JSONParser.parse(body)
        for step in path { value = Int(step).map { value?[$0] } ?? value?[step] }
        return value?["event"]?.stringValue ?? "?"
    }
}
