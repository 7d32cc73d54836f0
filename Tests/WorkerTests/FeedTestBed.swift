import Delivery
import Feeds
import Foundation
import HTTP
import LiveRelayCore
import LiveRelayTesting
import Logging
import Store
import Worker
import WorkerTesting

/// Two loopback feeds through the worker the composition root builds: `markets` (Binance 24-hour tickers,
/// the binance-btc-bnb sequence) and `scores` (ESPN, the AUS v EGY sequence from kick-off), with the shared
/// rule files, a real SQLite file, the real CurlTransport, a provider that records every push, and a test
/// clock whose offset moves the wall time on from ``start``.
final class FeedTestBed: Sendable {
    let markets: FeedServer
    let scores: FeedServer
    let directory: URL
    let loaded: LoadedConfig
    let store: SQLiteStore
    let worker: LiveRelayWorker
    let recorder = RecordingProvider()
    let clock = TestClock()
    /// 2019-08-22T03:38:26Z, when the Binance recording was made.
    static let start = 1_566_445_106

    /// - Parameter timeouts: request timeouts by feed id (seconds), instead of the default 10.
    init(marketsOptions: FeedServerOptions = .init(), timeouts: [String: Int] = [:]) async throws {
        let marketBodies = try FeedServer.bodies(
            ofSequence: Repository.path("Samples/sequences/binance-btc-bnb/sequence.json"))
        markets = try await FeedServer.start(
            bodies: marketBodies, path: "/api/v3/ticker/24hr", etags: marketsOptions.etags,
            cacheControl: marketsOptions.cacheControl)
        let scoreBodies = try FeedServer.bodies(
            ofSequence: Repository.path("Samples/sequences/espn-aus-egy-preset/sequence.json"))
        scores = try await FeedServer.start(
            bodies: Array(scoreBodies.dropFirst()), path: "/apis/site/v2/sports/soccer/fifa.world/scoreboard")
        directory = try Repository.temporaryDirectory()
        let config: JSONValue = [
            "state": "state.sqlite",
            "rules": [
                .string(Repository.path("Rules/markets.rules.json")),
                .string(Repository.path("Rules/sports.rules.json")),
            ],
            "feeds": [
                [
                    "id": "markets", "url": .string(markets.url), "interval": 10,
                    "timeout": .int(timeouts["markets"] ?? 10),
                    "max-body-bytes": .int(512 << 10),
                    "preset": ["name": "binance", "symbols": ["BTCUSDT", "ETHUSDT", "BNBUSDT"]],
                ],
                [
                    "id": "scores", "url": .string(scores.url), "interval": 15,
                    "timeout": .int(timeouts["scores"] ?? 10),
                    "preset": "espn-scoreboard",
                ],
            ],
        ]
        let path = directory.appendingPathComponent("liverelay.json").path
        try config.jsonString().write(toFile: path, atomically: true, encoding: .utf8)
        loaded = try ConfigLoader.load(path: path)
        store = try SQLiteStore(path: loaded.resolve(loaded.config.state))
        worker = try await LiveRelayWorker.build(
            loaded, rules: loaded.loadRules(), store: store,
            environment: .test(
                clock: clock, now: clock.wallTime(from: Self.start), providers: [loaded.defaultProviderID: recorder]))
    }

    func feed(_ id: String) -> FeedRuntime { loaded.feeds.first { $0.id == id }! }

    /// The poll loop of a feed, as `run` runs it.
    func loop(_ id: String) -> PollLoop { worker.feedLoops.first { $0.name == id }! }

    /// Polls a feed once at the clock's time, as its loop does, and moves the clock on by the delay its
    /// schedule decided (what the loop would sleep); returns that delay.
    @discardableResult
    func pollAndWait(_ id: String) async -> Duration {
        let report = await loop(id).pollOnce()
        clock.advance(by: report.decision.delay)
        return report.decision.delay
    }

    /// One pass over `feeds` as `tick` makes it, the clock moved to `at` (UNIX seconds) first.
    func tick(_ feeds: [FeedRuntime], at: Int) async throws -> TickReport {
        clock.advance(to: TestClock.Instant(offset: .seconds(at - Self.start)))
        return try await worker.runOnce(feeds: feeds)
    }

    func stop() async {
        worker.shutdown()
        try? await markets.stop()
        try? await scores.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// How the markets feed serves its bodies.
struct FeedServerOptions {
    var etags = false
    var cacheControl: String?
}
