import Foundation
import HTTP
import LiveRelayCore
import LiveRelayTesting
import Store
import Testing
import WorkerTesting

/// `liverelay run` as operators run it, the binary killed with SIGKILL mid-fan-out into the fake APNs over
/// HTTP/2 + TLS (the rest of `run` is tested in process through the composition root: `RunTests`).
@Suite("liverelay run end to end", .serialized)
struct RunIntegrationTests {
    static let match = "espn-worldcup/760499"
    static let device = "iphone-a"

    /// 1,000 devices follow the match (3,000 pushes). The worker is killed with SIGKILL while full time fans out; the next
    /// run finishes the fan-out from the outbox: every device gets the final state, and none gets an older
    /// state after a newer one.
    @Test func sigkillMidFanOutLosesNothingAndNeverSendsAnOlderState() async throws {
        try await MatchReplay.withFakeAPNs { setup, fake in
            let feed = try await RunWithAPNs.feedServer()
            try RunWithAPNs.prepare(setup, feed: feed)
            let devices = 1000
            let store = try SQLiteStore(path: setup.directory.appendingPathComponent("liverelay.sqlite").path)
            let entity = EntityKey(feed: "espn-worldcup", id: "760499")
            func token(_ prefix: String, _ i: Int) -> String {
                prefix + String(format: "%08x", i) + String(repeating: "0", count: 150)
            }
            for i in 0..<devices {
                try await store.subscribe(device: "d\(i)", to: entity, now: 0)
                try await store.registerPushToStartToken(
                    device: "d\(i)", attributesType: "MatchAttributes", token: token("aa", i), environment: .sandbox,
                    now: 0)
            }
            fake.setResponseDelay(.milliseconds(10))
            var run = try await RunWithAPNs.start(setup, fake: fake, feed: feed)
            // Kick-off (1,000 starts; then each app reports its activity's update token), the goal at 44'
            // (1,000 updates), then full time.
            feed.advance(to: 1)
            #expect(await run.waitForAccepted(devices, timeout: .seconds(120)))
            for i in 0..<devices {
                try await store.registerActivityToken(
                    activity: "match-760499", device: "d\(i)", token: token("bb", i), environment: .sandbox, now: 0)
            }
            feed.advance(to: 3)
            #expect(await run.waitForAccepted(2 * devices, timeout: .seconds(120)))
            feed.advance(to: 7)
            #expect(await run.waitForAccepted(2 * devices + 150, timeout: .seconds(120)))
            run.process.signal(SIGKILL)
            _ = await run.process.waitForExit()
            run.transport.shutdown()
            let beforeRestart = fake.accepted.count
            #expect(beforeRestart < 3 * devices, "the kill landed mid-fan-out")

            run = try await RunWithAPNs.start(setup, fake: fake, feed: feed)
            defer { run.transport.shutdown() }
            #expect(await run.waitForAccepted(3 * devices, timeout: .seconds(120)))
            run.process.signal(SIGTERM)
            #expect(await run.process.waitForExit() == 0)

            #expect(fake.rejections.isEmpty)
            var byToken: [String: [(timestamp: Int, event: String)]] = [:]
            for push in fake.accepted {
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

    /// SIGTERM while a delivery round waits on a slow APNs longer than the grace period: the round is cut,
    /// its pushes stay in the outbox for the next run, and the process says so and exits 0 (a stop asked
    /// for is not a failure).
    @Test func sigtermPastTheGracePeriodExitsZeroNamingWhatIsLeft() async throws {
        try await MatchReplay.withFakeAPNs { setup, fake in
            let feed = try await RunWithAPNs.feedServer()
            try RunWithAPNs.prepare(setup, feed: feed)
            let store = try SQLiteStore(path: setup.directory.appendingPathComponent("liverelay.sqlite").path)
            try await MatchReplay.registerDevice(store)
            fake.setResponseDelay(.seconds(20))
            let run = try await RunWithAPNs.start(setup, fake: fake, feed: feed, arguments: ["--grace-period", "1"])
            defer { run.transport.shutdown() }
            feed.advance(to: 1)
            // The kick-off start is on its way to the fake, which takes its time to answer.
            #expect(await fake.wait(until: { fake.requestCount > 0 }))
            run.process.signal(SIGTERM)
            let status = await run.process.waitForExit()
            #expect(status == 0, "\(run.process.standardError)")
            #expect(run.process.standardError.contains("1 push left in the outbox"), "\(run.process.standardError)")
            #expect(!run.process.standardError.contains("CancellationError"))
            #expect(try await store.outboxStatus().depth == 1, "the start waits for the next run")
            try await feed.stop()
        }
    }

    /// A supervisor's SIGHUP in the first instants after the spawn, before the rule reloader listens for it,
    /// does not end the worker; SIGTERM then stops it cleanly.
    @Test func sighupRightAfterTheSpawnIsNotTheEnd() async throws {
        try await MatchReplay.withFakeAPNs { setup, fake in
            let feed = try await RunWithAPNs.feedServer()
            try RunWithAPNs.prepare(setup, feed: feed)
            var environment = ProcessInfo.processInfo.environment
            environment["LIVERELAY_TEST_BEARER"] = RunWithAPNs.bearer
            let process = try BackgroundProcess(
                Repository.executable("liverelay"), ["run", "--config", setup.configPath, "--log-level", "info"],
                environment: environment)
            // The signals are spread over the start-up on purpose: the spacing is the test's input, not a wait.
            for _ in 0..<25 {
                try await Task.sleep(for: .milliseconds(20))
                process.signal(SIGHUP)
            }
            #expect(await process.waitForError(containing: "API listening on"), "\(process.standardError)")
            // The open-file limit is raised to what the system allows, so the API's connections and the
            // worker's never compete for the last descriptors.
            let limits = try String(contentsOfFile: "/proc/\(process.processIdentifier)/limits", encoding: .utf8)
            let files = limits.split(separator: "\n").first { $0.hasPrefix("Max open files") }?
                .split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).prefix(2).map(String.init)
            #expect(files?.count == 2 && (files?[0] == files?[1] || files?[0] == "65536"), "\(files ?? [])")
            // Once it listens, a SIGHUP reloads the rules: the stop comes after that reload.
            let reloads = process.standardError.components(separatedBy: "rules reloaded").count
            process.signal(SIGHUP)
            #expect(
                await process.waitForError(
                    containing: "rules reloaded", count: reloads), "\(process.standardError)")
            process.signal(SIGTERM)
            #expect(await process.waitForExit() == 0, "\(process.standardError)")
            try await feed.stop()
        }
    }
}
