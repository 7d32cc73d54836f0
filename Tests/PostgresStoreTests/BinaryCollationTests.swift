import Foundation
import PostgresNIO
import Testing

@testable import PostgresStore

/// The store's text compares byte by byte whatever the database's default collation (its `v12` step): as
/// SQLite and Swift order keys, and without a linguistic collation's cost in every B-tree step.
@Suite(.enabled(if: TestDatabase.available, Comment(rawValue: TestDatabase.absent)))
struct BinaryCollationTests {
    /// A table added later with a text column left to the database's default fails here until its step
    /// says `COLLATE "C"`.
    @Test func everyTextColumnOfTheSchemaHasTheCCollation() async throws {
        try await TestDatabase.with { stores in
            let rows = try await stores[0].rows(
                "reading the schema's text columns",
                """
                SELECT c.relname || '.' || a.attname, a.attcollation = '"C"'::regcollation
                FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
                WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'
                  AND c.relname <> 'liverelay_migration' AND a.attnum > 0 AND NOT a.attisdropped
                  AND a.atttypid = 'text'::regtype
                ORDER BY 1
                """)
            let columns = try rows.map { try $0.decode((String, Bool).self) }
            #expect(columns.map(\.0).contains("activity_token.device"), "the query reads the store's own tables")
            #expect(columns.filter { !$0.1 }.map(\.0) == [])
        }
    }
}
