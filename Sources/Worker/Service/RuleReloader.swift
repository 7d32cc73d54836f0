import Delivery
import Foundation
import LiveRelayCore
public import Logging
import Rules
public import ServiceLifecycle
import Synchronization
import UnixSignals

/// Reloads the rule files on SIGHUP or when one of them changes (looked at every `checkEvery` on the
/// worker's clock): a valid set replaces the running one, with the routes made from it, atomically; an
/// invalid one is refused, every diagnostic is logged (`file:line:column: …`), and the running rules stay.
public final class RuleReloader: Service, Sendable {
    public let loaded: LoadedConfig
    public let book: RuleBook
    private let logger: Logger
    private let clock: any Clock<Duration>
    private let checkEvery: Duration
    private let reloading = Mutex(())

    public init(
        loaded: LoadedConfig, book: RuleBook, logger: Logger, clock: any Clock<Duration> = ContinuousClock(),
        checkEvery: Duration = .seconds(2)
    ) {
        self.loaded = loaded
        self.book = book
        self.logger = logger
        self.clock = clock
        self.checkEvery = checkEvery
    }

    public func run() async throws {
        let paths = loaded.config.rules.map(loaded.resolve)
        let (checkEvery, clock) = (self.checkEvery, self.clock)
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await _ in hangups.cancelOnGracefulShutdown() { self.reload(reason: "SIGHUP") }
            }
            var fingerprint = RuleReloader.fingerprint(paths)
            while !Task.isShuttingDownGracefully {
                try? await cancellingOnGracefulShutdown { try await clock.sleep(for: checkEvery) }
                let now = RuleReloader.fingerprint(paths)
                if now != fingerprint {
                    fingerprint = now
                    reload(reason: "a rule file changed")
                }
            }
            group.cancelAll()
        }
    }

    /// Loads the rules again and swaps them in if every file is valid. Returns whether it swapped.
    /// Reloads are one at a time (SIGHUP and a file change may come together).
    @discardableResult
    public func reload(reason: String) -> Bool {
        reloading.withLock { _ in swap(reason: reason) }
    }

    private func swap(reason: String) -> Bool {
        let set = loaded.loadRules()
        let routes: ProviderRoutes
        do {
            routes = try loaded.routes(for: set)
        } catch {
            for d in error.items {
                logger.error("rule reload refused", metadata: ["diagnostic": "\(d)", "trigger": "\(reason)"])
            }
            return false
        }
        guard set.errors.isEmpty else {
            for d in set.errors {
                logger.error("rule reload refused", metadata: ["diagnostic": "\(d)", "trigger": "\(reason)"])
            }
            logger.error("kept the running rules", metadata: ["problems": "\(set.errors.count)"])
            return false
        }
        book.replace(with: RuleEngine(rules: set.rules), routes: routes)
        logger.notice("rules reloaded", metadata: ["rules": "\(set.rules.count)", "trigger": "\(reason)"])
        return true
    }

    /// Every rule file with a hash of its content (or its absence), to notice edits: an edit that keeps
    /// the size within the same second of modification time is noticed too.
    static func fingerprint(_ paths: [String]) -> [String] {
        var out: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                out.append(path + " missing")
                continue
            }
            let files =
                isDirectory.boolValue
                ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map { path + "/" + $0 }
                : [path]
            for file in files {
                // Every byte (`Data`'s own hash reads only a prefix).
                var hasher = Hasher()
                FileManager.default.contents(atPath: file)?.withUnsafeBytes { hasher.combine(bytes: $0) }
                out.append("\(file) \(hasher.finalize())")
            }
        }
        return out
    }
}
