import Delivery
import Foundation
import LiveRelayCore
import LiveRelayTesting
import Logging
import Store
import Testing
import Worker
import WorkerTesting

/// The recorded match through the real pipeline, the real `CurlTransport` (HTTP/2 + TLS) and the fake APNs.
@Suite("Recorded match into the fake APNs")
struct APNsReplayTests {
    typealias Setup = MatchReplay
    static let match = EntityKey(feed: "espn-worldcup", id: "760499")

    /// Set LIVERELAY_UPDATE_GOLDEN=1 to rewrite the golden file after an intended change.
    @Test func theFakeRecordsExactlyTheGoldenPushes() async throws {
        try await Setup.withFakeAPNs { setup, fake in
            _ = try await setup.replay(registering: Setup.registerDevice, started: Setup.registerActivityToken)
            #expect(fake.rejections.isEmpty, "\(fake.rejections)")
            let recorded = fake.accepted
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
        try await Setup.withFakeAPNs { setup, fake in
            let gone = "77" + String(repeating: "e0", count: 79)
            fake.unregister(gone)
            let store = try await setup.replay(
                registering: { store in
                    try await Setup.registerDevice(store)
                    try await store.registerActivityToken(
                        activity: "match-760499", device: "iphone-b", token: gone, environment: .sandbox, now: 0)
                }, started: Setup.registerActivityToken)
            let toGone = fake.rejections.filter { $0.path.hasSuffix(gone) }
            #expect(toGone.map(\.reason) == ["Unregistered"], "one answer, no retry, no later push")
            #expect(try await store.isDropped(gone))
            #expect(
                try await store.activityTokens(activity: "match-760499", environment: nil).map(\.device) == ["iphone-a"]
            )
            #expect(fake.accepted.count == 7)
        }
    }

    @Test func withoutTokensNothingIsSent() async throws {
        try await Setup.withFakeAPNs { setup, fake in
            _ = try await setup.replay(registering: { _ in })
            #expect(fake.requestCount == 0)
        }
    }

    @Test func sandboxTokensAreNotSentToProduction() async throws {
        try await Setup.withFakeAPNs { setup, fake in
            _ = try await setup.replay { store in
                try await store.subscribe(device: "iphone-p", to: Self.match, now: 0)
                try await store.registerPushToStartToken(
                    device: "iphone-p", attributesType: "MatchAttributes", token: Setup.startToken,
                    environment: .production, now: 0)
            }
            #expect(fake.requestCount == 0)
        }
    }
}
