import GRDB
import LiveRelayTesting

/// Holds the write lock of a SQLite state file from a connection of its own, as another process holding
/// it would: the worker's writes wait for their busy timeout, then fail with "database is locked".
public final class StateFileLock: Sendable {
    private let queue: DatabaseQueue

    /// Takes the lock (`BEGIN IMMEDIATE`).
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.inDatabase { try $0.execute(sql: "BEGIN IMMEDIATE") }
    }

    /// Gives the lock back.
    public func release() throws {
        try queue.inDatabase { try $0.execute(sql: "ROLLBACK") }
    }
}
