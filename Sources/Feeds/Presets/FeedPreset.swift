import Foundation

/// The feeds LiveRelay understands without a mapping. A feed names one with `"preset"` in the config.
public enum FeedPreset: String, Sendable, Hashable, CaseIterable {
    /// ESPN site API scoreboard, any head-to-head sport and league.
    case espnScoreboard = "espn-scoreboard"
    /// football-data.org v4 matches.
    case footballData = "football-data"
    /// Binance `/api/v3/ticker/24hr` and `/api/v3/ticker/price`.
    case binance
    /// Coinbase Exchange `/products/{id}/ticker`.
    case coinbaseExchange = "coinbase-exchange"
    /// Kraken `/0/public/Ticker`.
    case kraken
    /// CoinGecko `/api/v3/simple/price`.
    case coingecko

    /// The options a preset reads (config keys beside `name`).
    public var optionNames: [String] {
        switch self {
        case .espnScoreboard: ["sport", "clock-direction"]
        case .footballData: ["token"]
        case .binance, .kraken: ["symbols"]
        case .coinbaseExchange: ["product"]
        case .coingecko: ["symbols", "currency"]
        }
    }

    /// True for the presets whose facts are matches (`state`, `home.score`, …) rather than prices.
    public var isSports: Bool { self == .espnScoreboard || self == .footballData }

    /// Every fact the preset can give an entity, with its type and meaning; the facts that not every
    /// entity has say when they are there. A rule reading `curr.<path>` of a path not listed reads `null`.
    public var factCatalogue: [FactDescription] {
        switch self {
        case .espnScoreboard: ESPNScoreboardNormalizer.catalogue
        case .footballData: FootballDataNormalizer.catalogue
        case .binance: BinanceTickerNormalizer.catalogue
        case .coinbaseExchange: CoinbaseTickerNormalizer.catalogue
        case .kraken: KrakenTickerNormalizer.catalogue
        case .coingecko: CoinGeckoPriceNormalizer.catalogue
        }
    }

    /// The normaliser for these options. `url` fills in what the options leave out when it says it: the
    /// ESPN sport (`…/sports/soccer/…`; without either, each body's leagues tell it, and an option the URL
    /// contradicts is an error), the Coinbase product (`…/products/BTC-USD/ticker`) and the CoinGecko
    /// currency (`vs_currencies=usd`).
    public func normalizer(options: PresetOptions, url: String?) throws(PresetError) -> any FeedNormalizer {
        switch self {
        case .espnScoreboard:
            let fromURL = url.flatMap { Self.segment(after: "sports", in: $0) }
            if let option = options.sport, let fromURL, !ESPNSport.same(option, fromURL) {
                throw PresetError(
                    option: "sport",
                    message:
                        "\"\(option)\" contradicts the URL, which names the sport \(fromURL) (…/sports/\(fromURL)/…): correct \"sport\" or leave it out"
                )
            }
            // Neither: each body's leagues tell the sport.
            return ESPNScoreboardNormalizer(
                sport: options.sport ?? fromURL, origin: options.sport == nil ? .url : .option,
                clockDirection: options.clockDirection)
        case .footballData:
            return FootballDataNormalizer()
        case .binance:
            return BinanceTickerNormalizer(symbols: options.symbols)
        case .coinbaseExchange:
            guard let product = options.product ?? url.flatMap({ Self.segment(after: "products", in: $0) }) else {
                throw PresetError(
                    option: "product",
                    message:
                        "the Coinbase Exchange preset needs \"product\" (BTC-USD, …) when the URL does not name it (…/products/{product}/ticker)"
                )
            }
            return CoinbaseTickerNormalizer(product: product)
        case .kraken:
            return KrakenTickerNormalizer(symbols: options.symbols)
        case .coingecko:
            let fromURL = url.flatMap { Self.query("vs_currencies", in: $0) }?.split(separator: ",").first
            return CoinGeckoPriceNormalizer(
                currency: options.currency ?? fromURL.map(String.init) ?? "usd", coins: options.symbols)
        }
    }

    /// The path segment after `name` in a URL: `sports` in `…/sports/soccer/fifa.world/scoreboard` → `soccer`.
    static func segment(after name: String, in url: String) -> String? {
        guard let path = URLComponents(string: url)?.path else { return nil }
        let parts = path.split(separator: "/").map(String.init)
        guard let i = parts.firstIndex(of: name), i + 1 < parts.count, !parts[i + 1].isEmpty else { return nil }
        return parts[i + 1].removingPercentEncoding ?? parts[i + 1]
    }

    static func query(_ name: String, in url: String) -> String? {
        URLComponents(string: url)?.queryItems?.first { $0.name == name }?.value.flatMap { $0.isEmpty ? nil : $0 }
    }
}
