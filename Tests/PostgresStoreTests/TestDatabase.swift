import Foundation
import LiveRelayCore
import PostgresStore

/// The PostgreSQL the tests use: the throwaway cluster `scripts/postgres-cluster.sh start` runs (CI starts
/// it; its two variables say where). Each test gets a schema of its own, dropped afterwards, so tests run in
/// parallel on one database. Without the variables the tests are skipped and say why; they never pass
/// without a database.
enum TestDatabase {
    static let url = ProcessInfo.processInfo.environment["LIVERELAY_TEST_POSTGRES_URL"]
    static let password = ProcessInfo.processInfo.environment["LIVERELAY_TEST_POSTGRES_PASSWORD"]

    /// Whether a database is configured.
    static var available: Bool { url != nil }
    static let absent =
        "PostgreSQL is not configured: eval \"$(scripts/postgres-cluster.sh start)\" and export LIVERELAY_TEST_POSTGRES_URL and LIVERELAY_TEST_POSTGRES_PASSWORD (CI does)"

    /// `workers` stores on one new schema, migrated, their pools running for `body`; the schema is dropped.
    static func with(
        workers: Int = 1, migrate: Bool = true, workerTimeout: Int = 5, _ body: ([PostgresStore]) async throws -> Void
    ) async throws {
        guard let url else { throw Absent() }
        let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        let stores = try (0..<workers).map { _ in
            try PostgresStore(
                .init(
                    url: url, password: password.map(Secret.init), schema: String(schema),
                    workerTimeout: workerTimeout))
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for store in stores { group.addTask { await store.run() } }
            do {
                if migrate { try await stores[0].migrate() }
                try await body(stores)
            } catch {
                try? await stores[0].dropSchema()
                group.cancelAll()
                throw error
            }
            try await stores[0].dropSchema()
            group.cancelAll()
        }
    }

    struct Absent: Error, CustomStringConvertible {
        var description: String { TestDatabase.absent }
    }
}
