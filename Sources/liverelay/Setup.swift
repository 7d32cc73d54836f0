import ArgumentParser
import Delivery
import LiveRelayCore
import Logging
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

/// Builds the worker through the composition root, or exits with its diagnostics.
func buildWorker(
    _ loaded: LoadedConfig, rules: RuleSet, store: SQLiteStore, environment: WorkerEnvironment
) async throws -> LiveRelayWorker {
    do {
        return try await LiveRelayWorker.build(loaded, rules: rules, store: store, environment: environment)
    } catch {
        for d in error.items { standardError(d.description) }
        throw ExitCode(1)
    }
}
