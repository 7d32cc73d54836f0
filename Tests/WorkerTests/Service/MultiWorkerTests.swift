import Foundation
import HTTP
import LiveRelayCore
import LiveRelayTesting
import PostgresStore
import Store
import Testing
import Worker
import WorkerTesting

/// Three `liverelay run` processes on one PostgreSQL and the fake APNs (HTTP/2 + TLS): one polls the match,
/// all three share its fan-outs through the outbox claims. The poller is killed with SIGKILL mid-fan-out
/// (its claimed rows go to the others within seconds, taken over by heartbeat), or frozen with SIGSTOP past
/// its heartbeat timeout and then let go on (it sends none of the rows the others took).
@Suite(
    "several workers on PostgreSQL", .serialized,
    .postgres)
struct MultiWorkerTests {
    static let claimBatch = 500
    /// The requests one worker has in flight to APNs at most (one connection × `max-concurrent-streams`, set
    /// below to keep the window small enough to assert on).
    static let inFlight = 64

    static func token(_ prefix: String, _ i: Int) -> String {
        prefix + String(format: "%08x", i) + String(repeating: "0", count: 54)
    }

    /// Three named workers (`w1`…`w3`) on a schema of their own, `devices` devices subscribed to the match.
    struct Bed {
        let store: PostgresStore
        let fake: FakeAPNs
        let feed: FeedServer
        let workers: [(name: String, run: RunWithAPNs)]
        let devices: Int

        var first: RunWithAPNs { workers[0].run }

        /// The worker that polls now.
        func poller() async throws -> (name: String, run: RunWithAPNs) {
            let poller = try #require(try await store.leaseHolder(PollerLease.name)?.worker)
            return try #require(workers.first { $0.name == poller })
        }

        /// Each device's pushes in order (`aa…` its start token, `bb…` its activity token), and where each
        /// landed in the fake's record.
        func pushesByToken() throws -> [String: [(timestamp: Int, event: String, index: Int)]] {
            var byToken: [String: [(timestamp: Int, event: String, index: Int)]] = [:]
            for (index, push) in fake.accepted.enumerated() {
                let aps = try JSONParser.parse(push.body)["aps"]
                guard case .int(let t)? = aps?["timestamp"], case .string(let e)? = aps?["event"] else { continue }
                byToken[push.token, default: []].append((t, e, index))
            }
            return byToken
        }

