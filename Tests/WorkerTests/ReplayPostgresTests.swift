import Foundation
import LiveRelayCore
import LiveRelayTesting
import Testing

/// `liverelay replay --postgres`: the recorded match replayed with its state in PostgreSQL (the throwaway
/// cluster CI starts; skipped, saying why, without one) prints what the replay with a temporary SQLite file
/// prints, and leaves its state in the config's schema.
@Suite(.postgres)
struct ReplayPostgresTests {
    let liverelay = Repository.executable("liverelay")

    @Test func aReplayOnPostgreSQLSendsWhatItSendsOnSQLite() async throws {
        let url = try #require(ProcessInfo.processInfo.environment["LIVERELAY_TEST_POSTGRES_URL"])
        let dir = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Three devices hold the match's update token: each update goes out as a fan-out, claimed in chunks.
        let tokens = dir.appendingPathComponent("tokens.json")
        try #"""
        {"activities": [
          {"activity": "match-760499", "device": "a", "token": "aa01"},
          {"activity": "match-760499", "device": "b", "token": "bb02"},
          {"activity": "match-760499", "device": "c", "token": "cc03"}
        ]}
        """#.write(to: tokens, atomically: true, encoding: .utf8)
        let sequence = Repository.path("Samples/sequences/espn-aus-egy/sequence.json")
        var config = try DemoConfig()
        let sqliteConfig = try config.write(to: dir)
        let onSQLite = try await CommandRun.run(
            liverelay, ["replay", sequence, "--config", sqliteConfig, "--tokens", tokens.path])
        #expect(onSQLite.status == 0, "\(onSQLite.standardError)")

        let schema = "r_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        config["postgres"] = .object([
            "url": .string(url), "password": .object(["env": "LIVERELAY_TEST_POSTGRES_PASSWORD"]),
            "schema": .string(String(schema)),
        ])
        let postgresDir = dir.appendingPathComponent("pg")
        try FileManager.default.createDirectory(at: postgresDir, withIntermediateDirectories: true)
        let postgresConfig = try config.write(to: postgresDir)
        let onPostgres = try await CommandRun.run(
            liverelay, ["replay", sequence, "--config", postgresConfig, "--tokens", tokens.path, "--postgres"])
        #expect(onPostgres.status == 0, "\(onPostgres.standardError)")
        #expect(onPostgres.standardOutput.contains("7 pushes, 0 feed errors"), "\(onPostgres.standardOutput)")
        let (postgresLines, sqliteLines) = (lines(onPostgres.standardOutput), lines(onSQLite.standardOutput))
        #expect(
            postgresLines == sqliteLines,
            "only on PostgreSQL: \(postgresLines.filter { !sqliteLines.contains($0) }); only on SQLite: \(sqliteLines.filter { !postgresLines.contains($0) })"
        )

        // The state stayed in the schema: the same replay again finds the match over and starts nothing.
        let again = try await CommandRun.run(
            liverelay, ["replay", sequence, "--config", postgresConfig, "--tokens", tokens.path, "--postgres"])
        #expect(again.standardOutput != onPostgres.standardOutput)
    }

    @Test func postgresNeedsTheConfigsSectionAndNoStateFile() async throws {
        let dir = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = try DemoConfig().write(to: dir)
        let sequence = Repository.path("Samples/sequences/espn-aus-egy/sequence.json")
        let noSection = try await CommandRun.run(liverelay, ["replay", sequence, "--config", config, "--postgres"])
        #expect(noSection.status != 0)
        #expect(noSection.standardError.contains("--postgres: \(config) has no postgres section"))
        let both = try await CommandRun.run(
            liverelay, ["replay", sequence, "--config", config, "--postgres", "--state", "s.sqlite"])
        #expect(both.status != 0)
        #expect(both.standardError.contains("--postgres and --state s.sqlite: the state goes to one place"))
    }

    /// The lines of a replay's output, the progress line's redraws (carriage returns) left out.
    func lines(_ output: String) -> [String] {
        output.split(separator: "\n").map { String($0.split(separator: "\r").last ?? "") }
    }
}
