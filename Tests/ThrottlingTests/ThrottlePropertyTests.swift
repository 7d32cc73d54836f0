import LiveRelayCore
import PropertyBased
import Testing
import Throttling

/// The throttle's promises, over random streams of changes for a few activities.
@Suite struct ThrottlePropertyTests {
    struct Step: Sendable, CustomStringConvertible {
        var activity: Int
        var delay: Int
        var policy: PriorityPolicy
        var alert: Bool
        var relevance: Int
        var hold: Bool
        /// The provider's allowance at this step's release (0: no release this step).
        var allowance: Int
        var description: String {
            "a\(activity) +\(delay)s \(policy)\(alert ? "+alert" : "")\(hold ? " hold" : "") r\(relevance) ≤\(allowance)"
        }
    }

    static let step = zip(
        Gen.int(in: 0...4), Gen.int(in: 0...900), Gen<PriorityPolicy>.case, Gen.bool, Gen.int(in: 0...100), Gen.bool,
        Gen.int(in: 0...3)
    ).map { Step(activity: $0, delay: $1, policy: $2, alert: $3, relevance: $4, hold: $5, allowance: $6) }

    static let stream = zip(Gen.int(in: 1...4), Gen.int(in: 1...3), Gen.int(in: 0...3), step.array(of: 1...60))

    @Test func budgetOrderingEventualDeliveryAndNoLowAlerts() async {
        await propertyCheck(count: 10_000, input: Self.stream) { size, periodUnits, minimumInterval, steps in
            // Each case gives the cooperative pool back: the suite runs beside tests whose fake servers answer
            // on it, and 10,000 cases in one go would starve them past their request time-outs.
            await Task.yield()
            let period = periodUnits * 600
            var throttle = Throttle(
                configuration: ThrottleConfiguration(
                    defaultBudget: BudgetPolicy(size: size, period: period), minimumInterval: minimumInterval))
            var now = 1_000_000
            var version: [ActivityKey: Int] = [:]
            var sent: [(at: Int, push: LiveActivityPush)] = []
            func collect(_ decisions: [ThrottleDecision], at t: Int) {
                for case .send(let push, _) in decisions { sent.append((t, push)) }
            }
            for step in steps {
                now += step.delay
                let key = ActivityKey("a\(step.activity)")
                let v = (version[key] ?? 0) + 1
                version[key] = v
                let push = LiveActivityPush(
                    activity: key, attributesType: "T", event: .update, timestamp: now, contentState: ["v": .int(v)],
                    alert: step.alert ? LiveActivityAlert(title: "t", body: "b") : nil,
                    relevanceScore: RelevanceScore(Double(step.relevance)), priority: .high, ruleIDs: ["r"])
                throttle.submit(
                    PendingPush(
                        push: push, policy: step.policy, whenBudgetSpent: step.hold ? .hold : .downgrade,
                        enqueuedAt: now), now: now)
                if step.allowance > 0 { collect(throttle.release(now: now, limit: step.allowance), at: now) }
            }
            // Drain: the newest state of every activity must eventually go out.
            var rounds = 0
            while let wakeup = throttle.nextWakeup(), rounds < 10_000 {
                rounds += 1
                now = max(now, wakeup)
                collect(throttle.release(now: now, limit: 1), at: now)
            }
            #expect(throttle.pendingCount == 0)
            for (key, last) in version {
                let mine = sent.filter { $0.push.activity == key }
                let versions = mine.compactMap { p -> Int? in
                    if case .int(let v)? = p.push.contentState["v"] { return v } else { return nil }
                }
                #expect(versions.last == last, "the newest state of \(key) goes out")
                #expect(
                    zip(versions, versions.dropFirst()).allSatisfy { $0 < $1 }, "never an older state after a newer one"
                )
                let highs = mine.filter { $0.push.priority == .high }.map(\.at)
                for (i, t) in highs.enumerated() {
                    #expect(
                        highs[i...].prefix { $0 < t + period }.count <= size,
                        "no more than \(size) priority-10 pushes in \(period) s")
                }
                #expect(zip(mine, mine.dropFirst()).allSatisfy { $1.at - $0.at >= minimumInterval })
            }
            #expect(sent.allSatisfy { $0.push.priority == .high || $0.push.alert == nil }, "no alert at priority 5")
        }
    }
}
