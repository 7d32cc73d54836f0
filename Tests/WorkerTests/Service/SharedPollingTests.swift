import Feeds
import Foundation
import LiveRelayCore
import LiveRelayTesting
import PostgresStore
import Store
import Synchronization
import Testing
import Worker
import WorkerTesting

/// One worker at a time polls when several share the store: the poll loop's gate, and `tick` on PostgreSQL.
@Suite struct PollGateTests {
    /// Standby polls nothing and counts nothing; taking over resumes the schedule the last poller saved
    /// (its failures in a row, and its wait) before polling.
    @Test func standbyPollsNothingAndATakeOverResumesTheSavedSchedule() async throws {
        let clock = ImmediateClock()
        let policy = PollSchedule.Policy(interval: .seconds(10), backoffCap: .seconds(600))
        let gates = Mutex<[PollGate]>([
            .standby(retry: .seconds(3)), .standby(retry: .seconds(3)),
            .resume(PollSchedule(policy: policy, consecutiveFailures: 3, notBefore: 1_000 + 50)), .poll, .poll,
        ])
        let polls = Mutex(0)
        let task = Mutex<Task<Void, Never>?>(nil)
        let loop = PollLoop(
            name: "feed", policy: policy, clock: clock, now: { 1_000 }, random: { 0 },
            gate: {
                gates.withLock { gates in
                    guard !gates.isEmpty else {
                        task.withLock { $0?.cancel() }
                        return .standby(retry: .seconds(1))
                    }
                    return gates.removeFirst()
                }
            }
        ) {
            polls.withLock { $0 += 1 }
            return PollOutcome(.failed(.httpStatus), status: 500)
        }
        let running = Task { await loop.run() }
        task.withLock { $0 = running }
        await running.value
        #expect(polls.withLock { $0 } == 2, "polled only once the gate said so")
        #expect(loop.counters.requests == 2)
        #expect(loop.schedule.consecutiveFailures == 5, "the saved 3 failures, then 2 more")
        #expect(
            Array(clock.sleeps.prefix(3)) == [.seconds(3), .seconds(3), .seconds(50)], "standby, then the saved wait")
    }

    /// A loop says what it is doing (a stop that hangs logs it): asking its gate, polling, then stopped.
    @Test func aLoopSaysWhatItIsDoing() async {
        final class Seen: Sendable {
            let loop = Mutex<PollLoop?>(nil)
            let phases = Mutex<[PollLoop.Phase]>([])
            let task = Mutex<Task<Void, Never>?>(nil)
            func note() { phases.withLock { $0.append(loop.withLock { $0 }?.phase ?? .idle) } }
        }
        let seen = Seen()
        let loop = PollLoop(
            name: "feed", policy: PollSchedule.Policy(interval: .seconds(10)), clock: ImmediateClock(),
            now: { 1_000 }, random: { 0 },
            gate: {
                seen.note()
                return .poll
            }
        ) {
            seen.note()
            seen.task.withLock { $0?.cancel() }
            return PollOutcome(.fresh)
        }
        seen.loop.withLock { $0 = loop }
        #expect(loop.phase == .idle)
        let running = Task { await loop.run() }
        seen.task.withLock { $0 = running }
        await running.value
        #expect(seen.phases.withLock { $0 } == [.askingGate, .polling])
        #expect(loop.phase == .stopped)
    }
}

@Suite(
    "tick on a shared store", .serialized,
    .postgres)
struct SharedTickTests {
    /// A tick polls only when no worker polls (it takes the poller lease for the tick and hands it back),
    /// and says who polls otherwise; it always delivers.
    @Test func aTickPollsOnlyWhenNoWorkerDoesAndHandsTheLeaseBack() async throws {
        let url = try #require(ProcessInfo.processInfo.environment["LIVERELAY_TEST_POSTGRES_URL"])
        let password = ProcessInfo.processInfo.environment["LIVERELAY_TEST_POSTGRES_PASSWORD"].map(Secret.init)
        let schema = "tk_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        let server = try await FeedServer.start(
            bodies: [
                try Data(contentsOf: Repository.url("Samples/recordings/espn-soccer-scoreboard-1-first-half.json"))
            ])
        let demo = try ConfigLoader.load(path: Repository.path("Samples/demo/liverelay.json"))
        var feed = demo.feeds[0]
        feed.url = server.url
        let other = try PostgresStore(.init(url: url, password: password, schema: String(schema), worker: "other"))
        let ticker = try PostgresStore(.init(url: url, password: password, schema: String(schema), worker: "ticker"))
        let pools = [Task { await other.run() }, Task { await ticker.run() }]
        defer { for pool in pools { pool.cancel() } }
        try await other.open()
        try await ticker.open()
        func tick() async throws -> TickReport {
            let worker = try await LiveRelayWorker.build(
                demo, rules: demo.loadRules(), store: ticker,
                environment: .test(
                    now: { Int(Date().timeIntervalSince1970) }, providers: ["console": RecordingProvider()]))
            defer { worker.shutdown() }
            return try await worker.runOnce(feeds: [feed])
        }
        #expect(try await other.acquireLease(PollerLease.name, seconds: 60))
        let standby = try await tick()
        #expect(standby.feeds.map(\.description) == ["feed espn-worldcup: not polled: worker other polls the feeds"])
        #expect(server.requests.isEmpty)
        try await other.releaseLease(PollerLease.name)
        let polled = try await tick()
        #expect(polled.feeds.map(\.changes) == [32])
        #expect(server.requests.count == 1)
        #expect(try await ticker.leaseHolder(PollerLease.name) == nil, "handed back after the tick")
        #expect(try await other.acquireLease(PollerLease.name, seconds: 60), "so a run worker takes it at once")
        try await other.dropSchema()
        try await server.stop()
    }
}
