import ArgumentParser
import Delivery
import Feeds
import Foundation
import LiveRelayCore
import Logging
import Report
import Rules
import Store
import Worker

struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Run a recorded sequence of feed bodies through the real pipeline with a simulated clock.",
        discussion: """
            Prints, for every recorded body, what changed, which rules fired, and each push exactly as the \
            configured provider sends it (the console provider prints the APNs request), with the reason a \
            change produced no push. State lives in a temporary database unless --state is given, so two runs \
            print the same thing. With --postgres it lives in the PostgreSQL database of the config's \
            `postgres` section, as `liverelay run` keeps it there: a database (or `schema`) of its own for the \
            replay, which keeps what the replay leaves, as --state does.

            With --report FILE, also writes what the replay decided: FILE.html is one self-contained page (each \
            activity's timeline of changes and pushes, its priority-10 budget over time, and a summary), \
            FILE.json the same data for other tools (docs/report.md).

            On a terminal, a progress line on standard error shows the step the replay is at.

            Example:
              liverelay replay Samples/sequences/espn-aus-egy/sequence.json --config Samples/demo/liverelay.json
              liverelay replay Samples/sequences/espn-aus-egy/sequence.json --config Samples/demo/tiny-budget.json \
                --report report.html
            """)

    @Argument(help: "The sequence file (JSON: the feed id and the ordered steps with their bodies and times).")
    var sequence: String

    @Option(name: .shortAndLong, help: "The config file (feeds, rules, provider).")
    var config: String

    @Option(help: "Keep the state in this SQLite file instead of a temporary one.")
    var state: String?

    @Flag(help: "Keep the state in the PostgreSQL database of the config's postgres section instead.")
    var postgres = false

    @Option(
        help: ArgumentHelp(
            "Load devices, subscriptions and tokens from this JSON file first (see docs/configuration.md).",
            discussion: "Without it, the console prints each push once with a placeholder token."))
    var tokens: String?

    @Option(
        help: ArgumentHelp(
            "Write a report of the replay's decisions to this file: .html (a page) or .json (its data).",
            valueName: "file"))
    var report: String?

    @Option(
        help: ArgumentHelp(
            "Facts to draw on the report's timelines besides the score and price, comma-separated (home.games,away.games).",
            valueName: "facts"))
    var plot: String?

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        if postgres, let state {
            throw ValidationError("--postgres and --state \(state): the state goes to one place")
        }
        if let report, ReportFormat(path: report) == nil {
            throw ValidationError("--report \(report): the file must end in .html or .json")
        }
    }

    func run() async throws {
        logging.bootstrap()
        let (loaded, rules) = try loadForRun(configPath: config)
        let recorded: ReplaySequence
        do {
            recorded = try ReplaySequence.load(path: sequence, knownFeeds: Set(loaded.feeds.map(\.id)))
        } catch {
            for d in error.items { standardError(d.description) }
            throw ExitCode(1)
        }
        // The sequence was checked against the config's feeds.
        let feed = loaded.feeds.first { $0.id == recorded.feed }!
        let others = loaded.feeds.filter { recorded.feeds.dropFirst().contains($0.id) }
        if postgres {
            guard loaded.config.postgres != nil else {
                throw ValidationError("--postgres: \(config) has no postgres section")
            }
            try await withStateStore(loaded) { store in
                try await replay(recorded, loaded: loaded, rules: rules, feed: feed, others: others, store: store)
            }
            return
        }
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liverelay-replay-\(UUID().uuidString)")
        let statePath = state ?? temporary.path + ".sqlite"
        defer {
            if state == nil {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: statePath + suffix) }
            }
        }
        try await replay(
            recorded, loaded: loaded, rules: rules, feed: feed, others: others, store: try openStore(statePath))
    }

    /// Replays `recorded` with its state in `store`. On a store several workers share, this worker beats as
    /// `liverelay run` does while it replays: a worker without a heartbeat claims nothing.
    private func replay(
        _ recorded: ReplaySequence, loaded: LoadedConfig, rules: RuleSet, feed: FeedRuntime, others: [FeedRuntime],
        store: any StateStore
    ) async throws {
        let progress = ProgressLine(print: standardOutput)
        let worker = try await buildWorker(
            loaded, rules: rules, store: store,
            environment: .live(logger: Logger(label: "liverelay.replay"), output: progress.output))
        defer { worker.shutdown() }
        try await whileBeating(worker.heartbeat) {
            try await replay(
                recorded, loaded: loaded, rules: rules, feed: feed, others: others, store: store, worker, progress)
        }
    }

    private func replay(
        _ recorded: ReplaySequence, loaded: LoadedConfig, rules: RuleSet, feed: FeedRuntime, others: [FeedRuntime],
        store: any StateStore, _ worker: LiveRelayWorker, _ progress: ProgressLine
    ) async throws {
        if let tokens {
            do {
                // Registered as the sequence begins, on its clock: devices that follow an entity from the
                // start are not late joiners.
                try await TokenFile.load(path: tokens).apply(
                    to: store, environment: worker.defaultEnvironment ?? .production,
                    now: recorded.steps.first.flatMap { ISO8601Time.seconds($0.at) }
                        ?? Int(Date().timeIntervalSince1970))
            } catch let diagnostics as Diagnostics {
                for d in diagnostics.items { standardError(d.description) }
                throw ExitCode(1)
            }
        }
        let provider = worker.sender(for: loaded.defaultProviderID)?.provider.traits.kind.rawValue ?? "?"
        let through = recorded.feeds.count == 1 ? "feed \(feed.id)" : "feeds \(recorded.feeds.joined(separator: ", "))"
        standardOutput(
            "Replaying \(sequence) through \(through) with \(rules.rules.count) rules, provider \(provider)")
        let directory = URL(fileURLWithPath: sequence).deletingLastPathComponent().path
        let steps = recorded.steps
        var replayer = Replayer(pipeline: worker.pipeline, feed: feed, others: others, write: progress.output)
        replayer.defaultEnvironment = worker.defaultEnvironment ?? .production
        replayer.plotted = (plot ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        let summary = try await replayer.replay(
            recorded, directory: directory,
            afterStep: { i in
                progress.show(
                    "step \(i + 1)/\(steps.count) at \(steps[i].at)\(i + 1 == steps.count ? ", then the clock runs on" : "")",
                    force: i + 1 == steps.count)
            })
        progress.clear()
        if let report { try write(ReplayReport.build(summary.trace), to: report) }
        // A provider that stopped on a configuration error (a key APNs refuses, a certificate that does not
        // verify) sent nothing from then on: the replay did not do what it was asked, whatever it printed.
        let stopped = worker.pipeline.senders.compactMap { id, sender in sender.stoppedReason.map { (id, $0) } }
        for (id, reason) in stopped.sorted(by: { $0.0 < $1.0 }) {
            standardError("error: provider \(id) stopped: \(reason); what it did not send is not delivered")
        }
        if !stopped.isEmpty { throw ExitCode(1) }
    }

    /// Writes the report in the format its extension names; a file that cannot be written is a clear error.
    private func write(_ built: ReplayReport, to path: String) throws {
        do {
            let data: Data
            switch ReportFormat(path: path) {
            case .json?: data = try built.jsonData()
            case .html?, nil: data = Data(built.html().utf8)
            }
            try data.write(to: URL(fileURLWithPath: path))
        } catch {
            standardError("--report \(path): cannot write the report: \(error.localizedDescription)")
            throw ExitCode(1)
        }
        standardError("report written to \(path)")
    }
}
