public import ArgumentParser
import Foundation
import Logging
import Synchronization

@main
struct LiveRelayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "liverelay",
        abstract: "Keeps iOS Live Activities in step with live score and price feeds.",
        discussion: """
            LiveRelay polls feeds, turns each change into Live Activity content-state updates with JSON rules, \
            and delivers the pushes through the configured provider. With no credentials it prints every push \
            as the exact APNs request it stands for.

            Start with:  liverelay replay Samples/sequences/espn-aus-egy/sequence.json --config Samples/demo/liverelay.json
            """,
        subcommands: [
            CheckCommand.self, TickCommand.self, RunCommand.self, ReplayCommand.self, EvalCommand.self,
            FactsCommand.self, SendCommand.self, ChannelsCommand.self, MigrateCommand.self,
        ])

    /// Signal dispositions come first, before anything can take time: a closed pipe is an error, not the end
    /// of the process, and `run` takes SIGHUP as "reload the rules" (its reloader listens once it starts; a
    /// SIGHUP before that, as a supervisor may send, must not end it: the rules are read fresh anyway).
    static func main() async {
        _ = signal(SIGPIPE, SIG_IGN)
        if CommandLine.arguments.dropFirst().first == "run" { _ = signal(SIGHUP, SIG_IGN) }
        await main(nil)
    }
}

/// Options every command that reads a config shares.
struct LoggingOptions: ParsableArguments {
    @Option(help: "Log level on standard error: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .warning

    func bootstrap() {
        let level = logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

/// A closed pipe is a write error (EPIPE), not a signal that ends the process.
private let pipeSignalIgnored: Void = { _ = signal(SIGPIPE, SIG_IGN) }()
/// Whether standard output was found closed (said once).
private let outputClosed = Mutex(false)

/// Writes to standard output without buffering surprises when output is piped. Once the reader is gone
/// (`liverelay replay … | head`), the rest is dropped with one line on standard error; the command goes on.
let standardOutput: @Sendable (String) -> Void = { line in
    _ = pipeSignalIgnored
    do {
        try FileHandle.standardOutput.write(contentsOf: Data((line + "\n").utf8))
    } catch {
        let first = outputClosed.withLock { closed in
            defer { closed = true }
            return !closed
        }
        if first {
            standardError("standard output is closed (\(error.localizedDescription)): the rest of it is dropped")
        }
    }
}

/// Writes to standard error.
let standardError: @Sendable (String) -> Void = { line in
    _ = pipeSignalIgnored
    try? FileHandle.standardError.write(contentsOf: Data((line + "\n").utf8))
}
