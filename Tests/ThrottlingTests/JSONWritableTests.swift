import Foundation
import LiveRelayCore
import LiveRelayTesting
import Testing
import Throttling

/// The throttle state and the push write their own JSON on the hot path (`JSONWritable`): the bytes must be
/// those `compactJSON()` writes through `Codable`, for every optional present or absent, so rows written by
/// either read the same and nothing stored before changes (reading back is `StoredJSONTests`'s).
@Suite struct JSONWritableTests {
    /// Deterministic draws (SplitMix64), so a failure names its seed.
    final class Dice {
        var draws: SplitMix
        init(_ seed: UInt64) { draws = SplitMix(seed: seed) }
        func next() -> UInt64 { draws.next() }
        func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
        func coin() -> Bool { next() & 1 == 1 }
        func pick<T>(_ options: [T]) -> T { options[int(0...options.count - 1)] }
        func maybe<T>(_ value: @autoclosure () -> T) -> T? { coin() ? value() : nil }
        func text() -> String {
            pick(["", "a", "BTCUSDT", "line\n\"quoted\" é ✓ / \u{1}\\", "tab\there", "🏟 stadium"])
        }
    }

    static func value(_ depth: Int, _ dice: Dice) -> JSONValue {
        switch dice.int(0...(depth > 2 ? 5 : 7)) {
        case 0: return .null
        case 1: return .bool(dice.coin())
        case 2: return .int(dice.int(-1_000_000...1_000_000))
        case 3: return .double(dice.pick([0.5, -2.25, 1e21, 3.0, 1e-7]))
        case 4: return .decimal(Decimal(string: dice.pick(["99700.25", "100120.50000000", "-0.001", "1e3"]))!)
        case 5: return .string(dice.text())
        case 6: return .array((0..<dice.int(0...3)).map { _ in value(depth + 1, dice) })
        default:
            var object: [String: JSONValue] = [:]
            for _ in 0..<dice.int(0...4) { object[dice.text()] = value(depth + 1, dice) }
            return .object(object)
        }
    }

    static func push(_ dice: Dice) -> LiveActivityPush {
        var push = LiveActivityPush(
            activity: ActivityKey(dice.text()), attributesType: dice.text(),
            event: dice.pick([PushEvent.start, .update, .end]), timestamp: dice.int(0...2_000_000_000),
            contentState: value(0, dice), attributes: dice.maybe(value(0, dice)),
            alert: dice.maybe(
                LiveActivityAlert(
                    title: dice.maybe(dice.text()), body: dice.maybe(dice.text()), sound: dice.maybe("default"),
                    titleLocKey: dice.maybe(dice.text()), titleLocArgs: dice.maybe([dice.text(), dice.text()]),
                    locKey: dice.maybe(dice.text()), locArgs: dice.maybe([dice.text()]))),
            relevanceScore: dice.maybe(RelevanceScore(dice.pick([0, 50, 87.5, 100.25]))),
            staleDate: dice.maybe(dice.int(0...9)), dismissalDate: dice.maybe(dice.int(0...2_000_000_000)),
            priority: dice.coin() ? .high : .low, ruleIDs: (0..<dice.int(0...3)).map { _ in dice.text() },
            entity: dice.maybe(EntityKey(feed: dice.text(), id: dice.text())), inputPushToken: dice.maybe(dice.coin()))
        push.inputPushChannel = dice.maybe(dice.text())
        push.device = dice.maybe(dice.text())
        return push
    }

    static func state(_ dice: Dice) -> ActivityThrottleState {
        var state = ActivityThrottleState(attributesType: dice.text())
        state.window = SendWindow(sends: (0..<dice.int(0...4)).map { $0 * 60 })
        state.lastSentAt = dice.maybe(dice.int(0...2_000_000_000))
        state.heldUntil = dice.maybe(dice.int(0...2_000_000_000))
        state.frequentUpdates = dice.coin()
        state.stats.starts = dice.int(0...3)
        state.stats.sentHigh = dice.int(0...300)
        state.stats.sentLow = dice.int(0...3)
        state.stats.downgraded = dice.int(0...3)
        state.stats.coalesced = dice.int(0...3)
        state.stats.held = dice.int(0...3)
        if dice.coin() {
            var pending = PendingPush(
                push: push(dice), policy: dice.pick(PriorityPolicy.allCases),
                whenBudgetSpent: dice.pick(BudgetExhaustion.allCases), enqueuedAt: dice.int(0...2_000_000_000))
            pending.coalesced = dice.int(0...5)
            state.pending = pending
        }
        return state
    }

    @Test(arguments: 0..<20) func aPushWritesTheBytesOfCompactJSON(seed: UInt64) throws {
        let dice = Dice(seed)
        for _ in 0..<50 {
            let push = Self.push(dice)
            let written = push.writtenJSON()
            #expect(written == (try push.compactJSON()), "seed \(seed): \(String(decoding: written, as: UTF8.self))")
        }
    }

    @Test(arguments: 0..<20) func aThrottleStateWritesTheBytesOfCompactJSON(seed: UInt64) throws {
        let dice = Dice(seed)
        for _ in 0..<50 {
            let state = Self.state(dice)
            let written = state.writtenJSON()
            #expect(written == (try state.compactJSON()), "seed \(seed): \(String(decoding: written, as: UTF8.self))")
        }
    }

    @Test func theStoredExampleIsWrittenAlike() throws {
        let state = try StoredJSONTests.state()
        #expect(state.writtenJSON() == (try state.compactJSON()))
    }
}
