import Delivery
import Feeds
import Foundation
import HTTP
import LiveRelayCore
import LiveRelayTesting
import Logging
import Store
import Synchronization
import Worker

/// Two loopback feeds through the real pipeline: `markets` (Binance 24-hour tickers, the binance-btc-bnb
/// sequence) and `scores` (ESPN, the AUS v EGY sequence from kick-off), with the shared rule files, a real
/// SQLite file, the real CurlTransport, and a provider that records every push.
final class FeedTestBed: Sendable {
    final class Recorder: PushProvider {
        let name = "recorder"
        let pushes = Mutex<[LiveActivityPush]>([])
        func deliver(_ push: LiveActivityPush, to target: PushTarget) async -> DeliveryOutcome {
            pushes.withLock { $0.append(push) }
            return .delivered
        }
        var all: [LiveActivityPush] { pushes.withLock { $0 } }
        func of(_ prefix: String) -> [LiveActivityPush] { all.filter { $0.activity.rawValue.hasPrefix(prefix) } }
    }

    let markets: FeedServer
    let scores: FeedServer
    let directory: URL
    let loaded: LoadedConfig
    let store: SQLiteStore
    let pipeline: Pipeline
    let transport: CurlTransport
    let recorder = Recorder()
    /// 2019-08-22T03:38:26Z, when the Binance recording was made.
    static let start = 1_566_445_106

    init(marketsOptions: FeedServerOptions = .init()) async throws {
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
                    "max-body-bytes": .int(512 << 10),
                    "preset": ["name": "binance", "symbols": ["BTCUSDT", "ETHUSDT", "BNBUSDT"]],
                ],
                [
                    "id": "scores", "url": .string(scores.url), "interval": 15,
                    "preset": "espn-scoreboard",
                ],
            ],
        ]
        let path = directory.appendingPathComponent("liverelay.json").path
        try config.jsonString().write(toFile: path, atomically: true, encoding: .utf8)
        loaded = try ConfigLoader.load(path: path)
        store = try SQLiteStore(path: loaded.resolve(loaded.config.state))
        pipeline = try await WorkerFactory.pipeline(
            for: loaded, rules: WorkerFactory.rules(for: loaded), store: store, provider: recorder,
            logger: Logger(label: "test"))
        transport = try CurlTransport()
    }

    func feed(_ id: String) -> FeedRuntime { loaded.feeds.first { $0.id == id }! }

    var fetcher: FeedFetcher { FeedFetcher(transport: transport) }

    /// A poller on its own test clock, whose wall time is `start` plus the clock's offset; no jitter.
    func poller(_ id: String, clock: TestClock, timeout: Int? = nil) -> FeedPoller<TestClock> {
        var runtime = feed(id)
        if let timeout { runtime.timeout = timeout }
        return pipeline.poller(
            for: runtime, fetcher: fetcher, clock: clock,
            now: { FeedTestBed.start + Int(clock.now.offset.components.seconds) }, random: { 0 },
            logger: Logger(label: "test"))
    }

    func stop() async {
        transport.shutdown()
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
