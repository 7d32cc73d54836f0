import Foundation
import LiveRelayCore
import PostgresNIO
import Store
import Testing

@testable import PostgresStore

/// A worker frozen in the middle of a transaction (SIGSTOP, a long pause) past the server's
/// `idle_in_transaction_session_timeout` finds its connection closed by the server when it resumes: its
/// transaction fails at once, never waits for ever (as a statement or a ROLLBACK sent on that connection
/// would), and the store goes on with another connection.
@Suite(
    "PostgreSQL: a transaction the server ended",
    .enabled(if: TestDatabase.available, Comment(rawValue: TestDatabase.absent)))
struct ClosedConnectionTests {
    @Test func aTransactionPastTheIdleTimeoutFailsAndTheStoreGoesOn() async throws {
        try await TestDatabase.with(workerTimeout: 3) { stores in
            let store = stores[0]
            let outcome: Result<Int, StoreFailure>
            do throws(StoreFailure) {
                outcome = .success(
                    try await store.transaction("a frozen transaction") { connection in
                        _ = try await connection.rows("SELECT 1", logger: store.logger)
                        // Frozen past the 3 s idle-transaction timeout: the server ends the connection.
                        try await Task.sleep(for: .milliseconds(4_500))
                        _ = try await connection.rows("SELECT 2", logger: store.logger)
                        return 1
                    })
            } catch {
                outcome = .failure(error)
            }
            switch outcome {
            case .success: Issue.record("the transaction went through on a connection the server had ended")
            case .failure(let failure): #expect(failure.message.contains("a frozen transaction"), "\(failure)")
            }
            let after = try await store.rows("after", "SELECT 3")
            #expect(after.count == 1, "another connection serves the store")
        }
    }
}
