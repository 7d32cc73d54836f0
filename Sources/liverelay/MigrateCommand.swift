import ArgumentParser
import Foundation
import LiveRelayCore
import PostgresStore
import Store
import Worker

struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Bring the state's schema up to date: the SQLite state file, and a PostgreSQL database.",
        discussion: """
            Opening the SQLite state file the config names applies its missing schema steps (run and tick do \
            the same at start); with --postgres-url the PostgreSQL schema is brought up to date too (workers \
            starting together take turns, so each step runs once). Prints the steps applied now and those \
            applied before. The password comes from an environment variable, never from the URL.

            Examples:  liverelay migrate --config liverelay.json
                       liverelay migrate --postgres-url postgres://liverelay@db:5432/liverelay --password-env PGPASSWORD
            """)

    @Option(name: .shortAndLong, help: "The config file (its SQLite state file).") var config: String?
    @Option(help: "A PostgreSQL database: postgres://user@host:port/database (no password).") var postgresURL: String?
    @Option(help: "The environment variable holding the PostgreSQL password.") var passwordEnv: String?
    @Option(help: "The PostgreSQL schema LiveRelay's tables go in (default: public).") var schema: String?
    @Flag(help: "TLS to PostgreSQL, certificates verified.") var tls = false

    func validate() throws {
        if config == nil, postgresURL == nil { throw ValidationError("give --config, --postgres-url, or both") }
    }

    func run() async throws {
        if let config {
            let loaded = try loadConfig(config)
            if let postgres = loaded.config.postgres {
                // The config's database (its password from the config's secret).
                do {
                    try await migrate(PostgresStore(try postgresConfiguration(postgres, loaded: loaded)))
                } catch {
                    standardError("error: \(loaded.path): postgres: \(error)")
                    throw ExitCode(1)
                }
                if postgresURL == nil { return }
            }
            let path = loaded.resolve(loaded.config.state)
            let before = FileManager.default.fileExists(atPath: path)
            let store = try openStore(path)
            let applied = try await store.appliedMigrations()
            standardOutput(
                "state file \(path): \(before ? "" : "created, ")\(applied.count) schema steps, up to date "
                    + "(last: \(applied.last ?? "none"))")
        }
        if let postgresURL {
            var password: Secret?
            if let name = passwordEnv {
                guard let value = ProcessInfo.processInfo.environment[name] else {
                    standardError("error: --password-env \(name): the variable is not set")
                    throw ExitCode(1)
                }
                password = Secret(value)
            }
            do {
                try await migrate(PostgresStore(.init(url: postgresURL, password: password, tls: tls, schema: schema)))
            } catch {
                standardError("error: \(error)")
                throw ExitCode(1)
            }
        }
    }

    /// Connects, migrates, and says what was applied. Untyped `throws` and never inlined: the 6.3.1
    /// optimiser crashed splitting `run`'s coroutine with this as an `async throws(E)` function inlined in it.
    @inline(never)
    private func migrate(_ store: PostgresStore) async throws {
        // The connection pool runs for the migration alone, and is shut down before this returns.
        let (applied, all) = try await store.whileRunning {
            try await store.check()
            return (try await store.migrate(), try await store.appliedMigrations())
        }
        standardOutput(
            "\(store.location): \(applied.count) schema steps applied now"
                + (applied.isEmpty ? "" : " (\(applied.joined(separator: ", ")))") + ", \(all.count) in all, up to date"
        )
    }
}
