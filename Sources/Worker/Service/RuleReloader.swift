import Foundation
import Logging
import Rules
import ServiceLifecycle
import UnixSignals

/// Reloads the rule files on SIGHUP or when one of them changes: a valid set replaces the running one
/// atomically; an invalid one is refused, every diagnostic is logged (`file:line:column: …`), and the
/// running rules stay.
public struct RuleReloader: Service {
    public let loaded: LoadedConfig
    public let book: RuleBook
    private let logger: Logger
    private let checkEvery: Duration

    public init(loaded: LoadedConfig, book: RuleBook, logger: Logger, checkEvery: Duration = .seconds(2)) {
        self.loaded = loaded
        self.book = book
        self.logger = logger
        self.checkEvery = checkEvery
    }

    public func run() async throws {
        let paths = loaded.config.rules.map(loaded.resolve)
        let checkEvery = self.checkEvery
        try await withThrowingDiscardingTaskGroup { group in
            let hangups = await UnixSignalsSequence(trapping: .sighup)
            let (triggers, trigger) = AsyncStream.makeStream(of: String.self)
            group.addTask {
                for await _ in hangups.cancelOnGracefulShutdown() { trigger.yield("SIGHUP") }
            }
            group.addTask {
                var fingerprint = RuleReloader.fingerprint(paths)
                while !Task.isShuttingDownGracefully {
                    try? await cancelWhenGracefulShutdown { try await Task.sleep(for: checkEvery) }
                    let now = RuleReloader.fingerprint(paths)
                    if now != fingerprint {
                        fingerprint = now
                        trigger.yield("a rule file changed")
                    }
                }
                trigger.finish()
            }
            for await reason in triggers.cancelOnGracefulShutdown() { reload(reason: reason) }
            group.cancelAll()
        }
    }

    /// Loads the rules again and swaps them in if every file is valid. Returns whether it swapped.
    @discardableResult
    public func reload(reason: String) -> Bool {
        let set = WorkerFactory.rules(for: loaded)
        guard set.diagnostics.isEmpty else {
            for d in set.diagnostics {
                logger.error("rule reload refused", metadata: ["diagnostic": "\(d)", "trigger": "\(reason)"])
            }
            logger.error("kept the running rules", metadata: ["problems": "\(set.diagnostics.count)"])
            return false
        }
        book.replace(with: RuleEngine(rules: set.rules))
        logger.notice("rules reloaded", metadata: ["rules": "\(set.rules.count)", "trigger": "\(reason)"])
        return true
    }

    /// Names, sizes and modification times of every rule file, to notice edits.
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
                let a = try? FileManager.default.attributesOfItem(atPath: file)
                let size = (a?[.size] as? NSNumber)?.intValue ?? -1
                let modified = (a?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
                out.append("\(file) \(size) \(modified)")
            }
        }
        return out
    }
}
