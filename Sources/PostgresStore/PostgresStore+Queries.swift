import Foundation
import LiveRelayCore
import Logging
import PostgresNIO
import Store
import Synchronization

extension PostgresStore {
    /// Runs one statement and returns its rows.
    func rows(_ what: String, _ query: PostgresQuery) async throws(Failure) -> [PostgresRow] {
        try await run(what) { client in try await client.query(query, logger: logger).collect() }
    }

    /// Runs one statement for its effect.
    func execute(_ what: String, _ query: PostgresQuery) async throws(Failure) {
        _ = try await rows(what, query)
    }

    /// Runs statements for their effect in one transaction.
    func executeAll(_ what: String, _ queries: [PostgresQuery]) async throws(Failure) {
        try await transaction(what) { connection in
            for query in queries { try await connection.checkedQuery(query, logger: logger) }
        }
    }

    /// Rows as one JSON array of objects, for statements that write many rows with nullable columns
    /// (`json_to_recordset`): postgres-nio binds arrays of non-optional values only.
    static func recordset(_ objects: [[String: JSONValue]]) -> String {
        JSONValue.array(objects.map { .object($0) }).jsonString()
    }
}

extension JSONValue {
    /// A column value for ``PostgresStore/recordset(_:)``: `null` for `nil`.
    static func column(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
    static func column(_ value: Int?) -> JSONValue { value.map { .int($0) } ?? .null }
}

extension PostgresConnection {
    /// Runs one statement in a transaction and returns its rows.
    func rows(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRow] {
        try await checkedQuery(query, logger: logger).collect()
    }

    /// `query`, refused at once on a connection the server has closed. PostgresNIO never answers a statement
    /// sent on one: a worker frozen past `idle_in_transaction_session_timeout` (the server then ends its
    /// connection) would wait on its next statement for ever, and its stop with it.
    @discardableResult
    func checkedQuery(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRowSequence {
        guard !isClosed else { throw ClosedConnection() }
        return try await self.query(query, logger: logger)
    }
}

/// The server closed the connection a transaction was on (it ended an idle transaction, or went away).
struct ClosedConnection: Error, CustomStringConvertible {
    var description: String { "the server closed the connection (an idle transaction was ended, or it went away)" }
}

/// Provider tokens held in memory, read from the database when the store opens, so a provider's synchronous
/// read never waits on the network; each saved token is written through.
final class ProviderTokenMemory: Sendable {
    private let tokens = Mutex<[String: (token: String, issuedAt: Int)]>([:])

    func get(_ key: String) -> (token: String, issuedAt: Int)? { tokens.withLock { $0[key] } }
    func set(_ key: String, _ value: (token: String, issuedAt: Int)) { tokens.withLock { $0[key] = value } }
    func replace(_ all: [String: (token: String, issuedAt: Int)]) { tokens.withLock { $0 = all } }
}
