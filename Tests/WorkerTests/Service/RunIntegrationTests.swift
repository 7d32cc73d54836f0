import Foundation
import HTTP
import LiveRelayCore
import LiveRelayTesting
import Store
import Testing

/// `liverelay run` as operators run it: tokens registered through the API, the recorded match through the
/// pipeline into the fake APNs over HTTP/2 + TLS, the metrics scrape, SIGTERM, and SIGKILL mid-fan-out.
@Suite("liverelay run end to end", .serialized)
struct RunIntegrationTests {
    static let match = "espn-worldcup/760499"
    static let device = "iphone-a"

    @Test func tokensThroughTheAPIThenTheMatchIntoTheFakeAPNsThenMetrics() async throws {
        try await APNsWorkerSetup.with { setup in
            let feed = try await RunWithAPNs.feedServer()
            try RunWithAPNs.prepare(setup, feed: feed)
            let run = try await RunWithAPNs.start(setup, feed: feed)
            defer { run.transport.shutdown() }
            let pts = APNsWorkerSetup.startToken
            let activityToken = APNsWorkerSetup.activityToken

            // Refused: no token, a wrong token, an oversize body, malformed JSON, a bad token, an unknown feed.
            let body = #"{"token": "\#(pts)", "environment": "sandbox"}"#
            let pushToStart = "/v1/devices/\(Self.device)/push-to-start/MatchAttributes"
            #expect(
                try await run.request("PUT", pushToStart, body: body, bearer: nil) == (
                    401, #"{"error":"missing or wrong bearer token"}"#
                ))
            #expect(try await run.request("PUT", pushToStart, body: body, bearer: "guess").status == 401)
            let huge = #"{"token": "\#(String(repeating: "ab", count: 10_000))"}"#
            #expect(try await run.request("PUT", pushToStart, body: huge).status == 413)
            #expect(
                try await run.request("PUT", pushToStart, body: "{\"token\": ").body.contains("body is not valid JSON"))
            let upper = try await run.request("PUT", pushToStart, body: #"{"token": "\#(pts.uppercased())"}"#)
            #expect(upper == (400, #"{"error":"token: expected lower-case hex digits only"}"#))
            #expect(try await run.request("PUT", pushToStart, body: #"{"token": "abc"}"#).status == 400)
            #expect(
                try await run.request("PUT", pushToStart, body: #"{"token": "\#(pts)", "environment": "staging"}"#)
                    .status == 400)
            #expect(try await run.request("PUT", "/v1/devices/\(Self.device)/subscriptions/nope/760499").status == 404)
            #expect(
                try await run.request("PUT", "/v1/devices/bad%20device/subscriptions/espn-worldcup/760499").status
                    == 400)

