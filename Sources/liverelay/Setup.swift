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

/// Opens the store the config names and runs `body` with it: its PostgreSQL database (connected, migrated:
/// workers starting together take turns) when it has a `postgres` section, else its SQLite state file. Exits
/// with the error.
///
/// PostgreSQL's connection pool runs as a child task for exactly as long as `body` (`PostgresStore.whileRunning`):
/// it starts before the store is opened and is shut down (its connections closed) once `body` has returned
/// or thrown, that is after the worker's service group has stopped every service that uses the store (the
/// loops' last rounds, the lease given up, the last heartbeat). No task outlives the command.
func withStateStore<T>(
    _ loaded: LoadedConfig, logger: Logger = Logger(label: "liverelay.postgres"),
    _ body: (any StateStore) async throws -> T
) async throws -> T {
    guard let postgres = loaded.config.postgres else {
        return try await body(openStore(loaded.resolve(loaded.config.state)))
    }
    let store: PostgresStore
    do {
        store = try PostgresStore(try postgresConfiguration(postgres, loaded: loaded), logger: logger)
    } catch {
        standardError("error: \(loaded.path): postgres: \(error)")
        throw ExitCode(1)
    }
    return try await store.whileRunning {
        do {
            try await store.open()
        } catch {
            standardError("error: \(loaded.path): postgres: \(error)")
            throw ExitCode(1)
        }
        return try await body(store)
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

/// Runs `body` while `heartbeat` beats (once before it, then at its interval), as the service group of
/// `liverelay run` beats: on a shared store a worker whose heartbeat has lapsed claims no outbox row. Without
/// a heartbeat (a store of one worker), just runs `body`. The beats end with `body`.
func whileBeating<T: Sendable>(_ heartbeat: HeartbeatService?, _ body: () async throws -> T) async throws -> T {
    guard let heartbeat else { return try await body() }
    await heartbeat.beat()
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await heartbeat.run() }
        defer { group.cancelAll() }
        return try await body()
    }
}
