public import Logging
import Synchronization

/// A swift-log handler that keeps every message with its metadata, for tests that read what was logged
/// (and check that no secret ever is).
public struct CapturingLogHandler: LogHandler {
    /// Everything logged through handlers sharing this store.
    public final class Store: Sendable {
        private let lines = Mutex<[String]>([])
        private let changes = ChangeSignal()
        public init() {}
        public var all: [String] { lines.withLock { $0 } }
        func append(_ line: String) {
            lines.withLock { $0.append(line) }
            changes.changed()
        }

        /// Waits until a line containing `text` is logged; false after `timeout`.
        public func wait(forLineContaining text: String, timeout: Duration = .seconds(30)) async -> Bool {
            await changes.wait(until: { self.all.contains { $0.contains(text) } }, timeout: timeout)
        }
    }

    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace
    private let store: Store
    private let label: String

    public init(label: String, store: Store) {
        self.label = label
        self.store = store
    }

    /// A logger writing into `store`.
    public static func logger(_ store: Store, label: String = "test") -> Logger {
        Logger(label: label) { CapturingLogHandler(label: $0, store: store) }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        let rendered = all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        store.append("\(event.level) \(event.message)\(rendered.isEmpty ? "" : " " + rendered)")
    }
}
