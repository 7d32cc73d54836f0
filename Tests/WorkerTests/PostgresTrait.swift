import Foundation
import Testing

extension Trait where Self == ConditionTrait {
    /// Runs a test or suite only where the test PostgreSQL cluster is configured; elsewhere it is skipped and
    /// says how to configure it.
    static var postgres: Self {
        .enabled(
            if: ProcessInfo.processInfo.environment["LIVERELAY_TEST_POSTGRES_URL"] != nil,
            "PostgreSQL is not configured: eval \"$(scripts/postgres-cluster.sh start)\" and export LIVERELAY_TEST_POSTGRES_URL and LIVERELAY_TEST_POSTGRES_PASSWORD (CI does)"
        )
    }
}
