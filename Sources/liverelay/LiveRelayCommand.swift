public import ArgumentParser
import Foundation
import Logging
import Synchronization
import Worker

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
        version: BuildInfo.description,
        subcommands: [
            CheckCommand.self, TickCommand.self, RunCommand.self, ReplayCommand.self, EvalCommand.self,
            FactsCommand.self, SendCommand.self, ChannelsCommand.self, MigrateCommand.self,
        ])

    /// Signal dispositions come first, before anything can take time: a closed pipe is an error, not the end
    /// of the process, and `run` takes SIGHUP as "reload the rules" (its reloader listens once it starts; a
    /// SIGHUP before that, as a supervisor may send, must not end it: the rules are read fresh anyway).
    ///
    /// glibc's allocator gets at most two arenas unless `MALLOC_ARENA_MAX` says otherwise: with one per thread
    /// (up to 8 per core), memory freed on another thread than the one that took it is kept, and a goal to
    /// 100,000 devices through `replay` peaked at 520–580 MB of RSS; with two, at 250 MB, at the same speed
    /// (BENCHMARKS.md, "Memory").
    static func main() async {
        if ProcessInfo.processInfo.environment["MALLOC_ARENA_MAX"] == nil { limitMallocArenas(to: 2) }
        _ = signal(SIGPIPE, SIG_IGN)
        if CommandLine.arguments.dropFirst().first == "run" { _ = signal(SIGHUP, SIG_IGN) }
        await main(nil)
    }
}

/// glibc's `mallopt(M_ARENA_MAX, n)` (`malloc.h` is not in Swift's Glibc module; `M_ARENA_MAX` is -8 in
/// glibc's ABI). Does nothing where there is no `mallopt`.
private func limitMallocArenas(to count: Int32) {
    typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
    guard let symbol = dlsym(nil, "mallopt") else { return }
    _ = unsafeBitCast(symbol, to: Mallopt.self)(-8, count)
}

/// Options every command that reads a config shares: how it logs. Each option falls back to its
/// environment variable, then to its default (a flag wins over the environment).
struct LoggingOptions: ParsableArguments {
    @Option(
        help: """
            Log level on standard error: trace, debug, info, notice, warning, error, critical             (else $LIVERELAY_LOG_LEVEL, else warning).
            """)
    var logLevel: Logger.Level?

    @Option(help: "Log lines as text or json, one object per line (else $LIVERELAY_LOG_FORMAT, else text).")
    var logFormat: LineLogHandler.Format?

    func validate() throws {
        _ = try resolved(ProcessInfo.processInfo.environment)
    }

    /// The level and format: the flag's, else the environment's, else the defaults.
    func resolved(_ environment: [String: String]) throws -> (Logger.Level, LineLogHandler.Format) {
        var level = Logger.Level.warning
        if let logLevel {
            level = logLevel
        } else if let raw = environment["LIVERELAY_LOG_LEVEL"] {
            guard let parsed = Logger.Level(rawValue: raw.lowercased()) else {
                throw ValidationError(
                    "LIVERELAY_LOG_LEVEL=\(raw): expected trace, debug, info, notice, warning, error or critical")
            }
            level = parsed
        }
        var format = LineLogHandler.Format.text
        if let logFormat {
            format = logFormat
        } else if let raw = environment["LIVERELAY_LOG_FORMAT"] {
            guard let parsed = LineLogHandler.Format(rawValue: raw.lowercased()) else {
                throw ValidationError("LIVERELAY_LOG_FORMAT=\(raw): expected text or json")
            }
            format = parsed
        }
        return (level, format)
    }

    /// The log format in force (the flag's, else the environment's, else text).
    var format: LineLogHandler.Format {
        (try? resolved(ProcessInfo.processInfo.environment))?.1 ?? .text
    }

    func bootstrap() {
        let (level, format) = (try? resolved(ProcessInfo.processInfo.environment)) ?? (.warning, .text)
        LoggingSystem.bootstrap { label in LineLogHandler(label: label, format: format, level: level) }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
extension LineLogHandler.Format: ExpressibleByArgument {}

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
