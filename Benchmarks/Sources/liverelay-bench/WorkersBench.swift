import ArgumentParser
import Delivery
import Foundation
import HTTP
import LiveRelayCore
import Logging
import PostgresStore
import Rules
import Store
import Throttling
import Worker

/// The goal moment of a match followed by N devices, end to end through the worker's pipeline (release into
/// the outbox, claims, the APNs sender, receipts) on SQLite with one worker and on PostgreSQL with one and
/// two workers (two pipelines, each with its store connection pool, its heartbeat, its sender and its push
/// lane, sharing the fan-out through outbox claims: chunks of it on PostgreSQL).
struct WorkersBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "workers",
        abstract: "A fan-out through the whole pipeline: SQLite, and PostgreSQL with 1 and 2 workers.")

    @Option(help: "The fan-out server's base URL (scripts/bench/fanout-server.sh).") var url: String
    @Option(help: "Its CA.") var ca: String
    @Option(help: "A .p8 key for the provider token.") var key: String
    @Option(help: "postgres://user@host:port/database; without it only SQLite runs.") var postgresURL: String?
    @Option(help: "The environment variable holding the PostgreSQL password.") var passwordEnv: String?
    @Option(help: "Devices following the match.") var devices = 100_000
    @Option(help: "Outbox rows a worker claims at once.") var claimBatch = 1000
    @Option(help: "Requests in flight per worker (the server's stream limit applies too).") var streams = 100

    func run() async throws {
        var rows: [[String]] = []
        let dir = try benchDirectory("workers")
        defer { try? FileManager.default.removeItem(at: dir) }
        let sqlite = try SQLiteStore(path: dir.appendingPathComponent("state.sqlite").path)
        rows.append(try await goal("SQLite", [sqlite]))
        if let postgresURL {
            let password = passwordEnv.flatMap { ProcessInfo.processInfo.environment[$0] }.map(Secret.init)
            for workers in [1, 2] {
                let schema =
                    "bench_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
                let stores = try (0..<workers).map { i in
                    try PostgresStore(
                        .init(
                            url: postgresURL, password: password, schema: String(schema), worker: "w\(i)",
                            claimSeconds: 60))
                }
                let pools = stores.map { store in Task { await store.run() } }
                try await stores[0].open()
                for store in stores.dropFirst() { try await store.open() }
                // Each worker beats as `liverelay run` does: a worker whose heartbeat lapsed claims nothing.
                let beats = stores.map { store in
                    Task {
                        while !Task.isCancelled {
                            _ = try? await store.heartbeat()
                            try? await Task.sleep(for: store.heartbeatInterval)
                        }
                    }
                }
                rows.append(try await goal("PostgreSQL", stores))
                for beat in beats { beat.cancel() }
                try await stores[0].dropSchema()
                for pool in pools { pool.cancel() }
            }
        }
        print(
            "The goal of a match followed by \(devices) devices, through the whole pipeline (claims of \(claimBatch))")
        printTable(
            ["store", "workers", "pushes", "release s", "delivery s", "CPU s", "pushes/s", "CPU µs/push"], rows)
    }

    /// One goal fanned out by one pipeline per store (the first releases it); every store is on the same data.
    func goal(_ name: String, _ stores: [any StateStore]) async throws -> [String] {
        let activity = ActivityKey("match-1")
        var batch: [(activity: ActivityKey, device: String, token: String, environment: PushEnvironment)] = []
        for i in 0..<devices {
            batch.append(
                (activity, "d\(i)", String(format: "%08x", i) + String(repeating: "ab", count: 28), .production))
            if batch.count == 50_000 {
                try await stores[0].importActivityTokens(batch, now: 0)
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty { try await stores[0].importActivityTokens(batch, now: 0) }
        try await stores[0].save([
            ActivityRecord(
                key: activity, attributesType: "MatchAttributes", phase: .active,
                state: ["homeScore": 0, "awayScore": 0], lastTimestamp: 1_783_104_000)
        ])
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        var transports: [HTTP2Lane] = []
        defer { for t in transports { t.shutdown() } }
        var pipelines: [Pipeline] = []
        let signing = try APNsSigningKey(
            pem: Secret(String(contentsOfFile: key, encoding: .utf8)), keyID: "BENCHKEY01", teamID: "BENCHTEAM1")
        for store in stores {
            // The push lane, as the APNs provider sends by default.
            let transport = try HTTP2Lane(configuration: HTTP2Lane.Configuration(caFile: ca, connections: 1))
            transports.append(transport)
            let provider = APNsProvider(
                configuration: APNsProvider.Configuration(
                    endpoint: APNsEndpoint(url: url, environment: .production), bundleID: "com.example.scores",
                    requestTimeout: .seconds(60), maxInFlight: streams),
                key: signing, transport: transport)
            // Warm up: the connection, TLS and the provider token.
            _ = await provider.deliver(
                ChannelBench.goal(at: 1_783_104_000),
                to: PushTarget(kind: .activity, token: String(repeating: "cd", count: 32)))
            let queue = try await StoredThrottle(store: store, configuration: ThrottleConfiguration())
            pipelines.append(
                Pipeline(
                    store: store,
                    rules: RuleBook(RuleEngine(rules: []), routes: ProviderRoutes(defaultProvider: "apns")),
                    queue: queue, senders: ["apns": Sender(provider: provider, logger: logger)], logger: logger,
                    claimBatch: claimBatch))
        }
        let now = 1_783_104_060
        _ = try await pipelines[0].queue.submit(
            [PendingPush(push: ChannelBench.goal(at: now), policy: .high, enqueuedAt: now)], now: now)
        let cpu0 = cpuSeconds()
        let start = ContinuousClock.now
        _ = try await pipelines[0].release(now: now)
        let released = ContinuousClock.now
        let sent = try await withThrowingTaskGroup(of: Int.self) { group in
            for pipeline in pipelines {
                group.addTask {
                    var sent = 0
                    while true {
                        let round = try await pipeline.deliverDue(now: now)
                        if round.isEmpty { break }
                        sent += round.reduce(0) { $0 + $1.deliveredRequests.tokens }
                    }
                    return sent
                }
            }
            return try await group.reduce(0, +)
        }
        let end = ContinuousClock.now
        let cpu = cpuSeconds() - cpu0
        let left = try await stores[0].outboxStatus().depth
        guard left == 0, sent == devices else {
            throw ValidationError("\(name): \(sent) of \(devices) pushes delivered, \(left) rows left")
        }
        let wall = (end - start).seconds
        return [
            name, "\(stores.count)", "\(sent)", String(format: "%.2f", (released - start).seconds),
            String(format: "%.2f", (end - released).seconds), String(format: "%.2f", cpu),
            String(format: "%.0f", Double(sent) / wall), String(format: "%.0f", cpu / Double(sent) * 1e6),
        ]
    }
}
