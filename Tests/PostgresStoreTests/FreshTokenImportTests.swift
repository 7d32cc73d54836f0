import Foundation
import LiveRelayCore
import PostgresNIO
import Store
import Testing

@testable import PostgresStore

/// A large import for activities that hold no token yet inserts its rows as they are (no upsert); a row
/// another writer stores meanwhile sends it to the upsert, and nothing is lost or refused.
@Suite(.enabled(if: TestDatabase.available, Comment(rawValue: TestDatabase.absent)))
struct FreshTokenImportTests {
    static let key = ActivityKey("fresh")

    static func tokens(_ range: Range<Int>) -> [(ActivityKey, String, String, PushEnvironment)] {
        range.map { (key, "d\($0)", "t\($0)", .production) }
    }

    @Test func anImportIntoAnActivityWithTokensReplacesTheirs() async throws {
        try await TestDatabase.with { stores in
            let store = stores[0]
            #expect(try await store.importActivityTokens(Self.tokens(0..<150), now: 1) == 150)
            let again = Self.tokens(100..<250).map { ($0.0, $0.1, "n" + $0.2, $0.3) }
            #expect(try await store.importActivityTokens(again, now: 2) == 150)
            let stored = try await store.activityTokens(activity: Self.key, environment: nil)
            #expect(stored.count == 250)
            #expect(stored.first { $0.device == "d120" }?.token == "nt120")
            #expect(stored.first { $0.device == "d20" }?.token == "t20")
        }
    }

    /// Another writer's row for one device, not yet committed when the import looks: the import's insert
    /// waits on it, fails once it is committed, and the upsert stores the slice.
    @Test func aRowStoredMeanwhileSendsTheImportToTheUpsert() async throws {
        try await TestDatabase.with(workers: 2) { stores in
            let (importer, other) = (stores[0], stores[1])
            let (inserted, insertedSignal) = AsyncStream.makeStream(of: Void.self)
            async let held: Bool = other.transaction("holding a row") { connection in
                do {
                    try await connection.checkedQuery(
                        """
                        INSERT INTO activity_token (activity, device, token, environment, updated_at)
                        VALUES ('fresh', 'd7', 'other', 'production', 0)
                        """, logger: other.logger)
                    insertedSignal.yield()
                } catch {
                    insertedSignal.finish()
                    throw error
                }
                // Held until the import's insert waits on this row (at most 10 s).
                for _ in 0..<2_000 {
                    // (A transaction reads the server's activity as it was at its first look, unless cleared.)
                    try await connection.checkedQuery("SELECT pg_stat_clear_snapshot()", logger: other.logger)
                    let waiting = try await connection.rows(
                        """
                        SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
                          AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO activity_token%'
                        """, logger: other.logger)
                    if try waiting.first?.decode(Int.self) ?? 0 > 0 { return true }
                    try await Task.sleep(for: .milliseconds(5))
                }
                return false
            }
            for await _ in inserted { break }
            let stored = try await importer.importActivityTokens(Self.tokens(0..<150), now: 1)
            #expect(try await held, "the import's insert waited on the other writer's row")
            #expect(stored == 150)
            let rows = try await importer.activityTokens(activity: Self.key, environment: nil)
            #expect(rows.count == 150)
            #expect(rows.first { $0.device == "d7" }?.token == "t7", "the import's report is the last")
        }
    }
}
