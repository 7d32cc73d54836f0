import ArgumentParser
import Delivery
import Foundation
import LiveRelayCore
import Logging
import PostgresStore
import Rules
import Store
import Throttling
import Worker

/// Personal price alerts at scale: a million subscriptions on one symbol, each with its own level, through
/// the pipeline (`Pipeline.plan` with the config's Binance preset and Rules/personal-alerts.rules.json, then
/// `release`): the first poll (the subscriptions read and indexed), a poll whose price crosses 1,000 levels
/// (their starts evaluated, decided and released into the outbox), and polls that cross none.
struct PersonalBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "personal",
        abstract:
            "1,000,000 subscriptions with personal levels on one symbol: load, a poll crossing 1,000 levels, polls crossing none."
    )

    @Option(help: "Subscriptions on BTCUSDT.") var subscriptions = 1_000_000
    @Option(help: "Of them, levels the measured move crosses (each with a push-to-start token).") var crossed = 1_000
    @Option(help: "Polls that cross no level, measured.") var quiet = 20
    @Option(help: "The config (feed preset, rules, contract).") var config = "Samples/presets/personal-alerts.json"
    @Option(help: "token, or channel: the alerts of the symbol share one broadcast channel.") var mode = "token"
    @Option(help: "postgres://user@host:port/database: the state in PostgreSQL (a schema of its own), not SQLite.")
    var postgresURL: String?
    @Option(help: "The environment variable holding the PostgreSQL password.") var passwordEnv: String?
    @Option(
        help:
            "A perf control FIFO (`perf record -D -1 --control fifo:PATH`): profiling is enabled for the crossing poll and its release only."
    ) var perfControl: String?

    func validate() throws {
        guard quiet > 0 else { throw ValidationError("--quiet must be at least 1: its median is reported") }
    }

    func run() async throws {
        let dir = try benchDirectory("personal")
        defer { try? FileManager.default.removeItem(at: dir) }
        let loaded = try ConfigLoader.load(path: config)
        let rules = loaded.loadRules()
        guard !rules.diagnostics.contains(where: \.isError) else { throw ValidationError("\(rules.diagnostics)") }
        let store: any StateStore
        var finish: () async -> Void = {}
        if let postgresURL {
            let password = passwordEnv.flatMap { ProcessInfo.processInfo.environment[$0] }.map(Secret.init)
            let schema = "personal_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
            let postgres = try PostgresStore(.init(url: postgresURL, password: password, schema: String(schema)))
            let pool = Task { await postgres.run() }
            try await postgres.open()
            // It beats as `liverelay run` does.
            let beat = Task {
                while !Task.isCancelled {
                    _ = try? await postgres.heartbeat()
                    try? await Task.sleep(for: postgres.heartbeatInterval)
                }
            }
            finish = {
                beat.cancel()
                try? await postgres.dropSchema()
                pool.cancel()
            }
            store = postgres
        } else {
            store = try SQLiteStore(path: dir.appendingPathComponent("state.sqlite").path)
        }
        do {
            try await measure(store, loaded: loaded, rules: rules)
        } catch {
            await finish()
            throw error
        }
        await finish()
    }

    private func measure(_ store: any StateStore, loaded: LoadedConfig, rules: RuleSet) async throws {
        let btc = EntityKey(feed: "markets", id: "BTCUSDT")
        let rssBefore = peakRSSMegabytes()

        // The crossed levels lie between 98,950 and 100,120.50 (the move of 03-btc-crosses.json); the others
        // far above.
        let setup = ContinuousClock.now
        var batch: [Subscription] = []
        for i in 0..<subscriptions {
            let level: Double =
                i < crossed ? 99_000 + Double(i) * 1_000 / Double(crossed) : 200_000 + Double(i) / 100
            batch.append(
                Subscription(
                    id: String(format: "sub-%07d", i), device: String(format: "iphone-%07d", i), entity: btc,
                    parameters: ["above": .double(level)], createdAt: 1_795_528_000))
            if batch.count == 100_000 || i == subscriptions - 1 {
                try await store.importSubscriptions(batch, now: 1_795_528_000)
                batch.removeAll(keepingCapacity: true)
            }
            if i < crossed {
                try await store.registerPushToStartToken(
                    device: String(format: "iphone-%07d", i), attributesType: "PersonalAlertAttributes",
                    token: String(format: "%08x", i) + String(repeating: "ab", count: 28), environment: .production,
                    now: 1_795_528_000)
            }
        }
        let setupSeconds = (ContinuousClock.now - setup).seconds

        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        let queue = try await StoredThrottle(store: store, configuration: ThrottleConfiguration())
        let channel = mode == "channel"
        let console = ConsoleProvider(
            encoder: APNsRequestEncoder(bundleID: "com.example.prices"), write: { _ in },
            channels: channel
                ? APNsProvider.Broadcast(url: "https://console.invalid", management: .production, maxBroadcasts: 0)
                : nil)
        var routes = ProviderRoutes(defaultProvider: "console")
        if channel { routes.entityChannels["PersonalAlertAttributes"] = .channel }
        let pipeline = Pipeline(
            store: store,
            rules: RuleBook(RuleEngine(rules: rules.rules), routes: routes),
            queue: queue, senders: ["console": Sender(provider: console, logger: logger)], logger: logger)
        let feed = loaded.feeds[0]
        func body(_ name: String) throws -> Data {
            try Data(contentsOf: URL(fileURLWithPath: "Samples/sequences/binance-btc-alert/" + name))
        }
        let first = try body("02-eth-moves.json")
        let cross = try body("03-btc-crosses.json")
        // Small moves crossing no level and moving no alert: below every level before the crossing (the first
        // poll's 98,950), above the crossed ones after it (its 100,120.50).
        let text = String(decoding: cross, as: UTF8.self)
        let low = ["98960.00000000", "98955.00000000"].map {
            Data(
                text.replacingOccurrences(of: "\"lastPrice\":\"100120.50000000\"", with: "\"lastPrice\":\"\($0)\"").utf8
            )
        }
        let calm = ["100130.00000000", "100125.00000000"].map {
            Data(
                text.replacingOccurrences(of: "\"lastPrice\":\"100120.50000000\"", with: "\"lastPrice\":\"\($0)\"").utf8
            )
        }
        var now = 1_795_528_800

        // The first poll: BTC seen for the first time, its subscriptions read and indexed.
        var start = ContinuousClock.now
        _ = try await pipeline.plan(feed: feed, body: first, now: now)
        let load = (ContinuousClock.now - start).seconds
        let rssLoaded = peakRSSMegabytes()

        /// Polls moving the price a little (no level crossed, no running alert moved enough): their times.
        func calmPolls(_ bodies: [Data]) async throws -> (times: [Double], pushes: Int) {
            var times: [Double] = []
            var pushes = 0
            for k in 0..<quiet {
                now += 60
                let start = ContinuousClock.now
                let plan = try await pipeline.plan(feed: feed, body: bodies[k % 2], now: now)
                times.append((ContinuousClock.now - start).seconds)
                pushes += plan.pushes.count
            }
            return (times, pushes)
        }
        let before = try await calmPolls(low)

        now += 60
        let profiler = try perfControl.map { try PerfControl(path: $0) }
        profiler?.send("enable")
        start = ContinuousClock.now
        let cpu0 = cpuSeconds()
        let plan = try await pipeline.plan(feed: feed, body: cross, now: now)
        let planned = (ContinuousClock.now - start).seconds
        let released = try await pipeline.release(now: now)
        let crossing = (ContinuousClock.now - start).seconds
        let crossingCPU = cpuSeconds() - cpu0
        profiler?.send("disable")
        let outbox = try await store.outboxStatus().depth
        // Now with the crossed alerts running: their update rule looks at each of them.
        let after = try await calmPolls(calm)
        // A move of 0.6 % from the crossing: every running alert's update rule fires (token mode: one push to
        // each alert's tokens; channel mode: each alert's record, and one broadcast).
        now += 60
        let moved = Data(
            text.replacingOccurrences(
                of: "\"lastPrice\":\"100120.50000000\"", with: "\"lastPrice\":\"100721.00000000\""
            )
            .utf8)
        let depth = try await store.outboxStatus().depth
        start = ContinuousClock.now
        let movePlan = try await pipeline.plan(feed: feed, body: moved, now: now)
        let moveReleased = try await pipeline.release(now: now)
        let move = (ContinuousClock.now - start).seconds
        let moveRows = try await store.outboxStatus().depth - depth
        print(
            "\(subscriptions) subscriptions on BTCUSDT with their own levels (\(crossed) crossed by the move), Rules/personal-alerts.rules.json, \(mode) mode, \(postgresURL == nil ? "SQLite" : "PostgreSQL"); setup \(String(format: "%.0f", setupSeconds)) s"
        )
        printTable(
            ["case", "pushes", "ms", "peak RSS MB"],
            [
                [
                    "first poll: subscriptions read from the store and indexed", "0", ms(load),
                    String(format: "%.0f (%.0f before)", rssLoaded, rssBefore),
                ],
                [
                    "poll crossing \(crossed) levels: evaluate, decide, commit", "\(plan.pushes.count)", ms(planned),
                    "-",
                ],
                [
                    "… and release them into the outbox (targets read)", "\(released.count) released, \(outbox) rows",
                    ms(crossing) + String(format: " (CPU %.0f ms)", crossingCPU * 1000), "-",
                ],
                [
                    "polls crossing none, no alert running (median of \(quiet))", "\(before.pushes)",
                    ms(percentile(before.times, 0.5)), "-",
                ],
                [
                    "polls crossing none, \(crossed) alerts running (median of \(quiet))", "\(after.pushes)",
                    ms(percentile(after.times, 0.5)), String(format: "%.0f", peakRSSMegabytes()),
                ],
                [
                    "a move of 0.6 %: every running alert updated, then released",
                    "\(movePlan.pushes.count) pushes, \(moveReleased.count) released, \(moveRows) rows", ms(move), "-",
                ],
            ])
    }
}

/// perf's control FIFO: `enable` and `disable` written to it switch a `perf record -D -1` on and off.
struct PerfControl {
    let handle: FileHandle

    init(path: String) throws {
        guard let handle = FileHandle(forWritingAtPath: path) else {
            throw ValidationError("--perf-control \(path): cannot open the FIFO for writing")
        }
        self.handle = handle
    }

    func send(_ command: String) {
        handle.write(Data((command + "\n").utf8))
    }
}
