import Delivery
import Foundation
import LiveRelayCore
import Logging
import StoreCore
import Testing

@testable import Worker

/// A round's receipts come in many writes (a fan-out's in hundreds): each push is recorded as sent once per
/// round, in the first write that has one of its targets delivered.
struct OutboxSettlementTests {
    static let goal = SentPush(activity: ActivityKey("match-1"), timestamp: 10, state: .object(["home": .int(1)]))
    static let other = SentPush(activity: ActivityKey("match-2"), timestamp: 11, state: .object(["home": .int(0)]))

    static func row(_ activity: String, _ token: String) -> OutboxEntry {
        OutboxEntry(
            key: OutboxKey(activity: ActivityKey(activity), target: token), kind: "activity", device: "d-\(token)",
            environment: "production", push: Data(), timestamp: 10, nextAttempt: 0, provider: "apns",
            fanOut: FanOutMark(position: "d-\(token)", last: false))
    }

    static func receipt(_ token: String, _ outcome: DeliveryOutcome) -> DeliveryReceipt {
        DeliveryReceipt(target: PushTarget(kind: .activity, token: token), outcome: outcome, attempts: 1)
    }

    @Test func aPushIsRecordedAsSentInTheFirstWriteThatDeliveredIt() {
        let rows = [
            Self.row("match-1", "aa"), Self.row("match-1", "bb"), Self.row("match-1", "cc"),
            Self.row("match-2", "dd"),
        ]
        let settlement = OutboxSettlement(
            rows: rows, pushes: [Self.goal, Self.other], pushOfRow: [0, 0, 0, 1], now: 100, jitter: { 0.5 })
        let logger = Logger(label: "test")
        // The first write has no delivery of the goal (a retry): nothing sent yet.
        let first = settlement.settle(
            [0], [Self.receipt("aa", .retry(afterSeconds: nil, reason: "503"))], logger: logger)
        #expect(first.sent.isEmpty)
        #expect(first.later.count == 1)
        let second = settlement.settle([1], [Self.receipt("bb", .delivered)], logger: logger)
        #expect(second.sent == [Self.goal])
        // Later writes of the same push record nothing more; another push's first delivery does.
        let third = settlement.settle(
            [2, 3], [Self.receipt("cc", .delivered), Self.receipt("dd", .delivered)], logger: logger)
        #expect(third.sent == [Self.other])
        // Each round starts again.
        let next = OutboxSettlement(
            rows: rows, pushes: [Self.goal, Self.other], pushOfRow: [0, 0, 0, 1], now: 160, jitter: { 0.5 })
        #expect(next.settle([2], [Self.receipt("cc", .delivered)], logger: logger).sent == [Self.goal])
    }
}
