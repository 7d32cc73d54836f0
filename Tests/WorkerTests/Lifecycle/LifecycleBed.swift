import Foundation
import LiveRelayCore
import LiveRelayTesting
import Logging
import Store
import Synchronization
import Worker
import WorkerTesting

/// The worker on the recorded match (fed by a feed server) and the fake APNs, with the wall clock in hand:
/// each step is one `tick`-like pass.
struct LifecycleBed {
    let worker: LiveRelayWorker
    let store: SQLiteStore
    let fake: FakeAPNs
    let feed: FeedServer
    let wall: Wall
    let loaded: LoadedConfig

    /// The wall clock, moved by hand (from the real time: the fake APNs checks provider tokens against its
    /// own).
    final class Wall: Sendable {
        private let seconds = Mutex(Int(Date().timeIntervalSince1970))
        var now: Int { seconds.withLock { $0 } }
        func advance(_ by: Int) { seconds.withLock { $0 += by } }
    }

    /// Moves the feed to `step`, the clock by a minute, and runs one pass.
    @discardableResult
    func step(_ step: Int) async throws -> TickReport {
        feed.advance(to: step)
        wall.advance(60)
        return try await worker.runOnce()
    }

    var now: Int { wall.now }

    /// The tokens the fake accepted starts on, in order.
    var startTokens: [String] { tokens(of: "start") }

    /// The tokens the fake accepted pushes of `event` on, in order.
    func tokens(of event: String) -> [String] {
        fake.accepted.filter { (try? JSONParser.parse($0.body))?["aps"]?["event"] == .string(event) }.map(\.token)
    }

    /// Runs `body` on a bed whose config has `throttle` (when given) and whose registry `registering` filled.
    static func with(
        throttle: JSONValue? = nil, busyTimeout: Duration = .seconds(5),
        logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
        registering: @escaping (SQLiteStore) async throws -> Void, _ body: (LifecycleBed) async throws -> Void
    ) async throws {
        try await MatchReplay.withFakeAPNs { setup, fake in
            let feed = try await RunWithAPNs.feedServer()
            try await feed.serving { feed in
                try RunWithAPNs.prepare(setup, feed: feed)
                if let throttle {
                    var config = try JSONParser.parse(Data(contentsOf: URL(fileURLWithPath: setup.configPath)))
                    if case .object(var object) = config {
                        object["throttle"] = throttle
                        config = .object(object)
                    }
                    try config.jsonData().write(to: URL(fileURLWithPath: setup.configPath))
                }
                let loaded = try ConfigLoader.load(path: setup.configPath)
                let store = try SQLiteStore(path: loaded.resolve(loaded.config.state), busyTimeout: busyTimeout)
                try await registering(store)
                let wall = Wall()
                let worker = try await LiveRelayWorker.build(
                    loaded, rules: loaded.loadRules(), store: store,
                    environment: .test(
                        now: { wall.now }, logger: logger, variables: ["LIVERELAY_TEST_BEARER": "b"]))
                defer { worker.shutdown() }
                try await body(
                    LifecycleBed(worker: worker, store: store, fake: fake, feed: feed, wall: wall, loaded: loaded))
            }
        }
    }
}
