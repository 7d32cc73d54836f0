import Feeds
import Logging
import Store
import Synchronization
import Throttling

/// The loops of `run` and the rounds they run. A feed's loop runs a poll round, then a delivery round for
/// what it queued; the outbox loop a delivery round every second; the timer loop a pass of the timer rules.
/// Each round is a call into the ``Pipeline`` (the coordinator) with its logging and counting, shared with
/// ``LiveRelayWorker/runOnce()``.
extension LiveRelayWorker {
    /// One poll loop per feed: a poll round, then a delivery round for what it queued. Each loop starts from
    /// what the last process learnt (failures in a row, a server's wait) and saves what it learns; on a
    /// shared store the schedule is read when this worker takes the feeds over (the gate).
    static func feedLoops(
        _ loaded: LoadedConfig, rounds: Rounds, polling: SharedPolling?, store: any StateStore,
        clock: any Clock<Duration>, environment: WorkerEnvironment
    ) async -> [PollLoop] {
        var savedSchedules: [String: SavedFeedSchedule] = [:]
        for feed in loaded.feeds { savedSchedules[feed.id] = try? await store.feedSchedule(feed: feed.id) }
        return loaded.feeds.map { feed in
            let saved = polling == nil ? savedSchedules[feed.id] : nil
            let remembered = Mutex(saved)
            return PollLoop(
                name: feed.id, policy: feed.pollPolicy, clock: clock, now: environment.now,
                random: environment.random,
                schedule: PollSchedule(
                    policy: feed.pollPolicy, consecutiveFailures: saved?.failures ?? 0, notBefore: saved?.notBefore),
                firstPollAt: saved?.notBefore,
                remember: { report, schedule in
                    let next = SavedFeedSchedule(schedule, after: report.decision, now: report.at)
                    let previous = remembered.withLock { $0 }
                    do {
                        try await store.remember(next, feed: feed.id, previous: previous)
                        remembered.withLock { $0 = next }
                    } catch {
                        // Kept in memory all the same; a restart then polls the feed as if nothing had happened.
                        environment.logger.warning(
                            "feed schedule not saved", metadata: ["feed.id": "\(feed.id)", "error": "\(error)"])
                    }
                },
                gate: polling?.feedGate(feed) { saved in remembered.withLock { $0 = saved } },
                observe: { report in
                    environment.metrics.polled(report)
                    if let asked = report.decision.cappedFrom {
                        environment.logger.warning(
                            "feed wait capped",
                            metadata: [
                                "feed.id": "\(feed.id)", "asked": "\(asked) s", "decision": "\(report.decision)",
                            ])
                    }
                }
            ) {
                let polled = await rounds.poll(feed)
                // What the change queued goes out now, not at the outbox loop's next look.
                _ = await rounds.deliverLogged()
                return polled.outcome
            }
        }
    }

    /// The loop that delivers what waits (held pushes whose time came, retries, a crashed run's outbox), every
    /// second, backing off on a store failure.
    static func outboxLoop(rounds: Rounds, clock: any Clock<Duration>, environment: WorkerEnvironment) -> PollLoop {
        PollLoop(
            name: "outbox", policy: PollSchedule.Policy(interval: .seconds(1), backoffCap: .seconds(30)),
            clock: clock, now: environment.now, random: environment.random
        ) {
            await rounds.deliverLogged() == nil
                ? PollOutcome(.failed(.store), message: rounds.lastStoreFailure) : PollOutcome(.fresh)
        }
    }

    /// The loop of the timer rules: a pass every `timer-interval` seconds (on a shared store, on the worker
    /// that polls).
    static func timerLoop(
        _ loaded: LoadedConfig, rounds: Rounds, polling: SharedPolling?, clock: any Clock<Duration>,
        environment: WorkerEnvironment
    ) -> PollLoop {
        PollLoop(
            name: "timers",
            policy: PollSchedule.Policy(interval: .seconds(loaded.config.timerInterval), backoffCap: .seconds(60)),
            clock: clock, now: environment.now, random: environment.random,
            gate: polling?.timerGate(interval: loaded.config.timerInterval)
        ) {
            await rounds.timers().outcome
        }
    }

    /// What one poll and one delivery round do, shared by the loops and ``runOnce()``.
    struct Rounds: Sendable {
        let pipeline: Pipeline
        let fetcher: FeedFetcher
        let deliveries: DeliveryHealth
        let defaultProvider: String
        let environment: WorkerEnvironment
        /// On a shared store: whether this worker polls now (then it alone releases pushes).
        let polls: (@Sendable () -> Bool)?
        /// The connections each provider's push lane holds open now, by host.
        let connections: @Sendable () -> [(provider: String, host: String, count: Int)]
        private let failure = LastFailure()

