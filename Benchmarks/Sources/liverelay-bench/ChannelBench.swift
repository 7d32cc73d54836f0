import ArgumentParser
import Crypto
import Delivery
import Foundation
import HTTP
import LiveRelayCore
import LiveRelayTesting
import Logging
import Rules
import Store
import Synchronization
import Throttling
import Worker

/// Broadcast channels at scale. `goal`: one update of a match followed by N devices, through the real
/// pipeline (throttle, outbox, sender, APNs provider over libcurl) into a loopback HTTP/2 + TLS server
/// (`scripts/bench/fanout-server.sh`), in token mode (a request per device) and in both mode (one broadcast
/// plus a request per device that is not a channel subscriber). `scale`: 10,000 matches' channels created,
/// broadcast to and deleted against the in-process fake APNs (which enforces the 10,000-channel limit), and
/// 10,000 stale channels collected.
struct ChannelBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "channels",
        abstract: "The goal moment of a match followed by 1,000,000 devices in token and both mode; 10,000 channels.")

    @Option(help: "goal, scale or all.") var part = "all"
    @Option(help: "The loopback server's base URL (goal; fanout-server.sh prints it).") var url: String?
    @Option(help: "The CA that signed the server's certificate (goal).") var ca: String?
    @Option(help: "A .p8 key for the provider token (goal).") var key: String?
    @Option(help: "Devices following the match (goal).") var devices = 1_000_000
    @Option(help: "Per cent of them that are channel subscribers (iOS 18), in both mode.") var subscribers = 90
    @Option(help: "HTTP/2 connections of the push lane (streams: as many as the server allows).") var connections = 1
    @Option(help: "Matches (scale).") var matches = 10_000

    func run() async throws {
        if part == "goal" || part == "all" {
            guard let url, let ca, let key else {
                throw ValidationError("goal needs --url, --ca and --key (scripts/bench/fanout-server.sh start)")
            }
            var rows: [[String]] = []
            for mode in [ActivityMode.token, .both] {
                rows.append(try await goal(mode: mode, url: url, ca: ca, key: key))
            }
            print(
                "The goal moment of a match followed by \(devices) devices (\(subscribers) % channel subscribers in both mode)"
            )
            printTable(
                ["mode", "requests", "devices reached", "wall s", "CPU s", "requests/s", "devices/s"], rows)
        }
        if part == "scale" || part == "all" {
            try await scale()
        }
    }

    /// The goal of one match in `mode`: the update released, written to the outbox and delivered.
    func goal(mode: ActivityMode, url: String, ca: String, key: String) async throws -> [String] {
        let dir = try benchDirectory("channels")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try SQLiteStore(path: dir.appendingPathComponent("state.sqlite").path)
        let activity = ActivityKey("match-1")
        // Token mode: every device reported an update token; both mode: only those that are not channel
        // subscribers (the others' activities were started on the channel and have none).
        let withTokens = mode == .token ? devices : devices * (100 - subscribers) / 100
        var batch: [(activity: ActivityKey, device: String, token: String, environment: PushEnvironment)] = []
        for i in 0..<withTokens {
            batch.append(
                (activity, "d\(i)", String(format: "%08x", i) + String(repeating: "ab", count: 76), .production))
            if batch.count == 100_000 {
                try await store.importActivityTokens(batch, now: 0)
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty { try await store.importActivityTokens(batch, now: 0) }
        if mode != .token {
            try await store.saveChannel(
                ActivityChannel(
                    activity: activity, provider: "apns", id: "bWF0Y2gtMS1jaGFubmVs", storagePolicy: 0, createdAt: 0,
                    subscribers: devices - withTokens))
        }
        try await store.save([
            ActivityRecord(
                key: activity, attributesType: "MatchAttributes", phase: .active,
                state: ["homeScore": 0, "awayScore": 0], lastTimestamp: 1_783_104_000)
        ])
        // The push lane, as the APNs provider sends by default (as many streams as the server allows).
        let transport = try HTTP2Lane(configuration: HTTP2Lane.Configuration(caFile: ca, connections: connections))
        let provider = APNsProvider(
            configuration: APNsProvider.Configuration(
                endpoint: APNsEndpoint(url: url, environment: .production), bundleID: "com.example.scores",
                requestTimeout: .seconds(60),
                broadcast: APNsProvider.Broadcast(url: url, management: .init(url: url), maxBroadcasts: 0)),
            key: try APNsSigningKey(
                pem: Secret(String(contentsOfFile: key, encoding: .utf8)), keyID: "BENCHKEY01", teamID: "BENCHTEAM1"),
            transport: transport)
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        var routes = ProviderRoutes(defaultProvider: "apns")
        routes.modeByAttributesType["MatchAttributes"] = mode
        let queue = try await StoredThrottle(store: store, configuration: ThrottleConfiguration())
        let pipeline = Pipeline(
            store: store, rules: RuleBook(RuleEngine(rules: []), routes: routes), queue: queue,
            senders: ["apns": Sender(provider: provider, logger: logger)], logger: logger)
        // Warm up: the connection, TLS and the provider token.
        _ = await provider.deliver(
            Self.goal(at: 1_783_104_000), to: PushTarget(kind: .activity, token: String(repeating: "cd", count: 80)))
        let now = 1_783_104_060
        _ = try await queue.submit([PendingPush(push: Self.goal(at: now), policy: .high, enqueuedAt: now)], now: now)
        let cpu0 = cpuSeconds()
        let start = ContinuousClock.now
        var tokens = 0
        var broadcasts = 0
        var reached = 0
        repeat {
            _ = try await pipeline.release(now: now)
            for delivery in try await pipeline.deliverDue(now: now) {
                let requests = delivery.deliveredRequests
                tokens += requests.tokens
                broadcasts += requests.broadcasts
                reached += requests.broadcasts * delivery.reach
            }
        } while try await store.outboxStatus().depth > 0
        let wall = (ContinuousClock.now - start).seconds
        let cpu = cpuSeconds() - cpu0
        let requests = tokens + broadcasts
        return [
            mode.rawValue, "\(requests) (\(broadcasts) broadcast\(broadcasts == 1 ? "" : "s"))", "\(tokens + reached)",
            String(format: "%.2f", wall), String(format: "%.2f", cpu), String(format: "%.0f", Double(requests) / wall),
            String(format: "%.0f", Double(tokens + reached) / wall),
        ]
    }

    static func goal(at timestamp: Int) -> LiveActivityPush {
        LiveActivityPush(
            activity: "match-1", attributesType: "MatchAttributes", event: .update, timestamp: timestamp,
            contentState: ["homeScore": 1, "awayScore": 0, "clock": "44'", "status": "STATUS_FIRST_HALF"],
            alert: LiveActivityAlert(title: "Goal! Australia", body: "AUS 1–0 EGY (44')"),
            relevanceScore: RelevanceScore(100), priority: .high)
    }

    /// 10,000 matches' channels against the fake APNs: created (the limit holds), broadcast to once each,
    /// deleted; then as many stale ones collected.
    func scale() async throws {
        let authority = try TestCertificateAuthority()
        let signing = P256.Signing.PrivateKey()
        let fake = try await FakeAPNs.start(
            authority: authority,
            configuration: FakeAPNs.Configuration(
                keyID: "BENCHKEY01", teamID: "BENCHTEAM1", publicKey: signing.publicKey, bundleID: "com.example.scores",
                maxConcurrentStreams: 1000))
        defer { Task { try? await fake.stop() } }
        var http = CurlTransport.Configuration()
        http.caFile = authority.caFile
        http.maxConnectionsPerHost = 1
        http.maxConcurrentStreams = 100
        let transport = try CurlTransport(configuration: http)
        defer { transport.shutdown() }
        let provider = APNsProvider(
            configuration: APNsProvider.Configuration(
                endpoint: APNsEndpoint(url: fake.url, environment: .production), bundleID: "com.example.scores",
                requestTimeout: .seconds(60),
                broadcast: APNsProvider.Broadcast(url: fake.url, management: .init(url: fake.url), maxBroadcasts: 0)),
            key: APNsSigningKey(key: signing, keyID: "BENCHKEY01", teamID: "BENCHTEAM1"), transport: transport)
        guard let channels = provider.channels else { throw ValidationError("no channels") }
        var rows: [[String]] = []
        func timed(_ name: String, _ count: Int, _ body: () async throws -> Void) async rethrows {
            let start = ContinuousClock.now
            try await body()
            let wall = (ContinuousClock.now - start).seconds
            rows.append([name, "\(count)", String(format: "%.2f", wall), String(format: "%.0f", Double(count) / wall)])
        }
        // A request the connection lost is tried again, as the sender and the collector do; counted.
        let retries = RetryCount()
        var created: [String] = []
        try await timed("create a channel per match", matches) {
            created = try await Self.concurrently(matches) { _ in
                try await Self.again(retries) { try await channels.create() }
            }
        }
        let ids = created
        var refused = "no"
        do throws(ChannelFailure) {
            _ = try await channels.create()
        } catch {
            refused = error.kind == .limitReached ? "yes (CannotCreateChannelConfig)" : "\(error)"
        }
        let update = Self.goal(at: 1_783_104_060)
        try await timed("one broadcast to each", matches) {
            let outcomes = await Self.concurrently(ids.count) { i in
                var outcome = await provider.deliver(update, to: .broadcast(ids[i]))
                for _ in 1..<3 where outcome.isRetry {
                    retries.add()
                    outcome = await provider.deliver(update, to: .broadcast(ids[i]))
                }
                return outcome
            }
            if let failed = outcomes.first(where: { $0 != .delivered }) {
                throw ValidationError("a broadcast failed: \(failed)")
            }
        }
        try await timed("delete each", matches) {
            _ = try await Self.concurrently(ids.count) { i in
                try await Self.again(retries) { try await channels.delete(ids[i]) }
            }
        }
        // A crash left as many channels no state file knows: the collector finds and deletes them.
        _ = try await Self.concurrently(matches) { _ in
            try await Self.again(retries) { try await channels.create() }
        }
        let dir = try benchDirectory("channels-gc")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try SQLiteStore(path: dir.appendingPathComponent("state.sqlite").path)
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        let pipeline = Pipeline(
            store: store, rules: RuleBook(RuleEngine(rules: []), routes: ProviderRoutes(defaultProvider: "apns")),
            queue: try await StoredThrottle(store: store, configuration: ThrottleConfiguration()),
            senders: ["apns": Sender(provider: provider, logger: logger)], logger: logger)
        var stale = 0
        try await timed("collect stale channels (list, decide, delete)", matches) {
            let sweeps = try await pipeline.collectChannels(dryRun: false, now: 0)
            stale = sweeps.first?.stale.count ?? 0
        }
        print(
            "\(matches) matches against the fake APNs (in process, limit 10,000): the next create refused: \(refused); "
                + "stale found: \(stale), left at APNs: \(fake.channels.count); requests tried again: \(retries.value)")
        printTable(["case", "requests", "wall s", "requests/s"], rows)
    }

    /// `body`, again up to twice when the connection lost it (as the sender and the collector would).
    static func again<T: Sendable>(_ retries: RetryCount, _ body: @Sendable () async throws -> T) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await body()
            } catch let error as ChannelFailure where error.kind == .retry && attempt < 3 {
                retries.add()
                attempt += 1
            }
        }
    }

    /// `body(i)` for `0..<count`, 64 at a time; results in order.
    static func concurrently<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) async throws -> T)
        async rethrows -> [T]
    {
        try await withThrowingTaskGroup(of: (Int, T).self) { group in
            var results = [T?](repeating: nil, count: count)
            var next = 0
            while next < min(count, 64) {
                let i = next
                group.addTask { (i, try await body(i)) }
                next += 1
            }
            while let (i, value) = try await group.next() {
                results[i] = value
                if next < count {
                    let j = next
                    group.addTask { (j, try await body(j)) }
                    next += 1
                }
            }
            return results.map { $0! }
        }
    }
}

/// Counts retries across tasks.
final class RetryCount: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
