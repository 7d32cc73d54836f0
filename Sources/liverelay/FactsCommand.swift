import ArgumentParser
import Feeds
import Foundation
import LiveRelayCore
import Worker

struct FactsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "facts",
        abstract: "Print the facts a feed body normalises to, as JSON keyed by entity: what rules receive.",
        discussion: """
            Reads a file or fetches a URL once, normalises the body with a preset (or a config's feed), and \
            prints one line per entity. A body that does not fit prints the same error the poller would log \
            (feed, URL without secrets, what was wrong) and exits 1.

            Options of a preset go in --option key=value (symbols as a comma-separated list): sport and \
            clock-direction (espn-scoreboard), symbols (binance, kraken, coingecko), product \
            (coinbase-exchange), currency (coingecko).

            Examples:
              liverelay facts --preset espn-scoreboard --option sport=soccer Samples/recordings/espn-soccer-scoreboard-3-final-pens.json
              liverelay facts --preset kraken 'https://api.kraken.com/0/public/Ticker?pair=XBTUSD'
              liverelay facts --config Samples/presets/binance.json --feed markets
            """)

    @Option(help: "The preset: \(FeedPreset.allCases.map(\.rawValue).joined(separator: ", ")).")
    var preset: String?

    @Option(name: .customLong("option"), help: "A preset option, key=value (repeatable).")
    var options: [String] = []

    @Option(name: .shortAndLong, help: "A config file; with --feed, read that feed as the poller does.")
    var config: String?

    @Option(help: "The feed of --config to read.")
    var feed: String?

    @Argument(help: "A file, or an http(s):// or file: URL. With --config, it replaces the feed's URL.")
    var source: String?

    func validate() throws {
        if (preset == nil) == (config == nil) { throw ValidationError("give either --preset or --config with --feed") }
        if config != nil, feed == nil { throw ValidationError("--config needs --feed <id>") }
        if preset != nil, source == nil { throw ValidationError("--preset needs a file or URL to read") }
        if preset == nil, !options.isEmpty { throw ValidationError("--option goes with --preset") }
    }

    func run() async throws {
        let runtime: FeedRuntime
        var caFile: String?
        if let preset {
            runtime = try adHocFeed(preset: preset, source: source!)
        } else {
            let (loaded, _) = try loadForRun(configPath: config!)
            guard var configured = loaded.feeds.first(where: { $0.id == feed }) else {
                standardError(
                    "\(config!): no feed \"\(feed!)\" (the config defines \(loaded.feeds.map(\.id).joined(separator: ", ")))"
                )
                throw ExitCode(1)
            }
            if let source { configured.url = Self.url(source) }
            runtime = configured
            caFile = loaded.config.http.caFile.map(loaded.resolve)
        }
        switch await runtime.currentFacts(caFile: caFile) {
        case .failure(let error):
            standardError("error (\(error.kind)): \(error)")
            throw ExitCode(1)
        case .success(let facts):
            standardOutput(Self.render(facts))
        }
    }

    private func adHocFeed(preset name: String, source: String) throws -> FeedRuntime {
        guard let preset = FeedPreset(rawValue: name) else {
            throw ValidationError(
                "unknown preset \"\(name)\" (known: \(FeedPreset.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        var values = PresetOptions()
        for option in options {
            let parts = option.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[1].isEmpty else {
                throw ValidationError("--option \(option): expected key=value")
            }
            guard preset.optionNames.contains(parts[0]), parts[0] != "token" else {
                let allowed = preset.optionNames.filter { $0 != "token" }
                throw ValidationError(
                    "--option \(parts[0]): \(name) takes \(allowed.isEmpty ? "no options" : allowed.joined(separator: ", "))"
                )
            }
            switch parts[0] {
            case "sport": values.sport = parts[1]
            case "product": values.product = parts[1]
            case "currency": values.currency = parts[1]
            case "symbols": values.symbols = parts[1].split(separator: ",").map(String.init)
            default:
                guard let direction = ClockDirection(rawValue: parts[1]) else {
                    throw ValidationError("--option clock-direction: up or down, not \(parts[1])")
                }
                values.clockDirection = direction
            }
        }
        let url = Self.url(source)
        do {
            return FeedRuntime(id: name, url: url, normalizer: try preset.normalizer(options: values, url: url))
        } catch {
            throw ValidationError("--option \(error.description)")
        }
    }

    /// A URL as given, or a file path made a `file://` URL.
    static func url(_ source: String) -> String {
        if source.hasPrefix("http://") || source.hasPrefix("https://") || source.hasPrefix("file:") { return source }
        return URL(fileURLWithPath: source).standardizedFileURL.absoluteString
    }

    /// One entity per line, sorted, so a diff of two bodies' facts reads well.
    static func render(_ facts: [String: Facts]) -> String {
        guard !facts.isEmpty else { return "{}" }
        let lines = facts.keys.sorted().map {
            "  \(JSONValue.string($0).jsonString()): \(facts[$0]!.value.jsonString())"
        }
        return "{\n" + lines.joined(separator: ",\n") + "\n}"
    }
}