        init(
            pipeline: Pipeline, fetcher: FeedFetcher, deliveries: DeliveryHealth, defaultProvider: String,
            environment: WorkerEnvironment, polls: (@Sendable () -> Bool)? = nil,
            connections: @escaping @Sendable () -> [(provider: String, host: String, count: Int)] = { [] }
        ) {
            self.polls = polls
            self.connections = connections
            self.pipeline = pipeline
            self.fetcher = fetcher
            self.deliveries = deliveries
            self.defaultProvider = defaultProvider
            self.environment = environment
        }

        var logger: Logger { environment.logger }

        /// Polls a feed; a state-store failure is this poll's failure (kind `store`), logged.
        func poll(_ feed: FeedRuntime) async -> FeedPollResult {
            let now = environment.now()
            do {
                let polled = try await pipeline.poll(feed, fetcher: fetcher, now: now)
                if let error = polled.plan.feedError {
                    logger.warning(
                        "feed error",
                        metadata: ["feed.id": "\(feed.id)", "kind": "\(error.kind)", "error": "\(error.description)"])
                }
                return polled
            } catch {
                logger.error("state store failed", metadata: ["feed.id": "\(feed.id)", "error": "\(error)"])
                var plan = PollPlan(feed: feed.id, now: now)
                plan.feedError = FeedError(kind: .store, feed: feed.id, url: redact(feed.url), message: "\(error)")
                return FeedPollResult(plan: plan, outcome: PollOutcome(.failed(.store), message: "\(error)"))
            }
        }

        /// One pass of the timer rules; a state-store failure is the pass's outcome, logged. What the pass
        /// queued goes out at once unless `deliver` is false (the caller delivers).
        func timers(deliver: Bool = true) async -> (outcome: PollOutcome, report: TimerReport) {
            let now = environment.now()
            do {
                let pass = try await pipeline.timers(now: now)
                let report = TimerReport(pass)
                if !pass.steps.isEmpty {
                    logger.info(
                        "timer rules came due",
                        metadata: ["activities": "\(pass.due)", "pushes": "\(report.queued)"])
                }
                if deliver, report.queued > 0 { _ = await deliverLogged() }
                var outcome = PollOutcome(.fresh)
                outcome.changes = pass.due
                outcome.pushes = report.queued
                return (outcome, report)
            } catch {
                logger.error("state store failed", metadata: ["during": "timer pass", "error": "\(error)"])
                environment.metrics.storeFailed()
                var report = TimerReport()
                report.error = error.description
                return (PollOutcome(.failed(.store), message: error.description), report)
            }
        }

        /// Releases what the throttle allows into the outbox, delivers what is due, and counts the round.
        func deliver() async throws(StoreFailure) -> DeliveryReport {
            let now = environment.now()
            // On a shared store only the worker that polls releases: it alone holds the throttle's pending
            // pushes (another worker's copy of a state, read for the API, must never release them too).
            let releases = polls?() ?? true
            let decisions = releases ? try await pipeline.release(now: now) : []
            let sent = try await pipeline.deliverDue(now: now)
            var report = DeliveryReport(
                defaultProvider: defaultProvider, decisions: decisions, deliveries: sent, routes: pipeline.rules.routes)
            // The whole outbox (shared on PostgreSQL), read every round, also when this worker sent nothing:
            // the gauge is true on every worker.
            let depth = try await pipeline.store.outboxStatus().depth
            environment.metrics.outboxDepth(depth)
            for lane in connections() {
                environment.metrics.pushConnections(lane.count, provider: lane.provider, host: lane.host)
            }
            report.pending = await pipeline.queue.pendingCount + depth
            deliveries.record(report)
            logRound(decisions: decisions, deliveries: sent, report: report)
            return report
        }

        /// ``deliver()``, a state-store failure logged and counted instead of thrown (`nil`).
        func deliverLogged() async -> DeliveryReport? {
            do {
                let report = try await deliver()
                failure.note(nil)
                return report
            } catch {
                // A round cut short by the stop (past the grace period) is not a store failure: what it did
                // not record stays in the outbox for the next run.
                if Task.isCancelled {
                    logger.info("delivery round cut short by the stop; its unanswered pushes stay in the outbox")
                    return nil
                }
                failure.note(error.description)
                logger.error("state store failed", metadata: ["during": "delivery", "error": "\(error)"])
                environment.metrics.storeFailed()
                return nil
            }
        }

        /// The last delivery round's state-store failure, if it failed.
        var lastStoreFailure: String? { failure.last }
    }
}
