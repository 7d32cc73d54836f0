import Delivery
import Foundation
import HTTP
import LiveRelayCore
import LiveRelayTesting
import Logging
import Synchronization
import Testing

/// One push to many tokens over the push lane: batches of one body and one set of shared fields, each
/// token with its own path, `apns-id` and outcome, against the fake APNs (HTTP/2 + TLS).
@Suite("APNs fan-out over the push lane")
struct APNsFanOutTests {
    typealias Bed = APNsTestbed
    static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test func aFanOutGoesInBatchesEachTokenWithItsOwnRequestAndOutcome() async throws {
        try await Bed.with(lane: true) { bed in
            #expect(bed.provider.traits.maxBatchSize == 25, "a quarter of the 100 requests in flight")
            #expect(APNsProvider.batchSize(inFlight: 1000) == 64)
            #expect(APNsProvider.batchSize(inFlight: 4) == 1)
            let pruned = APNsProviderTests.Pruned()
            let sender = Sender(provider: bed.provider, logger: Self.logger, pruning: pruned, clock: ImmediateClock())
            // A first success shows the topic is right, so later token errors are about the tokens.
            #expect(await sender.send(Bed.update(), to: PushTarget(kind: .activity, token: Bed.token(999))).delivered)
            bed.fake.unregister(Bed.token(5))
            bed.fake.unregister(Bed.token(70), reason: "ExpiredToken")
            var targets = (0..<150).map { PushTarget(kind: .activity, token: Bed.token($0), environment: .sandbox) }
            targets[100] = PushTarget(kind: .activity, token: Bed.token(100), environment: .production)
            let push = Bed.update(3)
            let receipts = await sender.send(push, to: targets)
            #expect(receipts.map(\.target.token) == targets.map(\.token))
            for (index, receipt) in receipts.enumerated() {
                switch index {
                case 5: #expect(receipt.outcome == .dropToken(reason: "APNs answered Unregistered (410)"))
                case 70: #expect(receipt.outcome == .dropToken(reason: "APNs answered ExpiredToken (410)"))
                case 100:
                    guard case .rejected(let reason) = receipt.outcome else { Issue.record("\(receipt)"); continue }
                    #expect(reason.contains("production"))
                default: #expect(receipt.outcome == .delivered, "\(index): \(receipt.outcome)")
                }
            }
            #expect(pruned.tokens.withLock { $0.sorted() } == [Bed.token(5), Bed.token(70)].sorted())
            // Each token once, with its own id; the body and the shared fields the same for all.
            let sent = bed.fake.accepted.filter { $0.path != "/3/device/" + Bed.token(999) }
            #expect(sent.count == 147)
            #expect(Set(sent.map(\.path)).count == 147)
            let body = #"{"aps":{"content-state":{"homeScore":3},"event":"update","timestamp":1783101700}}"#
            for request in sent {
                let token = String(request.path.dropFirst("/3/device/".count))
                #expect(request.headers["apns-id"] == APNsRequestEncoder.apnsID(for: push, token: token))
                #expect(request.headers["apns-topic"] == "com.example.scores.push-type.liveactivity")
                #expect(request.headers["apns-push-type"] == "liveactivity")
                #expect(request.headers["apns-expiration"] == "1783105300")
                #expect(request.body == body)
            }
        }
    }

    @Test func aStartGivesEachChannelItsOwnBodyAndRetriesOnlyWhatFailed() async throws {
        try await Bed.with(lane: true) { bed in
            let channels = ["Y2hhbm5lbC1h", "Y2hhbm5lbC1i"]
            let start = LiveActivityPush(
                activity: ActivityKey("match-1"), attributesType: "MatchAttributes", event: .start,
                timestamp: 1_783_101_700, contentState: ["homeScore": 0], attributes: ["home": "AUS"],
                alert: LiveActivityAlert(title: "Kick-off"), priority: .high)
            let targets = (0..<9).map {
                PushTarget(kind: .pushToStart, token: Bed.token($0), channel: $0 % 3 == 2 ? nil : channels[$0 % 3])
            }
            // One request of the batch is told to come back later: only it goes again.
            bed.fake.script([.status(503, reason: "ServiceUnavailable")])
            let sender = Sender(
                provider: bed.provider, logger: Self.logger, clock: ImmediateClock(),
                retry: RetryPolicy(maxAttempts: 3), jitter: { 0 })
            let receipts = await sender.send(start, to: targets)
            #expect(receipts.allSatisfy { $0.delivered }, "\(receipts.map(\.outcome))")
            #expect(receipts.map(\.attempts).sorted() == [1, 1, 1, 1, 1, 1, 1, 1, 2])
            #expect(bed.fake.accepted.count == 9)
            for request in bed.fake.accepted {
                let index = Int(request.path.dropFirst("/3/device/".count).prefix(4), radix: 16)!
                if index % 3 == 2 {
                    #expect(!request.body.contains("input-push-channel"), "\(request.body)")
                } else {
                    #expect(
                        request.body.contains(#""input-push-channel":"\#(channels[index % 3])""#), "\(request.body)")
                }
            }
        }
    }

    /// `DeviceTokenNotForTopic` before any push succeeded stops the provider (the bundle id may be wrong); in a
    /// first batch whose other requests succeeded it is that token's problem only.
    @Test func aFirstBatchsSuccessesShowTheTopicIsRightBeforeItsRefusalsAreRead() async throws {
        try await Bed.with(lane: true) { bed in
            bed.fake.script([.status(400, reason: "DeviceTokenNotForTopic")])
            let outcomes = await bed.provider.deliver(
                Bed.update(), to: (0..<10).map { PushTarget(kind: .activity, token: Bed.token($0)) })
            #expect(outcomes.filter { $0 == .delivered }.count == 9)
            #expect(outcomes.contains(.dropToken(reason: "APNs answered DeviceTokenNotForTopic (400)")), "\(outcomes)")
        }
    }

    @Test func overLibcurlEachTokenIsARequestOfItsOwn() async throws {
        try await Bed.with(lane: false) { bed in
            #expect(bed.provider.traits.maxBatchSize == 1)
            let sender = Sender(provider: bed.provider, logger: Self.logger, clock: ImmediateClock())
            let receipts = await sender.send(
                Bed.update(), to: (0..<20).map { PushTarget(kind: .activity, token: Bed.token($0)) })
            #expect(receipts.allSatisfy { $0.delivered })
            #expect(bed.fake.accepted.count == 20)
        }
    }
}
