import LiveRelayCore
import Testing
import Throttling

/// Each throttle rule, with explicit times.
@Suite struct ThrottleTests {
    static func pending(
        _ activity: ActivityKey = "a", _ event: PushEvent = .update, version: Int, at now: Int,
        policy: PriorityPolicy = .high,
        alert: Bool = false, relevance: Double = 50, hold: Bool = false, type: String = "T"
    ) -> PendingPush {
        PendingPush(
            push: LiveActivityPush(
                activity: activity, attributesType: type, event: event, timestamp: now,
                contentState: ["v": .int(version)],
                attributes: event == .start ? .emptyObject : nil,
                alert: alert ? LiveActivityAlert(title: "t", body: "b") : nil,
                relevanceScore: RelevanceScore(relevance),
                priority: .high, ruleIDs: ["r\(version)"]),
            policy: policy, whenBudgetSpent: hold ? .hold : .downgrade, enqueuedAt: now)
    }

    static func sent(_ decisions: [ThrottleDecision]) -> [(
        version: Int, priority: PushPriority, alert: Bool, downgraded: Bool
    )] {
        decisions.compactMap {
            guard case .send(let p, let downgraded) = $0, case .int(let v)? = p.contentState["v"] else { return nil }
            return (v, p.priority, p.alert != nil, downgraded)
        }
    }

    func throttle(size: Int = 2, period: Int = 3600, minimumInterval: Int = 1) -> Throttle {
        Throttle(
            configuration: ThrottleConfiguration(
                defaultBudget: BudgetPolicy(size: size, period: period), minimumInterval: minimumInterval))
    }

    @Test func highGoesAtTenWhileTheBudgetLastsThenDowngradesWithoutItsAlert() {
        var t = throttle(size: 2)
        var out: [(Int, PushPriority, Bool, Bool)] = []
        for (i, now) in [0, 100, 200].enumerated() {
            t.submit(Self.pending(version: i, at: now, alert: true), now: now)
            out += Self.sent(t.release(now: now)).map { ($0.version, $0.priority, $0.alert, $0.downgraded) }
        }
        #expect(out.map(\.1) == [.high, .high, .low])
        #expect(out.map(\.2) == [true, true, false], "never an alert at priority 5")
        #expect(out.map(\.3) == [false, false, true])
        #expect(t.states["a"]?.stats.downgraded == 1)
    }

    @Test func theBudgetReturnsOnePeriodAfterEachSend() {
        var t = throttle(size: 1, period: 3600)
        t.submit(Self.pending(version: 1, at: 0), now: 0)
        #expect(Self.sent(t.release(now: 0)).map(\.priority) == [.high])
        t.submit(Self.pending(version: 2, at: 3599), now: 3599)
        #expect(Self.sent(t.release(now: 3599)).map(\.priority) == [.low])
        t.submit(Self.pending(version: 3, at: 3600), now: 3600)
        #expect(Self.sent(t.release(now: 3600)).map(\.priority) == [.high])
    }

