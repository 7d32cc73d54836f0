import Delivery
import Foundation
import LiveRelayCore
import Synchronization
import Testing

@Suite struct ConsoleProviderTests {
    final class Lines: Sendable {
        let lines = Mutex<[String]>([])
        func append(_ s: String) { lines.withLock { $0.append(s) } }
        var all: [String] { lines.withLock { $0 } }
    }

    @Test func printsTheExactAPNsRequestOfAStart() async throws {
        let out = Lines()
        let provider = ConsoleProvider(encoder: APNsRequestEncoder(bundleID: "com.example.scores"), write: out.append)
        let push = LiveActivityPush(
            activity: "match-760499", attributesType: "MatchAttributes", event: .start, timestamp: 1_783_101_660,
            contentState: ["homeScore": 0, "awayScore": 0, "clock": "1'"], attributes: ["homeTeam": "Australia"],
            alert: LiveActivityAlert(title: "Australia v Egypt", body: "Kick-off", sound: "default"),
            relevanceScore: RelevanceScore(50), staleDate: 1_783_102_560, priority: .high)
        let outcome = await provider.deliver(push, to: PushTarget(kind: .pushToStart, token: nil))
        #expect(outcome == .delivered)
        #expect(
            out.all == [
                """
                :method: POST
                :path: /3/device/<push-to-start token>
                apns-push-type: liveactivity
                apns-topic: com.example.scores.push-type.liveactivity
                apns-priority: 10
                apns-expiration: 1783105260
                apns-id: \(APNsRequestEncoder.apnsID(for: push, token: "<push-to-start token>"))
                content-type: application/json

                {"aps":{"alert":{"body":"Kick-off","sound":"default","title":"Australia v Egypt"},"attributes":{"homeTeam":"Australia"},"attributes-type":"MatchAttributes","content-state":{"awayScore":0,"clock":"1'","homeScore":0},"event":"start","relevance-score":50,"stale-date":1783102560,"timestamp":1783101660}}
                """
            ])
    }

    @Test func anUpdateCarriesNoAttributesAndUsesTheActivityToken() async throws {
        let out = Lines()
        let provider = ConsoleProvider(
            encoder: APNsRequestEncoder(bundleID: "b", expirationSeconds: 0), write: out.append)
        let push = LiveActivityPush(
            activity: "a", attributesType: "T", event: .end, timestamp: 10,
            contentState: ["price": .decimal(Decimal(string: "67187.33")!)],
            attributes: ["ignored": true], dismissalDate: 3610, priority: .low)
        _ = await provider.deliver(push, to: PushTarget(kind: .activity, token: "abcdef0123"))
        let text = try #require(out.all.first)
        #expect(text.contains(":path: /3/device/abcdef0123\n"))
        #expect(text.contains("apns-priority: 5\n"))
        #expect(
            text.hasSuffix(
                #"{"aps":{"content-state":{"price":67187.33},"dismissal-date":3610,"event":"end","timestamp":10}}"#))
    }
}
