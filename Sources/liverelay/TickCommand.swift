import ArgumentParser
import Foundation
import Logging
import Worker

struct TickCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tick",
        abstract: "Poll every feed once, evaluate the rules, send the pushes, save the state, and exit.",
        discussion: """
            Made for cron: each tick reads the facts and activity states the previous tick saved (in the SQLite \
            file the config names), so an unchanged feed sends nothing. Prints one line per feed. Exits 1 when a \
            feed or a push failed.

            Example:  liverelay tick --config Samples/demo/liverelay.json
            """)

    @Option(name: .shortAndLong, help: "The config file.")
    var config: String

    @Option(help: "Pretend the time is this ISO 8601 moment (for tests and dry runs).")
    var now: String?

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        logging.bootstrap()
        let (loaded, rules) = try loadForRun(configPath: config)
        var environment = WorkerEnvironment.live(logger: Logger(label: "liverelay.tick"), output: standardOutput)
        if let now {
            guard let seconds = ISO8601Time.seconds(now) else {
                throw ValidationError("--now must be an ISO 8601 time")
            }
            environment.now = { seconds }
        }
        try await withStateStore(loaded) { store in
            let worker = try await buildWorker(loaded, rules: rules, store: store, environment: environment)
            defer { worker.shutdown() }
            let report: TickReport
            do {
                report = try await worker.runOnce()
            } catch {
                standardError("error: \(error)")
                throw ExitCode(1)
            }
            for feed in report.feeds { standardError(feed.description) }
            if report.timers.read > 0 || report.timers.error != nil { standardError(report.timers.description) }
            standardError(report.delivery.description)
            if report.failed { throw ExitCode(1) }
        }
    }
}
