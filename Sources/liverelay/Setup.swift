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
    let loaded: LoadedConfig
    do {
        loaded = try ConfigLoader.load(path: configPath)
    } catch {
        for d in error.items { standardError(d.description) }
        throw ExitCode(1)
    }
    let rules = WorkerFactory.rules(for: loaded)
    for d in rules.diagnostics { standardError("warning: \(d) (rule skipped)") }
    return (loaded, rules)
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
