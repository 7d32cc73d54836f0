import ArgumentParser
import Feeds
import Foundation
import LiveRelayCore
import Rules
import Worker

struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate a config and its rule files; print every problem as file:line:column: message.",
        discussion: """
            Exits 0 when everything is valid, 1 when anything is not. Valid rules next to broken ones still \
            count as loaded, so the summary shows what a running worker would use.

            Examples:
              liverelay check --config liverelay.json
              liverelay check Rules/worldcup.rules.json      (rule files alone: feed ids are not checked)
            """)

    @Option(name: .shortAndLong, help: "The config file; its rule files are checked too.")
    var config: String?

    @Argument(help: "More rule files or folders to check.")
    var ruleFiles: [String] = []

    func run() async throws {
        var diagnostics: [Diagnostic] = []
        var rules = RuleSet()
        if let config {
            do {
                let loaded = try ConfigLoader.load(path: config)
                rules = loaded.loadRules()
                if !ruleFiles.isEmpty {
                    var extra = loaded.ruleLoader.load(paths: ruleFiles)
                    ContractCheck.apply(to: &extra, contracts: loaded.contracts, facts: loaded.factTypes)
                    rules.rules += extra.rules
                    rules.diagnostics += extra.diagnostics
                    rules.files += extra.files
                }
                diagnostics += loaded.startProblems(rules: rules, variables: ProcessInfo.processInfo.environment)
                let contracts = loaded.contracts.count
                standardOutput(
                    "\(config): \(loaded.feeds.count) feeds"
                        + (contracts == 0 ? "" : ", \(contracts) contract\(contracts == 1 ? "" : "s")"))
            } catch {
                diagnostics += error.items
                // A broken config does not hide the problems of its rule files (those it names that do not
                // exist are the config's problems already).
                if let named = ConfigLoader.ruleFilesOfBrokenConfig(path: config) {
                    let presets = FeedPreset.allCases.flatMap(\.factCatalogue.paths)
                    var loader = RuleLoader(
                        knownFeeds: named.feeds.isEmpty ? nil : named.feeds, knownFacts: named.facts,
                        otherFacts: Set(presets))
                    loader.stateSchemas = named.contracts.mapValues(\.contentState.written)
                    rules = loader.load(
                        paths: named.rules.filter { path in
                            FileManager.default.fileExists(atPath: path)
                                || !diagnostics.contains {
                                    $0.message.hasSuffix("no such rule file or directory: \(path)")
                                }
                        } + ruleFiles)
                    // Nor do its contracts, as far as they can be read.
                    ContractCheck.apply(to: &rules, contracts: named.contracts, facts: [:])
                }
            }
        } else if ruleFiles.isEmpty {
            throw ValidationError("give a config (--config) or rule files to check")
        } else {
            rules = RuleLoader().load(paths: ruleFiles)
        }
        diagnostics += rules.diagnostics
        for d in diagnostics { standardOutput(d.description) }
        // Personal rules: which are narrowed by an index of the subscriptions' levels, and which look at
        // every subscription of a changed entity.
        for rule in rules.rules {
            switch rule.crossing {
            case .success(let crossing)?:
                standardOutput(
                    "\(rule.source): rule \(rule.id): personal, indexed: only the subscriptions whose "
                        + "subscription.parameters.\(crossing.parameter) lies between prev.\(crossing.fact) and "
                        + "curr.\(crossing.fact) are evaluated")
            case .failure? where rule.liveOnly:
                standardOutput(
                    "\(rule.source): rule \(rule.id): personal, indexed: only the subscriptions that own a running "
                        + "activity are evaluated")
            case .failure(let why)?:
                standardOutput(
                    "\(rule.source): rule \(rule.id): personal, not indexed (\(why.reason)): every subscription "
                        + "of a changed entity is evaluated")
            case nil where rule.subscription != nil:
                standardOutput(
                    "\(rule.source): rule \(rule.id): personal, on the clock: each live activity of a subscription "
                        + "is looked at with its subscription")
            case nil:
                break
            }
        }
        let errors = diagnostics.filter(\.isError).count
        let warnings = diagnostics.count - errors
        standardOutput(
            "\(rules.rules.count) rules loaded from \(rules.files.count) files, \(errors) problems"
                + (warnings == 0 ? "" : ", \(warnings) warning\(warnings == 1 ? "" : "s")"))
        if errors > 0 { throw ExitCode(1) }
    }
}
