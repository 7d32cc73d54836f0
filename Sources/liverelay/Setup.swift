import ArgumentParser
import Delivery
import Foundation
import LiveRelayCore
import Logging
import PostgresStore
import Rules
import Store
import Worker

/// Loads a config and its rules for a command that runs the pipeline; prints problems to standard error.
/// A config problem stops the command; a broken rule is reported and the valid rules run.
func loadForRun(configPath: String) throws -> (LoadedConfig, RuleSet) {
    let loaded = try loadConfig(configPath)
    let rules = loaded.loadRules()
    for d in rules.diagnostics { standardError(d.isError ? "warning: \(d) (rule skipped)" : "\(d)") }
    return (loaded, rules)
}

/// Loads a config or exits with its diagnostics.
func loadConfig(_ path: String) throws -> LoadedConfig {
    do {
        return try ConfigLoader.load(path: path)
    } catch {
        for d in error.items { standardError(d.description) }
        throw ExitCode(1)
    }
}

/// Opens the SQLite store or exits with its error.
func openStore(_ path: String) throws -> SQLiteStore {
    do {
        return try SQLiteStore(path: path)
    } catch {
        standardError("error: \(error)")
        throw ExitCode(1)
    }
}

/// Opens the store the config names: its PostgreSQL database (connected, migrated: workers starting together
/// take turns) when it has a `postgres` section, else its SQLite state file. Exits with the error.
func openStateStore(_ loaded: LoadedConfig, logger: Logger = Logger(label: "liverelay.postgres")) async throws
    -> any StateStore
{
    guard let postgres = loaded.config.postgres else { return try openStore(loaded.resolve(loaded.config.state)) }
    do {
        let store = try PostgresStore(try postgresConfiguration(postgres, loaded: loaded), logger: logger)
        // The connection pool runs for the rest of the process.
        Task { await store.run() }
        try await store.open()
        return store
    } catch {
        standardError("error: \(loaded.path): postgres: \(error)")
        throw ExitCode(1)
    }
}

/// The PostgreSQL store's settings from a config's `postgres` section (its password read from the secret).
func postgresConfiguration(_ postgres: PostgresConfig, loaded: LoadedConfig) throws -> PostgresStore.Configuration {
    var password: Secret?
    if let reference = postgres.password {
        do {
            password = try reference.resolve(
                baseDirectory: loaded.directory, environment: ProcessInfo.processInfo.environment)
        } catch {
            throw PostgresStore.Failure(path: "PostgreSQL", message: "password: \(error)")
        }
    }
    return PostgresStore.Configuration(
        url: postgres.url, password: password, tls: postgres.tls, caFile: postgres.caFile.map(loaded.resolve),
        schema: postgres.schema, worker: postgres.worker ?? PostgresStore.defaultWorkerName,
        claimSeconds: postgres.claimSeconds, workerTimeout: postgres.workerTimeout)
}

/// Builds the worker through the composition root, or exits with its diagnostics.
func buildWorker(
    _ loaded: LoadedConfig, rules: RuleSet, store: any StateStore, environment: WorkerEnvironment
) async throws -> LiveRelayWorker {
    do {
        return try await LiveRelayWorker.build(loaded, rules: rules, store: store, environment: environment)
    } catch {
        for d in error.items { standardError(d.description) }
        throw ExitCode(1)
    }
}