        /// Every device got its start, every update and the end, never an older state after a newer; a push
        /// that went twice went to one of `claimed` (the tokens a killed worker held claimed: in flight, or
        /// about to be), when given. Returns the duplicates.
        func checkEveryDeviceGotEverything(duplicatesOnlyTo claimed: Set<String>?) throws -> Int {
            let byToken = try pushesByToken()
            var duplicates = 0
            for i in 0..<devices {
                let starts = byToken[MultiWorkerTests.token("aa", i)] ?? []
                let updates = byToken[MultiWorkerTests.token("bb", i)] ?? []
                #expect(starts.first?.event == "start", "device \(i) got its start")
                #expect(updates.last?.event == "end", "device \(i) got the end")
                #expect(Set(updates.map(\.event)) == ["update", "end"], "device \(i) got every push")
                for (token, seen) in [
                    (MultiWorkerTests.token("aa", i), starts), (MultiWorkerTests.token("bb", i), updates),
                ] {
                    #expect(
                        zip(seen, seen.dropFirst()).allSatisfy { $0.timestamp <= $1.timestamp },
                        "device \(i): never older after newer")
                    for (a, b) in zip(seen, seen.dropFirst()) where a.timestamp == b.timestamp {
                        duplicates += 1
                        if let claimed {
                            #expect(
                                claimed.contains(token),
                                "device \(i): a push sent twice (at \(a.index) and \(b.index)) was one the dead worker held"
                            )
                        }
                    }
                }
            }
            return duplicates
        }

        /// Stops the workers still running (SIGTERM): each exits 0. A worker that does not leaves its threads'
        /// stacks in the failure, where gdb is installed.
        func stop(except gone: Set<String> = [], within timeout: Duration = .seconds(30), mayHang: Set<String> = [])
            async
        {
            for w in workers where !gone.contains(w.name) {
                w.run.process.signal(SIGTERM)
                let stopping = ContinuousClock.now
                let status = await w.run.process.waitForExit(timeout: timeout)
                print("\(w.name) stopped \(ContinuousClock.now - stopping) after SIGTERM")
                let failure =
                    "\(w.name) (\(ContinuousClock.now - stopping) after SIGTERM): \(w.run.process.standardError.suffix(2_000))\n\(w.run.process.hungStacks.suffix(30_000))"
                if mayHang.contains(w.name) {
                    withKnownIssue(
                        "a worker frozen past its heartbeat sometimes never stops on SIGTERM under the whole suite's load: every task waits on a continuation nothing resumes (its stacks show all threads idle); cause not found yet",
                        isIntermittent: true
                    ) {
                        #expect(status == 0, "\(failure)")
                    }
                } else {
                    #expect(status == 0, "\(failure)")
                }
            }
        }
    }

    /// The kick-off (a start per device) and the goal (an update per device, to the tokens the apps then
    /// report), shared by the three workers; then `body` with full time about to fan out.
    static func withThreeWorkers(devices: Int, _ body: (Bed) async throws -> Void) async throws {
        let url = try #require(ProcessInfo.processInfo.environment["LIVERELAY_TEST_POSTGRES_URL"])
        let password = ProcessInfo.processInfo.environment["LIVERELAY_TEST_POSTGRES_PASSWORD"]
        let schema = "mw_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        let postgres: JSONValue = [
            "url": .string(url), "password": ["env": "LIVERELAY_TEST_POSTGRES_PASSWORD"],
            "schema": .string(String(schema)),
            "claim-seconds": 20, "claim-batch": .int(Self.claimBatch), "lease-seconds": 3,
        ]
        try await MatchReplay.withFakeAPNs(extra: ["postgres": postgres]) { setup, fake in
            let feed = try await RunWithAPNs.feedServer()
            try RunWithAPNs.prepare(setup, feed: feed)
            let store = try PostgresStore(
                .init(url: url, password: password.map(Secret.init), schema: String(schema), worker: "test"))
            let pool = Task { await store.run() }
            defer { pool.cancel() }
            try await store.open()
            let entity = EntityKey(feed: "espn-worldcup", id: "760499")
            for i in 0..<devices {
                try await store.subscribe(device: "d\(i)", to: entity, now: 0)
                try await store.registerPushToStartToken(
                    device: "d\(i)", attributesType: "MatchAttributes", token: Self.token("aa", i),
                    environment: .sandbox, now: 0)
            }
            // Each worker its own name (and config), the rest shared.
            var workers: [(name: String, run: RunWithAPNs)] = []
            for name in ["w1", "w2", "w3"] {
                let path = setup.configPath.replacingOccurrences(of: ".json", with: "-\(name).json")
                var config = try JSONParser.parse(Data(contentsOf: URL(fileURLWithPath: setup.configPath)))
                if case .object(var members) = config, case .object(var pg)? = members["postgres"],
                    case .object(var provider)? = members["provider"]
                {
                    pg["worker"] = .string(name)
                    members["postgres"] = .object(pg)
                    provider["max-concurrent-streams"] = .int(Self.inFlight)
                    members["provider"] = .object(provider)
                    config = .object(members)
                }
                try config.jsonData().write(to: URL(fileURLWithPath: path))
                let replay = MatchReplay(directory: setup.directory, configPath: path)
                workers.append((name, try await RunWithAPNs.start(replay, fake: fake, feed: feed)))
            }
            defer { for w in workers { w.run.transport.shutdown() } }
            let bed = Bed(store: store, fake: fake, feed: feed, workers: workers, devices: devices)
            fake.setResponseDelay(.milliseconds(2))

            feed.advance(to: 1)
            #expect(await bed.first.waitForAccepted(devices, timeout: .seconds(300)), "kick-off: every start")
            try await store.importActivityTokens(
                (0..<devices).map { i in
                    (activity: "match-760499", device: "d\(i)", token: Self.token("bb", i), environment: .sandbox)
                }, now: 0)
            feed.advance(to: 3)
            #expect(await bed.first.waitForAccepted(2 * devices, timeout: .seconds(300)), "the goal: every update")
            try await body(bed)
        }
    }

    /// 10,000 devices: kick-off, the goal at 44', full time. The worker that polls is killed with SIGKILL
    /// while full time fans out: the rows it had claimed go to the survivors as soon as its heartbeat lapses
    /// (5 s), well before the claims expire (20 s here, 60 by default); every device gets every push, in
    /// order; nothing is sent twice except what the dead worker had in flight (at most one claim batch,
    /// each first sent before the kill); a survivor takes the feed over.
    @Test func threeWorkersShareTheFanOutAndADeadOnesRowsGoWithinSeconds() async throws {
        let devices = 10_000
        try await Self.withThreeWorkers(devices: devices) { bed in
            let victim = try await bed.poller()
            bed.feed.advance(to: 7)
            #expect(await bed.first.waitForAccepted(2 * devices + 1_500, timeout: .seconds(300)))
            // What the survivors have said of the lease so far: one of them says it again when it takes over.
            let took = "this worker polls the feeds now"
            let survivors = bed.workers.filter { $0.name != victim.name }.map(\.run.process)
            let saidBefore = survivors.map { $0.standardError.components(separatedBy: took).count - 1 }
            victim.run.process.signal(SIGKILL)
            let killed = ContinuousClock.now
            _ = await victim.run.process.waitForExit()
            let held = try await bed.store.claims(of: victim.name)
            let atKill = bed.fake.accepted.count
            #expect(atKill < 3 * devices, "the kill landed mid-fan-out (\(atKill - 2 * devices) of \(devices) sent)")

            // The dead worker's rows are taken over (claimed by the others), then sent again: each of their
            // tokens gets the end after the kill (none of them was settled, so each goes again).
            let tokens = Set(held.map(\.target))
            let fake = bed.fake
            let allEnded = await fake.wait(
                until: {
                    tokens.isSubset(
                        of: Set(fake.accepted[atKill...].filter { $0.body.contains(#""event":"end""#) }.map(\.token)))
                }, timeout: .seconds(60))
            let measured = ContinuousClock.now - killed
            #expect(allEnded, "the dead worker's \(held.count) rows were delivered")
            #expect(try await bed.store.claims(of: victim.name).isEmpty, "its claims were taken over")
            print("the dead worker held \(held.count) rows; all delivered \(measured) after the kill")
            #expect(measured < .seconds(10), "its \(held.count) rows went \(measured) after the kill")
            for w in bed.workers where w.name != victim.name {
                for line in w.run.process.standardError.split(separator: "\n")
                where line.contains("stalled") || line.contains("heartbeat") || line.contains("requests stopped") {
                    print("\(w.name): \(line)")
                }
            }
            #expect(await bed.first.waitForAccepted(3 * devices, timeout: .seconds(300)), "full time: every end")

            // One of the survivors polls the feed now (within two poll intervals of the lease's end): it says so.
            let tookOver = await withTaskGroup(of: Bool.self) { group in
                for (process, before) in zip(survivors, saidBefore) {
                    group.addTask { await process.waitForError(containing: took, count: before + 1) }
                }
                for await said in group where said {
                    group.cancelAll()
                    return true
                }
                return false
            }
            let holder = try await bed.store.leaseHolder(PollerLease.name)?.worker
            #expect(tookOver && holder != nil && holder != victim.name, "a surviving worker took the feed over")
            await bed.stop(except: [victim.name])

            #expect(bed.fake.rejections.isEmpty)
            let duplicates = try bed.checkEveryDeviceGotEverything(duplicatesOnlyTo: tokens)
            #expect(duplicates <= Self.claimBatch, "at most the dead worker's claims went twice: \(duplicates)")
            #expect(try await bed.store.outboxStatus().depth == 0, "nothing left behind")
        }
    }

    /// The poller is frozen (SIGSTOP) mid-fan-out for longer than its heartbeat timeout: the others take its
    /// claimed rows over and finish full time. Let go on (SIGCONT), it finds its claims lapsed, sends none
    /// of those rows again (the fence before each request), gives them up, rejoins, and goes on working.
    @Test func aFrozenWorkerFindsItsClaimsTakenOverAndSendsNoneOfThemAgain() async throws {
        let devices = 4_000
        try await Self.withThreeWorkers(devices: devices) { bed in
            let frozen = try await bed.poller()
            bed.fake.setResponseDelay(.milliseconds(4))
            bed.feed.advance(to: 7)
            #expect(await bed.first.waitForAccepted(2 * devices + 600, timeout: .seconds(300)))
            // Frozen while it holds a chunk: between two rounds it holds none, so a freeze that finds it empty-
            // handed lets it go on and tries again.
            var held: [OutboxKey] = []
            for _ in 0..<200 {
                frozen.run.process.signal(SIGSTOP)
                held = try await bed.store.claims(of: frozen.name)
                if !held.isEmpty { break }
                frozen.run.process.signal(SIGCONT)
                try await Task.sleep(for: .milliseconds(5))
            }
            let stopped = ContinuousClock.now
            #expect(!held.isEmpty, "it was frozen holding rows")
            // The others finish: every device has the end (a count of requests could include their retries, and
            // leave ends of theirs to be counted as the frozen worker's below).
            let ends = Set((0..<devices).map { Self.token("bb", $0) })
            var (finished, takenOver): (Bool, Duration?) = (false, nil)
            let fake = bed.fake
            let deadline = stopped + .seconds(120)
            while !finished, ContinuousClock.now < deadline {
                let seen = fake.accepted.count
                // Taken-over rows are sent at once: the fake's next request is when to look at the claims again.
                if takenOver == nil, try await bed.store.claims(of: frozen.name).isEmpty {
                    takenOver = ContinuousClock.now - stopped
                }
                let ended = Set(fake.accepted.filter { $0.body.contains(#""event":"end""#) }.map(\.token))
                finished = ends.isSubset(of: ended)
                if !finished {
                    _ = await fake.wait(until: { fake.accepted.count > seen }, timeout: deadline - ContinuousClock.now)
                }
            }
            #expect(finished, "the others finish")
            print(
                "frozen holding \(held.count) rows; taken over \(takenOver.map { "\($0)" } ?? "?"), full time done "
                    + "\(ContinuousClock.now - stopped) after the stop")
            // Its heartbeat lapses after 5 s: its rows are taken over then, not when their claims expire (20 s).
            #expect(try #require(takenOver) < .seconds(15))

            let afterStop = bed.fake.accepted.count
            frozen.run.process.signal(SIGCONT)
            defer { print("the frozen worker's log:\n\(frozen.run.process.standardError.suffix(4_000))") }
            #expect(
                await frozen.run.process.waitForError(
                    containing: "this worker stalled past its heartbeat timeout", timeout: .seconds(20)),
                "\(frozen.run.process.standardError.suffix(3_000))")
            // Long enough for a resumed round to have sent anything it still meant to. What it had handed to its
            // HTTP/2 connection before the stop may still leave (the push lane was frozen too): at most its
            // window of requests in flight (64), never a new request. This looks for an absence, which no
            // event announces: the one wait on the wall clock left in these tests.
            try await Task.sleep(for: .seconds(3))
            let resumed = bed.fake.accepted.count - afterStop
            print("after SIGCONT the frozen worker's connections delivered \(resumed) requests it had in flight")
            #expect(resumed <= Self.inFlight, "only what was in flight at the stop: \(resumed)")
            // Under the whole suite's load the frozen worker has three times not stopped on SIGTERM (once still
            // running 93 s on, every thread idle: a continuation nothing resumes). A known issue until found;
            // its stacks are printed when gdb is installed. The other two must stop.
            await bed.stop(within: .seconds(45), mayHang: [frozen.name])

            #expect(bed.fake.rejections.isEmpty)
            // What went twice is what the frozen worker had sent but not yet written as sent: its requests in
            // flight and the receipts waiting for their write (ReceiptJournal), all among the rows it held.
            let duplicates = try bed.checkEveryDeviceGotEverything(duplicatesOnlyTo: nil)
            #expect(
                duplicates <= held.count,
                "at most the rows it held at the stop went twice: \(duplicates) of \(held.count)")
            #expect(try await bed.store.outboxStatus().depth == 0, "nothing left behind")
        }
    }
}
