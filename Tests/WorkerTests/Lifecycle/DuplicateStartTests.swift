import Foundation
import LiveRelayCore
import LiveRelayTesting
import Store
import Testing
import Worker
import WorkerTesting

/// One start per device and activity, against the fake APNs: a device that runs the activity already, a
/// start that comes again after a crash, the app's update token arriving late, a push-to-start token rotated
/// while the start waited. Each step is one `tick`-like pass with the wall clock moved by hand.
@Suite("No duplicate start", .serialized)
struct DuplicateStartTests {
    static let match: ActivityKey = "match-760499"
    static let rotatedToken = "81" + String(repeating: "b2", count: 79)
    static let secondStartToken = "82" + String(repeating: "c3", count: 79)
    static let lateToken = "6e" + String(repeating: "4d", count: 79)

    /// iphone-a started the activity itself (the app reported its update token before kick-off) and also has
    /// a push-to-start token: the kick-off start goes to iphone-b only, and iphone-a gets every update.
    @Test func aDeviceThatRunsTheActivityGetsNoStart() async throws {
        try await LifecycleBed.with(registering: { store in
            try await FakeProviderCase.registerTwoDevices(store)
            try await store.registerPushToStartToken(
                device: "iphone-a", attributesType: "MatchAttributes", token: Self.secondStartToken,
                environment: .sandbox, now: 0)
        }) { bed in
            for step in 1...3 { try await bed.step(step) }
            #expect(bed.startTokens == [MatchReplay.startToken])
            #expect(bed.fake.accepted.filter { $0.token == MatchReplay.activityToken }.count == 2)
            let devices = try await bed.store.activityDevices(Self.match)
            #expect(devices.map(\.device) == ["iphone-a", "iphone-b"])
            #expect(devices[0].startedAt == nil && devices[0].tokenAt != nil)
            #expect(devices[1].startedAt != nil && devices[1].tokenAt == nil)
        }
    }

    /// The worker sent a start and died before it could note the delivery: the start is back in the outbox
    /// when it comes up again, and does not go out a second time. With `restart-after`, a device that still
    /// has not reported the activity's token after that long gets it again (the first may have been lost);
    /// once it reported the token, never.
    @Test func aStartBackInTheOutboxAfterACrashIsNotSentTwice() async throws {
        try await LifecycleBed.with(
            throttle: ["push-to-start": ["restart-after": 600]],
            registering: { store in try await MatchReplay.registerDevice(store) }
        ) { bed in
            // The kick-off start waits in the outbox through a short outage (to be read as it was stored).
            bed.fake.setOutage(.status(429, reason: "TooManyRequests", retryAfter: 60))
            try await bed.step(1)
            let rows = try await bed.store.waitingOutbox(activities: [Self.match])
            #expect(rows.count == 1)
            bed.fake.setOutage(nil)
            bed.wall.advance(600)
            _ = try await bed.worker.pipeline.deliverDue(now: bed.now)
            #expect(bed.startTokens == [MatchReplay.startToken])

            // The crash: the delivered start's row was never completed.
            try await bed.store.commitRelease(throttleStates: [], outbox: rows)
            let again = try await bed.worker.pipeline.deliverDue(now: bed.now + 1)
            #expect(again.isEmpty)
            #expect(bed.startTokens == [MatchReplay.startToken], "not sent twice")
            #expect(try await bed.store.outboxStatus().depth == 0, "the duplicate left the outbox")

            // Ten minutes without the app's token: the start may go once more.
            try await bed.store.commitRelease(throttleStates: [], outbox: rows)
            _ = try await bed.worker.pipeline.deliverDue(now: bed.now + 600)
            #expect(bed.startTokens == [MatchReplay.startToken, MatchReplay.startToken])

            // The app reported the token: never again.
            try await MatchReplay.registerActivityToken(bed.store)
            try await bed.store.commitRelease(throttleStates: [], outbox: rows)
            _ = try await bed.worker.pipeline.deliverDue(now: bed.now + 1_800)
            #expect(bed.startTokens.count == 2)
        }
    }

    /// The app reports the new activity's token three minutes late: the updates before it reach the other
    /// device only, no second start goes to the late one, and the updates after it reach it.
    @Test func theAppsTokenArrivingLateBringsNoSecondStart() async throws {
        try await LifecycleBed.with(registering: FakeProviderCase.registerTwoDevices) { bed in
            for step in 1...3 { try await bed.step(step) }
            try await bed.store.registerActivityToken(
                activity: Self.match, device: "iphone-b", token: Self.lateToken, environment: .sandbox,
                now: bed.now)
            for step in 4..<RunWithAPNs.steps.count { try await bed.step(step) }
            #expect(bed.startTokens == [MatchReplay.startToken])
            let toLate = bed.fake.accepted.filter { $0.token == Self.lateToken }
            let toEarly = bed.fake.accepted.filter { $0.token == MatchReplay.activityToken }
            #expect(!toLate.isEmpty)
            #expect(toLate.count < toEarly.count, "the updates before the token reached iphone-a only")
            let last = try JSONParser.parse(toLate.last!.body)["aps"]?["event"]
            #expect(last == "end")
        }
    }

    /// The provider is down at kick-off and the app rotates iphone-b's push-to-start token meanwhile: the
    /// waiting start goes once, to the new token.
    @Test func aRotatedTokenGetsTheWaitingStartOnce() async throws {
        try await LifecycleBed.with(registering: FakeProviderCase.registerTwoDevices) { bed in
            bed.fake.setOutage(.status(429, reason: "TooManyRequests", retryAfter: 60))
            try await bed.step(1)
            #expect(bed.fake.accepted.isEmpty)
            try await bed.store.registerPushToStartToken(
                device: "iphone-b", attributesType: "MatchAttributes", token: Self.rotatedToken,
                environment: .sandbox, now: bed.now)
            bed.fake.setOutage(nil)
            bed.wall.advance(600)
            _ = try await bed.worker.runOnce()
            try await bed.step(2)
            #expect(bed.startTokens == [Self.rotatedToken])
            #expect(try await bed.store.outboxStatus().depth == 0)
        }
    }
}
