public import Delivery
import Feeds
import Foundation
import LiveRelayCore
import LiveRelayTesting
import Store
public import Worker

/// A recorded sequence replayed as `liverelay replay` does, through the composition root, with a
/// temporary state file.
public enum SequenceReplay {
    /// Replays `sequence` (a sequence file, from the repository root unless absolute) through `config` (also).
    /// - Parameters:
    ///   - provider: replaces the config's default provider when given (a ``RecordingProvider``).
    ///   - output: receives what the replay prints, and what the console provider prints.
    public static func run(
        config: String, sequence: String, provider: (any PushProvider)? = nil, plotted: [String] = [],
        output: @escaping @Sendable (String) -> Void = { _ in }
    ) async throws -> ReplaySummary {
        let loaded = try ConfigLoader.load(path: config.hasPrefix("/") ? config : Repository.path(config))
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(path: directory.appendingPathComponent("state.sqlite").path)
        let worker = try await LiveRelayWorker.build(
            loaded, rules: loaded.loadRules(), store: store,
            environment: .test(
                output: output, providers: provider.map { [loaded.defaultProviderID: $0] } ?? [:]))
        defer { worker.shutdown() }
        let path = sequence.hasPrefix("/") ? sequence : Repository.path(sequence)
        let recorded = try ReplaySequence.load(path: path, knownFeeds: Set(loaded.feeds.map(\.id)))
        let feed = loaded.feeds.first { $0.id == recorded.feed }!
        let others = loaded.feeds.filter { recorded.feeds.dropFirst().contains($0.id) }
        var replayer = Replayer(pipeline: worker.pipeline, feed: feed, others: others, write: output)
        replayer.defaultEnvironment = worker.defaultEnvironment ?? .production
        replayer.plotted = plotted
        return try await replayer.replay(
            recorded, directory: URL(fileURLWithPath: path).deletingLastPathComponent().path)
    }
}
