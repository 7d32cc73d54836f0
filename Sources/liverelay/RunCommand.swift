import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals
import Worker

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run as a service: poll every feed on its interval, send pushes, serve /healthz and /metrics.",
        discussion: """
            Polls each feed every `interval` seconds, delivers what the throttle releases (held pushes go out \
            when their budget returns), reloads the rule files on SIGHUP or when one changes (a broken edit is \
            refused and logged; the running rules stay), and serves the HTTP API configured under "api". A \
            failing state file (locked, full) is logged and retried with backoff, and /healthz says so; the \
            service stays up. SIGTERM or SIGINT stops polling, lets deliveries under way finish, keeps every \
            pending push saved, and exits 0.

            Example:  liverelay run --config Samples/demo/liverelay.json
            """)

    @Option(name: .shortAndLong, help: "The config file.")
    var config: String

    @Option(help: "Seconds deliveries under way may take to finish after SIGTERM/SIGINT.")
    var gracePeriod: Int = 10

    @OptionGroup var logging: LoggingOptions

    @OptionGroup var instance: InstanceOptions

    func validate() throws {
        _ = try instance.overrides(ProcessInfo.processInfo.environment)
    }

    func run() async throws {
        logging.bootstrap()
        raiseDescriptorLimit()
        let (read, rules) = try loadForRun(configPath: config)
        var loaded = read
        try instance.overrides(ProcessInfo.processInfo.environment).apply(to: &loaded)
        try await withStateStore(loaded) { store in
            var environment = WorkerEnvironment.live(logger: Logger(label: "liverelay.run"), output: standardOutput)
            let host = loaded.config.api.host
            // Said whatever the log level (scripts and supervisors wait for it), in the logs' own format.
            let json = logging.format == .json
            environment.onAPIRunning = { port in
                let text = "API listening on http://\(host):\(port)"
                standardError(
                    json
                        ? LineLogHandler.line(
                            .json, at: Date(), level: .notice, label: "liverelay.run", message: text, [:])
                        : "liverelay: \(text)")
            }
            let worker = try await buildWorker(loaded, rules: rules, store: store, environment: environment)
            defer { worker.shutdown() }
            try await worker.serviceGroup(gracePeriod: .seconds(gracePeriod), signals: [.sigterm, .sigint]).run()
        }
    }
}

/// Takes the open-file limit up to what the system allows this process (the soft limit is often 1,024 while
/// the hard one is far higher): feed and provider connections, the state file and the API's capped
/// connections then never compete for the last descriptors.
private func raiseDescriptorLimit() {
    var limit = rlimit()
    guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else {
        return
    }
    limit.rlim_cur = min(limit.rlim_max, 65_536)
    _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
}
