import Delivery
import Feeds
import Foundation
import LiveRelayCore
import LiveRelayTesting
import Rules
import Store
import Synchronization
import Testing
import Worker
import WorkerTesting

/// `liverelay run`'s behaviour in process, through the composition root: the same worker, service group and
/// poll loops the binary runs, on a test clock. Polls, deliveries, the API, metrics, rule reloads, a locked
/// state file, and the graceful shutdown SIGTERM triggers.
@Suite("run in process", .serialized)
struct RunTests {
    static let device = "iphone-a"
    static let match = "espn-worldcup/760499"

    /// Tokens registered through the API, the recorded match moment by moment into the fake APNs over HTTP/2
    /// + TLS, the metrics, and a graceful shutdown that keeps the state.
    @Test func tokensThroughTheAPIThenTheMatchIntoTheFakeAPNsThenAGracefulShutdown() async throws {
        try await MatchReplay.withFakeAPNs { setup, fake in
            let feed = try await RunWithAPNs.feedServer()
            try RunWithAPNs.prepare(setup, feed: feed)
            let pts = MatchReplay.startToken
            let activityToken = MatchReplay.activityToken
            try await InProcessRun.run(configPath: setup.configPath) { run in
                // Refused: no token, a wrong token, an oversize body, malformed JSON, a bad token, an unknown feed.
                let body = #"{"token": "\#(pts)", "environment": "sandbox"}"#
                let pushToStart = "/v1/devices/\(Self.device)/push-to-start/MatchAttributes"
                #expect(
                    try await run.api.request("PUT", pushToStart, body: body, bearer: nil) == (
                        401, #"{"error":"missing bearer token"}"#
                    ))
                #expect(try await run.api.request("PUT", pushToStart, body: body, bearer: "guess").status == 401)
                let huge = #"{"token": "\#(String(repeating: "ab", count: 10_000))"}"#
                #expect(try await run.api.request("PUT", pushToStart, body: huge).status == 413)
                #expect(
                    try await run.api.request("PUT", pushToStart, body: "{\"token\": ").body.contains(
                        "body is not valid JSON"))
                let upper = try await run.api.request("PUT", pushToStart, body: #"{"token": "\#(pts.uppercased())"}"#)
                #expect(upper == (400, #"{"error":"token: expected lower-case hex digits only"}"#))
                #expect(
                    try await run.api.request("PUT", "/v1/devices/\(Self.device)/subscriptions/nope/760499").status
                        == 404)

                // Accepted: subscribe, push-to-start token.
                #expect(
                    try await run.api.request("PUT", "/v1/devices/\(Self.device)/subscriptions/\(Self.match)").status
                        == 204)
                #expect(try await run.api.request("PUT", pushToStart, body: body).status == 204)