            // Accepted: subscribe, push-to-start token, the activity's token.
            #expect(
                try await run.request("PUT", "/v1/devices/\(Self.device)/subscriptions/\(Self.match)").status == 204)
            #expect(try await run.request("PUT", pushToStart, body: body).status == 204)
            let activityPath = "/v1/activities/match-760499/tokens/\(Self.device)"
            #expect(
                try await run.request(
                    "PUT", activityPath, body: #"{"token": "\#(activityToken)", "environment": "sandbox"}"#
                ).status == 204)

            // The match, step by step.
            let expected = [0, 1, 2, 3, 4, 5, 6, 7]
            for step in 1..<RunWithAPNs.steps.count {
                feed.advance(to: step)
                #expect(await run.waitForAccepted(expected[step]), "step \(step): \(setup.fake.accepted.count) pushes")
            }
            let accepted = setup.fake.accepted
            #expect(setup.fake.rejections.isEmpty, "\(setup.fake.rejections)")
            #expect(accepted.map(\.token) == [pts] + Array(repeating: activityToken, count: 6))
            #expect(accepted.map { $0.headers["apns-priority"] } == ["10", "5", "10", "5", "10", "5", "10"])
            let events = try accepted.map { try JSONParser.parse($0.body)["aps"]?["event"] }
            #expect(events == ["start", "update", "update", "update", "update", "update", "end"])

            // The fake records a push when it arrives, the worker counts it when the answer is back: let the
            // last count land before reading.
            var metrics = ""
            let settled = ContinuousClock.now + .seconds(20)
            repeat {
                metrics = try await run.request("GET", "/metrics", bearer: nil).body
                if metrics.contains(#"liverelay_pushes_total{provider="apns",priority="10",outcome="delivered"} 4"#) {
                    break
                }
                try await Task.sleep(for: .milliseconds(100))
            } while ContinuousClock.now < settled
            #expect(metrics.contains(#"liverelay_pushes_total{provider="apns",priority="10",outcome="delivered"} 4"#))
            #expect(metrics.contains(#"liverelay_pushes_total{provider="apns",priority="5",outcome="delivered"} 3"#))
            #expect(metrics.contains(#"liverelay_rule_fires_total{rule="goal"} 2"#))
            #expect(metrics.contains(#"liverelay_outbox_depth 0"#))
            #expect(!metrics.contains(RunWithAPNs.bearer))

            run.process.signal(SIGTERM)
            #expect(await run.process.waitForExit() == 0)
            // Nothing from the refused requests was stored.
            let store = try SQLiteStore(path: setup.directory.appendingPathComponent("liverelay.sqlite").path)
            let stored = try await store.pushToStartTokens(
                entity: EntityKey(feed: "espn-worldcup", id: "760499"), attributesType: "MatchAttributes",
                environment: nil)
            #expect(stored.map(\.token) == [pts])
            #expect(!run.process.standardError.contains(RunWithAPNs.bearer))
            try await feed.stop()
        }
    }

    /// 1,000 devices follow the match (3,000 pushes). The worker is killed with SIGKILL while full time fans out; the next
    /// run finishes the fan-out from the outbox: every device gets the final state, and none gets an older
    /// state after a newer one.
    @Test func sigkillMidFanOutLosesNothingAndNeverSendsAnOlderState() async throws {
        try await APNsWorkerSetup.with { setup in
            let feed = try await RunWithAPNs.feedServer()
            try RunWithAPNs.prepare(setup, feed: feed)
            let devices = 1000
            let store = try SQLiteStore(path: setup.directory.appendingPathComponent("liverelay.sqlite").path)
            let entity = EntityKey(feed: "espn-worldcup", id: "760499")
            func token(_ prefix: String, _ i: Int) -> String {
                prefix + String(format: "%08x", i) + String(repeating: "0", count: 150)
            }
            for i in 0..<devices {
                try await store.subscribe(device: "d\(i)", to: entity)
                try await store.registerPushToStartToken(
                    device: "d\(i)", attributesType: "MatchAttributes", token: token("aa", i), environment: .sandbox,
                    now: 0)
                try await store.registerActivityToken(
                    activity: "match-760499", device: "d\(i)", token: token("bb", i), environment: .sandbox, now: 0)
            }
            setup.fake.setResponseDelay(.milliseconds(10))
            var run = try await RunWithAPNs.start(setup, feed: feed)
            // Kick-off (2,000 starts), the goal at 44' (2,000 updates), then full time.
            for (step, total) in [(1, devices), (3, 2 * devices)] {
                feed.advance(to: step)
                #expect(await run.waitForAccepted(total, timeout: .seconds(120)))
            }
            feed.advance(to: 7)
            #expect(await run.waitForAccepted(2 * devices + 150, timeout: .seconds(120)))
            run.process.signal(SIGKILL)
            _ = await run.process.waitForExit()
            run.transport.shutdown()
            let beforeRestart = setup.fake.accepted.count
            #expect(beforeRestart < 3 * devices, "the kill landed mid-fan-out")

            run = try await RunWithAPNs.start(setup, feed: feed)
            defer { run.transport.shutdown() }
            #expect(await run.waitForAccepted(3 * devices, timeout: .seconds(120)))
            run.process.signal(SIGTERM)
            #expect(await run.process.waitForExit() == 0)

            #expect(setup.fake.rejections.isEmpty)
            var byToken: [String: [(timestamp: Int, event: String)]] = [:]
            for push in setup.fake.accepted {
                let aps = try JSONParser.parse(push.body)["aps"]
                guard case .int(let t)? = aps?["timestamp"], case .string(let e)? = aps?["event"] else { continue }
                byToken[push.token, default: []].append((t, e))
            }
            for i in 0..<devices {
                let seen = byToken[token("bb", i)] ?? []
                #expect(seen.last?.event == "end", "device \(i) got the final state")
                #expect(
                    zip(seen, seen.dropFirst()).allSatisfy { $0.timestamp <= $1.timestamp },
                    "device \(i): never older after newer")
            }
        }
    }
}
