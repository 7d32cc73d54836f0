import Foundation
import LiveRelayCore
import PostgresNIO
import Store
import Testing

@testable import PostgresStore

/// A large import of update tokens measures the token table's statistics at once: without them the planner
/// sorts every device after a fan-out's frontier for each chunk (60 ms a chunk at 200,000 devices) until
/// autovacuum looks, up to a minute later.
@Suite(.enabled(if: TestDatabase.available, Comment(rawValue: TestDatabase.absent)))
struct TokenImportStatisticsTests {
    /// The rows the planner believes the token table holds (-1: never measured).
    static func plannerRows(_ store: PostgresStore) async throws -> Int {
        let rows = try await store.rows(
            "reading the token table's statistics",
            "SELECT reltuples::bigint FROM pg_class WHERE oid = 'activity_token'::regclass")
        return try #require(rows.first).decode(Int.self)
    }

    static func tokens(_ range: Range<Int>) -> [(ActivityKey, String, String, PushEnvironment)] {
        range.map { (ActivityKey("match-1"), "d\($0)", String(format: "aa%06x", $0), .production) }
    }

    @Test func aLargeImportMeasuresTheTokenTableAndARegistrationDoesNot() async throws {
        try await TestDatabase.with { stores in
            let store = stores[0]
            // One registration (as the token API makes): the table's statistics are left to autovacuum.
            _ = try await store.importActivityTokens(Self.tokens(0..<1), now: 1)
            #expect(try await Self.plannerRows(store) == -1)
            let count = PostgresStore.analyzeAfterImporting
            _ = try await store.importActivityTokens(Self.tokens(1..<(1 + count)), now: 1)
            #expect(try await Self.plannerRows(store) == count + 1)
        }
    }
}