                // The match, moment by moment: each poll delivers what its change queued before the loop sleeps.
                // Once the start arrived, the app reports the new activity's update token.
                let expected = [0, 1, 2, 3, 4, 5, 6, 7]
                let devices = "/v1/activities/match-760499/devices"
                for step in 1..<RunWithAPNs.steps.count {
                    feed.advance(to: step)
                    await run.advance(by: .seconds(1))
                    #expect(fake.accepted.count == expected[step], "step \(step)")
                    if step == 1 {
                        let started = try JSONParser.parse(try await run.api.request("GET", devices).body)
                        #expect(started["devices"]?[0]?["device"] == .string(Self.device))
                        #expect(started["devices"]?[0]?["token-at"] == .null, "started, no token reported yet")
                        let activityPath = "/v1/activities/match-760499/tokens/\(Self.device)"
                        #expect(
                            try await run.api.request(
                                "PUT", activityPath, body: #"{"token": "\#(activityToken)", "environment": "sandbox"}"#
                            ).status == 204)
                        let reported = try JSONParser.parse(try await run.api.request("GET", devices).body)
                        #expect(reported["devices"]?[0]?["token-at"] != .null)
                    }
                }
                let accepted = fake.accepted
                #expect(fake.rejections.isEmpty, "\(fake.rejections)")
                #expect(accepted.map(\.token) == [pts] + Array(repeating: activityToken, count: 6))
                #expect(accepted.map { $0.headers["apns-priority"] } == ["10", "5", "10", "5", "10", "5", "10"])
                let events = try accepted.map { try JSONParser.parse($0.body)["aps"]?["event"] }
                #expect(events == ["start", "update", "update", "update", "update", "update", "end"])

                let metrics = try await run.api.request("GET", "/metrics", bearer: nil).body
                #expect(
                    metrics.contains(#"liverelay_pushes_total{provider="apns",priority="10",outcome="delivered"} 4"#))
                #expect(
                    metrics.contains(#"liverelay_pushes_total{provider="apns",priority="5",outcome="delivered"} 3"#))
                #expect(metrics.contains(#"liverelay_rule_fires_total{rule="goal"} 2"#))
                #expect(metrics.contains(#"liverelay_polls_total{feed="espn-worldcup"} 8"#))
                #expect(metrics.contains(#"liverelay_outbox_depth 0"#))
                // One connection to the fake over the push lane, read at the last delivery round.
                let lane = metrics.firstMatch(
                    of: /\nliverelay_push_connections\{provider="apns",host="127\.0\.0\.1:\d+"\} ([0-9.]+)\n/)
                #expect(lane.flatMap { Double($0.1) } == 1, "\(metrics)")
                #expect(!metrics.contains(InProcessRun.bearer))
                let health = try await run.api.request("GET", "/healthz", bearer: nil)
                #expect(health.status == 200)
                #expect(try JSONParser.parse(health.body)["providers"]?["apns"]?["sent"] == 7)
                #expect(!run.logs.all.joined().contains(InProcessRun.bearer))
            }
            // The graceful shutdown returned: the state stays, and nothing from the refused requests was stored.
            let store = try SQLiteStore(path: setup.directory.appendingPathComponent("liverelay.sqlite").path)
            #expect(try await store.allActivities().map(\.phase) == [.ended])
            let stored = try await store.pushToStartTokens(
                entity: EntityKey(feed: "espn-worldcup", id: "760499"), attributesType: "MatchAttributes",
                environment: nil)
            #expect(stored.map(\.token) == [pts])
            try await feed.stop()
        }
    }

    /// Another connection holds the state file's write lock: the polls and delivery rounds that need to
    /// write fail, are logged, counted and shown by `/healthz`, and back off; the worker stays up, and once
    /// the lock is gone the change that was due goes out.
    @Test func aLockedStateFileIsCountedShownAndSurvived() async throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let feed = try await RunWithAPNs.feedServer()
        var config = try DemoConfig()
        try config.setFeed(url: feed.url, interval: 1)
        config["api"] = ["port": 0]
        let recorder = RecordingProvider()
        try await InProcessRun.run(configPath: try config.write(to: directory), providers: ["console": recorder]) {
            run in
            feed.advance(to: 1)
            await run.advance(by: .seconds(1))
            #expect(recorder.pushes.map(\.event) == [.start])

            let lock = try StateFileLock(path: directory.appendingPathComponent("liverelay.sqlite").path)
            feed.advance(to: 3)  // Egypt scores
            await run.advance(by: .seconds(1))
            let loop = try #require(run.worker.feedLoops.first)
            #expect(loop.counters.errors == ["store": 1])
            #expect(loop.schedule.consecutiveFailures == 1)
            #expect(recorder.pushes.map(\.event) == [.start], "nothing sent while the state cannot be saved")
            let health = try await run.api.request("GET", "/healthz", bearer: nil)
            #expect(health.status == 503)
            let board = try JSONParser.parse(health.body)
            #expect(board["status"] == "degraded")
            #expect(board["feeds"]?["espn-worldcup"]?["ok"] == false)
            #expect(board["feeds"]?["espn-worldcup"]?["error"]?.stringValue?.contains("database is locked") == true)
            #expect(board["outbox"]?["ok"] == false)
            #expect(run.metrics.contains(#"liverelay_feed_errors_total{feed="espn-worldcup",kind="store"} 1"#))
            #expect(run.metrics.contains("liverelay_store_errors_total"))
            #expect(run.logs.all.contains { $0.contains("state store failed") && $0.contains("database is locked") })

            // Still running: the backoff passes, the lock is gone, the goal goes out and health comes back.
            try lock.release()
            await run.advance(by: .seconds(2))
            #expect(loop.counters.consecutiveFailures == 0)
            #expect(recorder.pushes.map(\.event) == [.start, .update])
            #expect(recorder.pushes.last?.contentState["awayScore"] == 1)
            #expect(try await run.api.request("GET", "/healthz", bearer: nil).status == 200)
        }
        try await feed.stop()
    }

    /// A state file that stays locked past `state-failure-limit` is not waited out for ever: `run` ends with
    /// an error (a non-zero exit, for a supervisor to restart it), after saying so at critical level.
    @Test(.timeLimit(.minutes(1))) func aStateFileFailingPastTheLimitEndsRunWithAnError() async throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var config = try DemoConfig()
        config["api"] = ["port": 0]
        config["state-failure-limit"] = 20
        let path = try config.write(to: directory)
        let locked = LockHolder()
        await #expect(throws: StoreDown.self) {
            try await InProcessRun.run(configPath: path) { run in
                locked.hold(try StateFileLock(path: directory.appendingPathComponent("liverelay.sqlite").path))
                // A second at a time, each once every loop has failed on the lock and sleeps again, until the
                // store watchdog gives up (the run then ends).
                for _ in 0..<60 {
                    run.clock.advance(by: .seconds(1))
                    let gaveUp = await withTaskGroup(of: Bool.self) { group in
                        group.addTask {
                            await run.clock.sleeping(run.sleepers)
                            return false
                        }
                        group.addTask {
                            await run.logs.wait(
                                forLineContaining: "the state store has failed for", timeout: .seconds(60))
                        }
                        let first = await group.next() ?? false
                        group.cancelAll()
                        return first
                    }
                    if gaveUp { break }
                }
                #expect(run.logs.all.contains { $0.contains("the state store has failed for") })
            }
        }
        try locked.release()
    }

    /// A rule file edited while running is picked up on the clock; a broken edit is refused and the running
    /// rules stay.
    @Test func aRuleFileEditIsPickedUpAndABrokenOneRefused() async throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let rules = directory.appendingPathComponent("soccer.rules.json")
        try FileManager.default.copyItem(at: Repository.url("Rules/soccer.rules.json"), to: rules)
        var config = try DemoConfig()
        config["rules"] = ["soccer.rules.json"]
        config["api"] = ["port": 0]
        try await InProcessRun.run(
            configPath: try config.write(to: directory), providers: ["console": RecordingProvider()]
        ) { run in
            let book = run.worker.pipeline.rules
            let good = try String(contentsOf: rules, encoding: .utf8)
            try good.replacingOccurrences(of: #""relevance-score": 20"#, with: #""relevance-score": 30"#).write(
                to: rules, atomically: true, encoding: .utf8)
            await run.advance(by: .seconds(2))
            #expect(book.generation == 2)
            try good.replacingOccurrences(of: #""priority": "low""#, with: #""prioirty": "low""#).write(
                to: rules, atomically: true, encoding: .utf8)
            await run.advance(by: .seconds(2))
            #expect(book.generation == 2)
            #expect(book.engine.rules.count == 4)
            #expect(
                run.logs.all.contains {
                    $0.contains("rule reload refused") && $0.contains("unknown key \"prioirty\"")
                })
        }
    }
}

/// Holds the lock a test takes inside a closure, to release it after.
final class LockHolder: Sendable {
    private let held = Mutex<StateFileLock?>(nil)
    func hold(_ lock: StateFileLock) { held.withLock { $0 = lock } }
    func release() throws { try held.withLock { try $0?.release() } }
}
