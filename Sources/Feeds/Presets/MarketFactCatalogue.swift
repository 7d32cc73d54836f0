/// The facts of the four market presets. A fact has one name and one meaning across them (one rule file
/// serves all four); a preset whose source cannot give a fact exactly leaves it out rather than guess.
/// Prices and volumes are exact decimals; a computed percentage is rounded to
/// ``MarketFacts/percentScale`` decimals.
enum MarketFactCatalogue {
    /// `price`, with where the preset reads it.
    static func price(_ source: String) -> FactDescription {
        FactDescription("price", .decimal, "the last trade price (\(source))")
    }

    /// `symbol`, with what it is for the preset.
    static func symbol(_ what: String) -> FactDescription {
        FactDescription("symbol", .string, what)
    }

    /// `bid` and `ask`.
    static func bidAsk(_ bid: String, _ ask: String, condition: String? = nil) -> [FactDescription] {
        [
            FactDescription("bid", .decimal, "the best bid (\(bid))", condition: condition),
            FactDescription("ask", .decimal, "the best ask (\(ask))", condition: condition),
        ]
    }

    /// `volume`: in the base asset, over the last 24 hours.
    static func volume(_ source: String, condition: String? = nil) -> FactDescription {
        FactDescription(
            "volume", .decimal, "the volume traded over the last 24 hours, in the base asset (\(source))",
            condition: condition)
    }

    /// `quoteVolume`: in the quote currency, over the last 24 hours.
    static func quoteVolume(_ source: String, condition: String? = nil) -> FactDescription {
        FactDescription(
            "quoteVolume", .decimal, "the volume traded over the last 24 hours, in the quote currency (\(source))",
            condition: condition)
    }

    /// `high24h` and `low24h`.
    static func highLow(_ high: String, _ low: String, condition: String? = nil) -> [FactDescription] {
        [
            FactDescription(
                "high24h", .decimal, "the highest price of the last 24 hours (\(high))", condition: condition),
            FactDescription("low24h", .decimal, "the lowest price of the last 24 hours (\(low))", condition: condition),
        ]
    }

    /// `time`.
    static func time(_ what: String, condition: String? = nil) -> FactDescription {
        FactDescription("time", .time, what, condition: condition)
    }
}

extension BinanceTickerNormalizer {
    /// Every fact a Binance ticker can give a symbol.
    public static let catalogue: [FactDescription] = {
        let daily = "from the 24-hour ticker (full or `MINI`), not the price ticker"
        return [
            MarketFactCatalogue.symbol("Binance's symbol (`BTCUSDT`)"),
            MarketFactCatalogue.price("`lastPrice`; the price ticker's `price`"),
        ]
            + MarketFactCatalogue.bidAsk("`bidPrice`", "`askPrice`", condition: "from the full 24-hour ticker")
            + [
                FactDescription(
                    "open24h", .decimal, "the price 24 hours ago, where the rolling window opens (`openPrice`)",
                    condition: daily),
                FactDescription(
                    "change24h.absolute", .decimal, "`price` − `open24h` (`priceChange`; `MINI`: computed, exact)",
                    condition: daily),
                FactDescription(
                    "change24h.percent", .decimal,
                    "the change over 24 hours in percent (`priceChangePercent`; `MINI`: computed, 4 decimals)",
                    condition: daily + ", and for `MINI` an `openPrice` other than 0"),
            ]
            + MarketFactCatalogue.highLow("`highPrice`", "`lowPrice`", condition: daily)
            + [
                MarketFactCatalogue.volume("`volume`", condition: daily),
                MarketFactCatalogue.quoteVolume("`quoteVolume`", condition: daily),
                MarketFactCatalogue.time("the close of the 24-hour window (`closeTime`)", condition: daily),
            ]
    }()

    /// The catalogue of this preset (``catalogue``).
    public var factCatalogue: [FactDescription]? { Self.catalogue }
}

extension CoinbaseTickerNormalizer {
    /// Every fact a Coinbase Exchange ticker gives its product.
    public static let catalogue: [FactDescription] = {
        let sent = "when the ticker carries it"
        return [
            MarketFactCatalogue.symbol("the product id (`BTC-USD`), from the config or the URL"),
            FactDescription(
                "currency", .string, "the product's quote currency (`USD`)",
                condition: "when the product id is `BASE-QUOTE`"),
            MarketFactCatalogue.price("`price`"),
        ]
            + MarketFactCatalogue.bidAsk("`bid`", "`ask`", condition: sent)
            + [
                MarketFactCatalogue.volume("`volume`", condition: sent),
                MarketFactCatalogue.time("the last trade's time (`time`)", condition: sent),
            ]
    }()

    /// The catalogue of this preset (``catalogue``).
    public var factCatalogue: [FactDescription]? { Self.catalogue }
}

extension KrakenTickerNormalizer {
    /// Every fact a Kraken ticker can give a pair.
    public static let catalogue: [FactDescription] = {
        let open = "when the ticker has `o`"
        return [
            MarketFactCatalogue.symbol("Kraken's short pair name (`XBTUSD` for `XXBTZUSD`, `BCHEUR`)"),
            MarketFactCatalogue.price("`c[0]`"),
        ]
            + MarketFactCatalogue.bidAsk("`b[0]`", "`a[0]`")
            + MarketFactCatalogue.highLow("`h[1]`", "`l[1]`")
            + [
                MarketFactCatalogue.volume("`v[1]`"),
                FactDescription(
                    "openToday", .decimal, "today's opening price, today starting at 00:00 UTC (`o`)", condition: open),
                FactDescription(
                    "changeToday.absolute", .decimal, "`price` − `openToday` (exact)", condition: open),
                FactDescription(
                    "changeToday.percent", .decimal, "the change since `openToday` in percent (4 decimals)",
                    condition: "when the ticker has an `o` other than 0"),
            ]
    }()

    /// The catalogue of this preset (``catalogue``).
    public var factCatalogue: [FactDescription]? { Self.catalogue }
}

extension CoinGeckoPriceNormalizer {
    /// Every fact CoinGecko's simple price can give a coin.
    public static let catalogue: [FactDescription] = [
        MarketFactCatalogue.symbol("the coin id (`bitcoin`)"),
        FactDescription("currency", .string, "the currency the prices are in, upper-cased (`USD`)"),
        MarketFactCatalogue.price("`<currency>`, CoinGecko's aggregate price"),
        FactDescription(
            "change24h.percent", .decimal, "the change over 24 hours in percent (`<currency>_24h_change`)",
            condition: "with `include_24hr_change=true`"),
        MarketFactCatalogue.quoteVolume("`<currency>_24h_vol`", condition: "with `include_24hr_vol=true`"),
        FactDescription(
            "marketCap", .decimal, "the market capitalisation in the currency (`<currency>_market_cap`)",
            condition: "with `include_market_cap=true`"),
        MarketFactCatalogue.time(
            "when CoinGecko last updated the price (`last_updated_at`)",
            condition: "with `include_last_updated_at=true`"),
    ]

    /// The catalogue of this preset (``catalogue``).
    public var factCatalogue: [FactDescription]? { Self.catalogue }
}
