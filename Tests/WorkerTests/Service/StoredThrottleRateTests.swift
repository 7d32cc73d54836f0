import Foundation
import LiveRelayCore
import LiveRelayTesting
import Store
import Testing
import Throttling
import Worker

/// Each provider keeps its own request rate: pushes routed to one provider draw from its bucket only, so a
/// slow provider never holds back a fast one, and a fast one never spends a slow one's rate.
@Suite struct StoredThrottleRateTests {
    static func push(_ activity: String, type: String, relevance: Double, at t: Int) -> PendingPush {
        PendingPush(
            push: LiveActivityPush(
                activity: ActivityKey(activity), attributesType: type, event: .update, timestamp: t,
                contentState: ["v": .int(t)], relevanceScore: RelevanceScore(relevance), priority: .low),
            policy: .low, enqueuedAt: t)
    }

    static func sent(_ decisions: [ThrottleDecision]) -> [String] {
        decisions.compactMap { if case .send(let p, _) = $0 { return p.activity.rawValue } else { return nil } }
    }

    /// `apns` takes 1 request a second (burst 1), `pw` 2 (burst 2); MatchAttributes go to `apns`,
    /// PriceAttributes to `pw`.
    @Test func eachProviderReleasesWithinItsOwnRateMostRelevantFirst() async throws {
        let dir = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try SQLiteStore(path: dir.appendingPathComponent("state.sqlite").path)
        let queue = try await StoredThrottle(
            store: store,
            configuration: ThrottleConfiguration(
                minimumInterval: 1,
                lanes: ["apns": RequestRate(rate: 1, burst: 1), "pw": RequestRate(rate: 2, burst: 2)]))
        let lane: @Sendable (LiveActivityPush) -> String = { push in
            push.attributesType == "PriceAttributes" ? "pw" : "apns"
        }
        _ = try await queue.submit(
            [
                Self.push("match-a", type: "MatchAttributes", relevance: 90, at: 100),
                Self.push("match-b", type: "MatchAttributes", relevance: 50, at: 100),
                Self.push("match-c", type: "MatchAttributes", relevance: 70, at: 100),
                Self.push("btc", type: "PriceAttributes", relevance: 10, at: 100),
                Self.push("eth", type: "PriceAttributes", relevance: 80, at: 100),
                Self.push("sol", type: "PriceAttributes", relevance: 10, at: 99),
            ], now: 100)

        // Both buckets full: one for apns (the most relevant match), two for pw (eth, then the older of
        // the two at relevance 10). match-c and btc wait for their own provider, not for the other.
        #expect(Self.sent(await queue.release(now: 100, lane: lane)) == ["match-a", "eth", "sol"])
        #expect(Self.sent(await queue.release(now: 100, lane: lane)).isEmpty, "both buckets are spent")
        // A second later apns has one request again and pw two (only btc is left for it).
        #expect(Self.sent(await queue.release(now: 101, lane: lane)) == ["match-c", "btc"])
        #expect(Self.sent(await queue.release(now: 101, lane: lane)).isEmpty)
        #expect(Self.sent(await queue.release(now: 102, lane: lane)) == ["match-b"])
        #expect(await queue.pendingCount == 0)
    }

    /// A provider without a rate (a route added to the config without one reaching the queue) is not held.
    @Test func aPushToAProviderWithoutARateIsNotLimited() async throws {
        let dir = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try SQLiteStore(path: dir.appendingPathComponent("state.sqlite").path)
        let queue = try await StoredThrottle(
            store: store, configuration: ThrottleConfiguration(lanes: ["apns": RequestRate(rate: 1, burst: 1)]))
        let lane: @Sendable (LiveActivityPush) -> String = { push in
            push.attributesType == "PriceAttributes" ? "other" : "apns"
        }
        _ = try await queue.submit(
            (0..<3).map { Self.push("p\($0)", type: "PriceAttributes", relevance: 1, at: 5) }
                + (0..<3).map { Self.push("m\($0)", type: "MatchAttributes", relevance: 1, at: 5) }, now: 5)
        #expect(Self.sent(await queue.release(now: 5, lane: lane)).sorted() == ["m0", "p0", "p1", "p2"])
    }
}
