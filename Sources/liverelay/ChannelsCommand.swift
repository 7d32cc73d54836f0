import ArgumentParser
import Foundation
import LiveRelayCore
import Logging
import Store
import Worker

struct ChannelsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "channels",
        abstract: "List the app's APNs broadcast channels and collect the stale ones.",
        discussion: """
            Compares the channels APNs lists for the app (in the provider's environment) with those the state \
            file knows, and prints each stale one with its reason: unknown to this state file (a run that \
            crashed between creating and saving it, or another deployment of the same app and environment), \
            its activity ended or gone, its deletion due. With --gc it deletes them (--dry-run: it only says \
            what it would delete). Only one deployment may collect an app's channels in one environment.

            Examples:  liverelay channels --config liverelay.json
                       liverelay channels --config liverelay.json --gc --dry-run
            """)

    @Option(name: .shortAndLong, help: "The config file.")
    var config: String

    @Flag(help: "Delete the stale channels.")
    var gc = false

    @Flag(help: "With --gc: list what would be deleted, delete nothing.")
    var dryRun = false

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        logging.bootstrap()
        let (loaded, rules) = try loadForRun(configPath: config)
        let environment = WorkerEnvironment.live(logger: Logger(label: "liverelay.channels"), output: standardOutput)
        try await withStateStore(loaded) { store in
            let worker = try await buildWorker(loaded, rules: rules, store: store, environment: environment)
            defer { worker.shutdown() }
            let now = environment.now()
            let known = try await store.channels()
            let sweeps: [ChannelSweep]
            do {
                sweeps = try await worker.pipeline.collectChannels(dryRun: !gc || dryRun, now: now)
            } catch {
                standardError("error: \(error)")
                throw ExitCode(1)
            }
            if sweeps.isEmpty {
                standardError("no provider has channels (an apns provider with \"channels\")")
                throw ExitCode(1)
            }
            var failed = false
            for sweep in sweeps {
                if let error = sweep.error {
                    standardOutput("\(sweep.provider): cannot list the channels: \(error)")
                    failed = true
                    continue
                }
                standardOutput(
                    "\(sweep.provider): \(sweep.listed) channel\(sweep.listed == 1 ? "" : "s") at APNs, "
                        + "\(sweep.known) known, \(sweep.stale.count) stale")
                let stale = Set(sweep.stale.map(\.id))
                for channel in known where channel.provider == sweep.provider && !stale.contains(channel.id) {
                    let deletion = channel.deleteAt.map { " deleted at \(ISO8601Time.string($0))" } ?? ""
                    standardOutput("  open    \(channel.id)  \(channel.activity)\(deletion)")
                }
                for s in sweep.stale {
                    let verb: String
                    if let failure = sweep.failures[s.id] {
                        verb = "kept   "
                        failed = true
                        standardOutput(
                            "  \(verb) \(s.id)  \(s.activity?.rawValue ?? "-")  \(s.reason.rawValue): \(failure)")
                        continue
                    }
                    verb = !gc || dryRun ? "stale  " : (s.reason == .missing ? "forgot " : "deleted")
                    standardOutput("  \(verb) \(s.id)  \(s.activity?.rawValue ?? "-")  \(s.reason.rawValue)")
                }
            }
            if gc, dryRun { standardOutput("dry run: nothing deleted") }
            if failed { throw ExitCode(1) }
        }
    }
}
