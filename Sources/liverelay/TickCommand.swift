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
        var clock = Int(Date().timeIntervalSince1970)
        if let now {
            guard let seconds = ISO8601Time.seconds(now) else {
                throw ValidationError("--now must be an ISO 8601 time")
            }
            clock = seconds
        }
        let store = try openStore(loaded.resolve(loaded.config.state))
        let logger = Logger(label: "liverelay.tick")
        let provider = try WorkerFactory.provider(
            for: loaded, write: standardOutput, tokenCache: StoreTokenCache(store: store))
        let transport = try WorkerFactory.transport(for: loaded)
        defer { transport.shutdown() }
        let tick = Tick(
            pipeline: try await WorkerFactory.pipeline(
                for: loaded, rules: rules, store: store, provider: provider, logger: logger,
                router: try WorkerFactory.router(
                    for: loaded, rules: rules, store: store, logger: logger, defaultProvider: provider,
                    write: standardOutput)),
            fetcher: FeedFetcher(transport: transport))
        let report = try await tick.run(feeds: loaded.feeds, now: clock)
        for feed in report.feeds { standardError(feed.description) }
        standardError(report.delivery.description)
        if report.failed { throw ExitCode(1) }
    }
}
