import Foundation
import LiveRelayCore
import Testing
import Throttling

/// What LiveRelay keeps for itself (throttle states, the pushes in the outbox) is written with
/// `compactJSON()` and read with `JSONValueDecoder`: it reads back equal, reads what Foundation's coder wrote
/// before, and is read by it.
@Suite struct StoredJSONTests {
    static func state() throws -> ActivityThrottleState {
        var state = ActivityThrottleState(attributesType: "PersonalAlertAttributes")
        state.window = SendWindow(sends: [100, 160, 220])
        state.lastSentAt = 220
        state.heldUntil = 900
        state.frequentUpdates = true
        state.stats.sentHigh = 3
        state.stats.coalesced = 1
        var push = LiveActivityPush(
            activity: "my-alert-sub-c-1", attributesType: "PersonalAlertAttributes", event: .start,
            timestamp: 1_795_531_800,
            contentState: [
                "price": .decimal(Decimal(string: "99700.25")!), "note": "line\n\"quoted\" é ✓ / \u{1}",
                "list": [1, 2.5, .null, true, ["deep": []]], "empty": .emptyObject,
            ],
            attributes: ["symbol": "BTCUSDT", "level": 100000, "direction": "below"],
            alert: LiveActivityAlert(
                title: "BTCUSDT fell below", body: "Now 99,700.25", sound: "default", locArgs: ["a"]),
            relevanceScore: RelevanceScore(87.5), staleDate: 1_795_532_400, priority: .high,
            ruleIDs: ["my-crosses-below"], entity: EntityKey(feed: "markets", id: "BTCUSDT"))
        push.device = "iphone-c"
        push.inputPushChannel = "channel-1"
        state.pending = PendingPush(push: push, policy: .high, whenBudgetSpent: .hold, enqueuedAt: 1_795_531_790)
        return state
    }

    @Test func aThrottleStateReadsBackEqual() throws {
        let state = try Self.state()
        let stored = try state.compactJSON()
        #expect(try JSONValueDecoder().decode(ActivityThrottleState.self, stored: stored) == state)
        #expect(try state.compactJSON() == stored, "the same bytes every time")
        // A push with every optional left out has none of their keys.
        let bare = LiveActivityPush(
            activity: "a", attributesType: "T", event: .update, timestamp: 1, contentState: .emptyObject,
            priority: .low)
        let text = String(decoding: try bare.compactJSON(), as: UTF8.self)
        #expect(
            text
                == #"{"activity":"a","attributesType":"T","contentState":{},"event":"update","priority":5,"ruleIDs":[],"timestamp":1}"#
        )
        #expect(try JSONValueDecoder().decode(LiveActivityPush.self, stored: Data(text.utf8)) == bare)
    }

    @Test func rowsWrittenByFoundationsCoderAreReadAndTheirsReadOurs() throws {
        let state = try Self.state()
        let before = try state.canonicalJSON()
        #expect(try JSONValueDecoder().decode(ActivityThrottleState.self, stored: before) == state)
        let now = try state.compactJSON()
        #expect(try JSONDecoder().decode(ActivityThrottleState.self, from: now) == state)
        #expect(try JSONParser.parse(now) == JSONParser.parse(before), "the same JSON, whoever wrote it")
    }
}
