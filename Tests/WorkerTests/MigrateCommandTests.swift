import Foundation
import LiveRelayTesting
import Testing

/// `liverelay migrate` as an operator runs it: the SQLite state file, and a PostgreSQL database (the
/// throwaway cluster CI starts; skipped, saying why, without one).
@Suite struct MigrateCommandTests {
    let liverelay = Repository.executable("liverelay")

    @Test func theStateFileIsCreatedOrBroughtUpToDate() async throws {
        let dir = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("liverelay.json")
        try #"{"state": "state.sqlite", "provider": {"type": "console"}}"#.write(
            to: config, atomically: true, encoding: .utf8)
        let first = try await CommandRun.run(liverelay, ["migrate", "--config", config.path])
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardOutput.contains("state.sqlite: created, "))
        #expect(first.standardOutput.contains("up to date (last: v21-activity-entity-running)"))
        let again = try await CommandRun.run(liverelay, ["migrate", "--config", config.path])
        #expect(!again.standardOutput.contains("created"))
        let nothing = try await CommandRun.run(liverelay, ["migrate"])
        #expect(nothing.status != 0)
        #expect(nothing.standardError.contains("give --config, --postgres-url, or both"))
    }

    @Test(.postgres)
    func aPostgreSQLDatabaseIsMigratedOnceAndAWrongPasswordIsSaidPlainly() async throws {
        let url = try #require(ProcessInfo.processInfo.environment["LIVERELAY_TEST_POSTGRES_URL"])
        let schema = "m_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        let arguments = [
            "migrate", "--postgres-url", url, "--password-env", "LIVERELAY_TEST_POSTGRES_PASSWORD", "--schema",
            String(schema),
        ]
        let first = try await CommandRun.run(liverelay, arguments)
        #expect(first.status == 0, "\(first.standardError)")
        #expect(
            first.standardOutput.contains(
                "13 schema steps applied now (v1-feed-leases, v1-outbox, v2-outbox-channel-policy, v3-state, v4-start-pace, v5-worker-heartbeat, v6-activity-changes, v7-late-join, v8-subscriptions, v9-subscription-device, v10-activity-entity-running, v11-outbox-fan-out, v12-binary-collation), 13 in all"
            ))
        let again = try await CommandRun.run(liverelay, arguments)
        #expect(again.standardOutput.contains("0 schema steps applied now, 13 in all, up to date"))
        let wrong = try await CommandRun.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["LIVERELAY_TEST_POSTGRES_PASSWORD=not-the-password-9f3", liverelay.path] + arguments)
        #expect(wrong.status == 1)
        #expect(wrong.standardError.contains("password authentication failed"))
        #expect(!(wrong.standardError + wrong.standardOutput).contains("not-the-password-9f3"))
    }
}
