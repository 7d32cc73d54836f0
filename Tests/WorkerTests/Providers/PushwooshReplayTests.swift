import Foundation
import LiveRelayCore
import LiveRelayTesting
import Logging
import Prometheus
import Store
import Testing
import Worker
import WorkerTesting

/// The recorded match through the real pipeline, the real `CurlTransport` and the fake Pushwoosh, and
/// routing between providers.
@Suite("Recorded match into the fake Pushwoosh")
struct PushwooshReplayTests {
    typealias Setup = MatchReplay
    static let apiToken = "pushwoosh-api-token-secret"

    static func with(
        provider: (FakePushwoosh) -> JSONValue = Self.pushwoosh, extra: [String: JSONValue] = [:],
        _ body: (Setup, FakePushwoosh) async throws -> Void
    ) async throws {
        let fake = try await FakePushwoosh.start(
            authority: Setup.authority, application: "ABCDE-12345", apiToken: apiToken)
        try await fake.serving { fake in
            try await Setup.with(provider: provider(fake), extra: extra, files: ["pushwoosh.token": apiToken]) {
                setup in
                try await body(setup, fake)
            }
        }
    }

    static func pushwoosh(_ fake: FakePushwoosh) -> JSONValue {
        [
            "type": "pushwoosh", "id": "pw", "application": "ABCDE-12345", "api-token": ["file": "pushwoosh.token"],
            "endpoint": .string(fake.url),
        ]
    }

    static func register(_ store: SQLiteStore) async throws {
        try await store.subscribe(device: "iphone-a", to: Setup.match, now: 0)
        try await store.registerAddress(
            RegisteredAddress(device: "iphone-a", provider: "pushwoosh", address: Setup.startToken), now: 0)
    }

    /// Set LIVERELAY_UPDATE_GOLDEN=1 to rewrite the golden file after an intended change.
    @Test func theFakeRecordsExactlyTheGoldenRequests() async throws {
        try await Self.with { setup, fake in
            let registry = PrometheusCollectorRegistry()
            _ = try await setup.replay(
                metrics: LiveRelayMetrics(factory: PrometheusMetricsFactory(registry: registry)),
                registering: Self.register)
            // A batch provider's deliveries are counted as the one-by-one providers' are.
            var exposition: [UInt8] = []
            registry.emit(into: &exposition)
            let metrics = String(decoding: exposition, as: UTF8.self)
            #expect(
                metrics.contains(#"liverelay_pushes_total{provider="pushwoosh",priority="10",outcome="delivered"}"#))
            // Each poll's plan, each release and each delivery timed.
            for stage in ["plan", "release", "deliver"] {
                let prefix = #"liverelay_stage_duration_seconds_count{stage=""# + stage + #""} "#
                let count = metrics.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap {
                    Int($0.dropFirst(prefix.count))
                }
                #expect((count ?? 0) > 0, "\(stage) timed: \(count.map(String.init) ?? "no series")")
            }
            #expect(fake.rejections.isEmpty, "\(fake.rejections)")
            let (actual, expected) = try Setup.golden(
                "expected-pushwoosh.json", try FakeProviderRequest.goldenJSON(fake.accepted))
            #expect(actual == expected)
            #expect(!actual.contains(Self.apiToken))
            let events = try fake.accepted.flatMap { request in
                let notifications = (request.json["request"] as! [String: Any])["notifications"] as! [[String: Any]]
                return try notifications.map { n in
                    let la = n["live_activity"] as! [String: Any]
                    return try Setup.eventLine(la["event"] as? String ?? "start", la["content-state"])
                }
            }
            #expect(events == (try Setup.apnsEvents()))
        }
    }

    /// With `filter-code`, the start goes to the segment though no device is registered; updates and the end
    /// still go to the activity's `live_activity_id`.
    @Test func aFilterCodeSendsTheStartToASegment() async throws {
        try await Self.with(provider: { fake in
            guard case .object(var provider) = Self.pushwoosh(fake) else { fatalError() }
            provider["filter-code"] = "WORLD_CUP_FANS"
            return .object(provider)
        }) { setup, fake in
            _ = try await setup.replay(registering: { _ in })
            #expect(fake.rejections.isEmpty, "\(fake.rejections)")
            let notifications = fake.accepted.flatMap { request in
                (request.json["request"] as! [String: Any])["notifications"] as! [[String: Any]]
            }
            #expect(notifications.count == 7)
            #expect(fake.accepted.first?.path == "/json/1.3/startLiveActivity")
            #expect(notifications.first?["filter_code"] as? String == "WORLD_CUP_FANS")
            #expect(notifications.first?["devices"] == nil && notifications.first?["users"] == nil)
            #expect(notifications.dropFirst().allSatisfy { $0["filter_code"] == nil })
            #expect(Set(notifications.compactMap { $0["live_activity_id"] as? String }) == ["match-760499"])
        }
    }

    @Test func routesSendAnAttributesTypeToAnotherProvider() async throws {
        let fake = try await FakePushwoosh.start(
            authority: Setup.authority, application: "ABCDE-12345", apiToken: Self.apiToken)
        defer { Task { try? await fake.stop() } }
        try await Setup.with(
            provider: ["type": "console", "bundle-id": "com.example.scores"],
            extra: [
                "providers": [Self.pushwoosh(fake)],
                "routes": [["attributes-type": "MatchAttributes", "provider": "pw"]],
            ],
            files: ["pushwoosh.token": Self.apiToken]
        ) { setup in
            _ = try await setup.replay(registering: Self.register)
            #expect(fake.accepted.count == 7, "every push of MatchAttributes went to Pushwoosh")
        }
    }

    /// Without `provider`, the first of `providers` is the default: one provider (one transport, one
    /// provider token) and one sender serve both the default and the route to it.
    @Test func withoutProviderTheFirstOfProvidersIsBuiltOnce() async throws {
        let fake = try await FakePushwoosh.start(
            authority: Setup.authority, application: "ABCDE-12345", apiToken: Self.apiToken)
        defer { Task { try? await fake.stop() } }
        try await Setup.with(
            provider: nil,
            extra: [
                "providers": [Self.pushwoosh(fake)],
                "routes": [["attributes-type": "PriceAttributes", "provider": "pw"]],
            ],
            files: ["pushwoosh.token": Self.apiToken]
        ) { setup in
            let loaded = try ConfigLoader.load(path: setup.configPath)
            let store = try SQLiteStore(path: setup.directory.appendingPathComponent("built.sqlite").path)
            let worker = try await LiveRelayWorker.build(
                loaded, rules: loaded.loadRules(), store: store, environment: .test())
            defer { worker.shutdown() }
            #expect(loaded.defaultProviderID == "pw")
            #expect(worker.pipeline.senders.keys.sorted() == ["pw"])
            #expect(worker.health.snapshot.providers.keys.sorted() == ["pw"])

            // And the match goes through it (MatchAttributes are not routed: the default is the same provider).
            _ = try await setup.replay(registering: Self.register)
            #expect(fake.rejections.isEmpty, "\(fake.rejections)")
            #expect(fake.accepted.count == 7)
        }
    }

    @Test func aRouteToAnUnknownProviderIsAConfigError() async throws {
        try await Setup.with(
            provider: ["type": "console"],
            extra: ["routes": [["attributes-type": "MatchAttributes", "provider": "nope"]]]
        ) { setup in
            await #expect(throws: Diagnostics.self) { _ = try await setup.replay(registering: { _ in }) }
        }
    }
}
