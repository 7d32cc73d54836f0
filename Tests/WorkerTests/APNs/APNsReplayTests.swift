import Delivery
import Foundation
import LiveRelayCore
import LiveRelayTesting
import Logging
import Store
import Testing
import Worker

/// The recorded match through the real pipeline, the real `CurlTransport` (HTTP/2 + TLS) and the fake APNs.
@Suite("Recorded match into the fake APNs")
struct APNsReplayTests {
    typealias Setup = APNsWorkerSetup
    static let match = EntityKey(feed: "espn-worldcup", id: "760499")

    static func replay(_ setup: Setup, registering: (SQLiteStore) async throws -> Void) async throws -> SQLiteStore {
        let loaded = try ConfigLoader.load(path: setup.configPath)
        let rules = WorkerFactory.rules(for: loaded)
        let store = try SQLiteStore(path: setup.directory.appendingPathComponent("state.sqlite").path)
        try await registering(store)
        let provider = try WorkerFactory.provider(for: loaded, write: { _ in })
        let pipeline = try await WorkerFactory.pipeline(
            for: loaded, rules: rules, store: store, provider: provider,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), clock: ImmediateClock())
        let sequence = try ReplaySequence.load(path: Repository.path("Samples/sequences/espn-aus-egy/sequence.json"))
        _ = try await Replayer(pipeline: pipeline, feed: loaded.feeds[0], write: { _ in })
            .replay(sequence, directory: Repository.path("Samples/sequences/espn-aus-egy"))
        return store
    }

    static func registerOneDevice(_ store: SQLiteStore) async throws {
        try await store.subscribe(device: "iphone-a", to: match)
        try await store.registerPushToStartToken(
            device: "iphone-a", attributesType: "MatchAttributes", token: Setup.startToken, environment: .sandbox,
            now: 0)
        try await store.registerActivityToken(
            activity: "match-760499", device: "iphone-a", token: Setup.activityToken, environment: .sandbox, now: 0)
    }

    /// Set LIVERELAY_UPDATE_GOLDEN=1 to rewrite the golden file after an intended change.
    @Test func theFakeRecordsExactlyTheGoldenPushes() async throws {
        try await Setup.with { setup in
            _ = try await Self.replay(setup, registering: Self.registerOneDevice)
            #expect(setup.fake.rejections.isEmpty, "\(setup.fake.rejections)")
            let recorded = setup.fake.accepted
            #expect(recorded.map(\.token) == [Setup.startToken] + Array(repeating: Setup.activityToken, count: 6))
            let actual = try FakeAPNsPush.goldenJSON(recorded)
            let golden = Repository.path("Samples/sequences/espn-aus-egy/expected-apns.json")
            if ProcessInfo.processInfo.environment["LIVERELAY_UPDATE_GOLDEN"] == "1" {
                try actual.write(to: URL(fileURLWithPath: golden))
            }
            #expect(String(decoding: actual, as: UTF8.self) == (try String(contentsOfFile: golden, encoding: .utf8)))
        }
    }

    @Test func aTokenAnswered410IsPrunedAndNeverUsedAgain() async throws {
        try await Setup.with { setup in
            let gone = "77" + String(repeating: "e0", count: 79)
            setup.fake.unregister(gone)
            let store = try await Self.replay(setup) { store in
                try await Self.registerOneDevice(store)
                try await store.registerActivityToken(
                    activity: "match-760499", device: "iphone-b", token: gone, environment: .sandbox, now: 0)
            }
            let toGone = setup.fake.rejections.filter { $0.path.hasSuffix(gone) }
            #expect(toGone.map(\.reason) == ["Unregistered"], "one answer, no retry, no later push")
            #expect(try await store.isDropped(gone))
            #expect(
                try await store.activityTokens(activity: "match-760499", environment: nil).map(\.device) == ["iphone-a"]
            )
            #expect(setup.fake.accepted.count == 7)
        }
    }

    @Test func withoutTokensNothingIsSent() async throws {
        try await Setup.with { setup in
            _ = try await Self.replay(setup, registering: { _ in })
            #expect(setup.fake.requestCount == 0)
        }
    }

    @Test func sandboxTokensAreNotSentToProduction() async throws {
        try await Setup.with { setup in
            _ = try await Self.replay(setup) { store in
                try await store.subscribe(device: "iphone-p", to: Self.match)
                try await store.registerPushToStartToken(
                    device: "iphone-p", attributesType: "MatchAttributes", token: Setup.startToken,
                    environment: .production, now: 0)
            }
            #expect(setup.fake.requestCount == 0)
        }
    }
}