    @Test func aHoldRuleWaitsForTheBudgetAndLaterChangesMergeIntoIt() {
        var t = throttle(size: 1, period: 3600)
        t.submit(Self.pending(version: 1, at: 0, alert: true, hold: true), now: 0)
        _ = t.release(now: 0)
        t.submit(Self.pending(version: 2, at: 600, alert: true, hold: true), now: 600)
        #expect(t.release(now: 600) == [.held("a", until: 3600, ruleIDs: ["r2"])])
        #expect(t.release(now: 700).isEmpty, "held is reported once")
        #expect(
            t.submit(Self.pending(version: 3, at: 1200, policy: .low, relevance: 10), now: 1200)
                == .coalesced(into: ["r2"]))
        #expect(t.nextWakeup() == 3600)
        #expect(t.release(now: 3599).isEmpty)
        let out = t.release(now: 3600)
        guard case .send(let push, false)? = out.first else { Issue.record("expected a send"); return }
        #expect(push.contentState == ["v": 3], "latest state wins")
        #expect(push.priority == .high)
        #expect(push.alert != nil, "the alert of the held goal survives the merge")
        #expect(push.relevanceScore == RelevanceScore(50), "the highest relevance merged")
        #expect(push.ruleIDs == ["r2", "r3"])
        #expect(push.timestamp == 1200)
    }

    @Test func lowNeverCountsAndAutoFollowsAlertsAndRelevance() {
        var t = throttle(size: 1)
        t.submit(Self.pending(version: 1, at: 0, policy: .low, alert: true), now: 0)
        #expect(Self.sent(t.release(now: 0)).map { [$0.priority.rawValue, $0.alert ? 1 : 0] } == [[5, 0]])
        t.submit(Self.pending(version: 2, at: 10, policy: .auto, relevance: 10), now: 10)
        #expect(Self.sent(t.release(now: 10)).map(\.priority) == [.low])
        t.submit(Self.pending(version: 3, at: 20, policy: .auto, relevance: 80), now: 20)
        #expect(Self.sent(t.release(now: 20)).map(\.priority) == [.high])
        #expect(t.states["a"]?.window.sends == [20])
    }

    @Test func startsAreAlwaysTenAndDoNotSpendTheUpdateBudget() {
        var t = throttle(size: 1)
        t.submit(Self.pending(.init("a"), .start, version: 1, at: 0, alert: true), now: 0)
        #expect(Self.sent(t.release(now: 0)).map(\.priority) == [.high])
        t.submit(Self.pending(version: 2, at: 5), now: 5)
        #expect(Self.sent(t.release(now: 5)).map(\.priority) == [.high])
    }

    @Test func aStartStillPendingAbsorbsAnUpdateAndStaysAStart() {
        var t = throttle()
        t.submit(Self.pending(.init("a"), .start, version: 1, at: 0, alert: true), now: 0)
        t.submit(Self.pending(version: 2, at: 0), now: 0)
        guard case .send(let push, _)? = t.release(now: 0).first else { Issue.record("expected a send"); return }
        #expect(push.event == .start)
        #expect(push.attributes == .emptyObject)
        #expect(push.contentState == ["v": 2])
    }

    @Test func theMinimumIntervalSpacesPushesOfOneActivity() {
        var t = throttle(size: 10, minimumInterval: 5)
        t.submit(Self.pending(version: 1, at: 100), now: 100)
        #expect(Self.sent(t.release(now: 100)).count == 1)
        t.submit(Self.pending(version: 2, at: 101), now: 101)
        #expect(t.release(now: 101).isEmpty)
        #expect(t.nextWakeup() == 105)
        #expect(Self.sent(t.release(now: 105)).map(\.version) == [2])
    }

    @Test func releaseOrderIsHighestRelevanceThenOldestWithinTheProviderAllowance() {
        var t = throttle(size: 10)
        t.submit(Self.pending("old-low", version: 1, at: 0, relevance: 10), now: 0)
        t.submit(Self.pending("new-high", version: 2, at: 5, relevance: 90), now: 5)
        t.submit(Self.pending("old-high", version: 3, at: 1, relevance: 90), now: 1)
        let first = t.release(now: 10, limit: 2)
        #expect(
            first.compactMap { d -> ActivityKey? in
                if case .send(let p, _) = d { return p.activity } else { return nil }
            } == ["old-high", "new-high"])
        #expect(t.pendingCount == 1)
        #expect(Self.sent(t.release(now: 11, limit: 2)).map(\.version) == [1])
    }

    /// Two providers, each with its request rate: the order stays highest relevance then oldest, and a
    /// provider that has spent its bucket skips its pushes without holding back the other's.
    @Test func eachLaneReleasesWithinItsOwnRateInReleaseOrder() {
        var t = Throttle(
            configuration: ThrottleConfiguration(
                defaultBudget: BudgetPolicy(size: 10, period: 3600),
                lanes: ["apns": RequestRate(rate: 1, burst: 1), "pw": RequestRate(rate: 0.001, burst: 2)]))
        t.submit(Self.pending("m-90", version: 1, at: 0, relevance: 90, type: "Match"), now: 0)
        t.submit(Self.pending("m-80", version: 2, at: 0, relevance: 80, type: "Match"), now: 0)
        t.submit(Self.pending("p-20", version: 3, at: 1, relevance: 20, type: "Price"), now: 1)
        t.submit(Self.pending("p-10", version: 4, at: 0, relevance: 10, type: "Price"), now: 0)
        t.submit(Self.pending("p-5", version: 5, at: 0, relevance: 5, type: "Price"), now: 0)
        t.submit(Self.pending("o-1", version: 6, at: 0, relevance: 1, type: "Other"), now: 0)
        let lane = { (push: LiveActivityPush) in
            push.attributesType == "Match" ? "apns" : push.attributesType == "Price" ? "pw" : "other"
        }
        func sent(_ decisions: [ThrottleDecision]) -> [ActivityKey] {
            decisions.compactMap { if case .send(let p, _) = $0 { return p.activity } else { return nil } }
        }
        // apns: 1 a second; pw: a burst of 2, then hardly any; "other" has no rate of its own.
        #expect(sent(t.release(now: 10, lane: lane)) == ["m-90", "p-20", "p-10", "o-1"])
        #expect(sent(t.release(now: 11, lane: lane)) == ["m-80"], "apns refilled one, pw none")
        #expect(sent(t.release(now: 12, lane: lane)).isEmpty, "pw's bucket is spent: p-5 waits")
        #expect(t.pendingCount == 1)
        #expect(sent(t.release(now: 1012, lane: lane)) == ["p-5"], "pw refilled")
    }

    @Test func frequentUpdatesGetTheLargerBudget() {
        var t = Throttle(
            configuration: ThrottleConfiguration(
                defaultBudget: BudgetPolicy(size: 1, period: 3600, frequentUpdatesSize: 3)))
        t.setFrequentUpdates(true, for: "a", attributesType: "T")
        for i in 0..<4 { t.submit(Self.pending(version: i, at: i * 10), now: i * 10); _ = t.release(now: i * 10) }
        #expect(t.states["a"]?.stats.sentHigh == 3)
        #expect(t.states["a"]?.stats.downgraded == 1)
    }

    @Test func budgetsArePerAttributesType() {
        var t = Throttle(
            configuration: ThrottleConfiguration(
                defaultBudget: BudgetPolicy(size: 5, period: 3600),
                budgets: ["Tiny": BudgetPolicy(size: 0, period: 3600)]))
        t.submit(Self.pending("x", version: 1, at: 0, type: "Tiny"), now: 0)
        t.submit(Self.pending("y", version: 1, at: 0, type: "Other"), now: 0)
        let out = Dictionary(
            uniqueKeysWithValues: t.release(now: 0).compactMap { d -> (ActivityKey, PushPriority)? in
                if case .send(let p, _) = d { return (p.activity, p.priority) } else { return nil }
            })
        #expect(out == ["x": .low, "y": .high])
    }

    @Test func statesSurviveASaveAndRestore() throws {
        var t = throttle(size: 1)
        t.submit(Self.pending(version: 1, at: 0), now: 0)
        _ = t.release(now: 0)
        t.submit(Self.pending(version: 2, at: 10, hold: true), now: 10)
        _ = t.release(now: 10)
        var restored = throttle(size: 1)
        restored.restore(t.states)
        #expect(restored.pendingCount == 1)
        #expect(restored.nextWakeup() == 3600)
        #expect(Self.sent(restored.release(now: 3600)).map { [$0.version, $0.priority.rawValue] } == [[2, 10]])
    }

    @Test func pushToStartIsPacedPerDeviceAndType() {
        var pacer = PushToStartPacer(limit: 2, window: 60)
        #expect(pacer.admit(token: "d1", attributesType: "T", now: 0) == .allow)
        #expect(pacer.admit(token: "d1", attributesType: "T", now: 1) == .allow)
        #expect(pacer.admit(token: "d1", attributesType: "T", now: 2) == .deferUntil(60))
        #expect(pacer.admit(token: "d2", attributesType: "T", now: 2) == .allow)
        #expect(pacer.admit(token: "d1", attributesType: "U", now: 2) == .allow)
        #expect(pacer.admit(token: "d1", attributesType: "T", now: 60) == .allow)
    }

    @Test func aProviderBucketRefillsAtItsRate() {
        var bucket = TokenBucket(rate: 10, burst: 5, now: 0)
        #expect(bucket.available(now: 0) == 5)
        bucket.take(5, now: 0)
        #expect(bucket.available(now: 0.25) == 2)
        #expect(bucket.available(now: 100) == 5)
    }
}
