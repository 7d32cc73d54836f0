/// The options of a preset, as the config gives them (`"preset": {"name": "binance", "symbols": […]}`).
public struct PresetOptions: Sendable, Hashable {
    /// ESPN: the sport (`soccer`, `basketball`, …); without it, the URL's, else the body's league. It must
    /// agree with both.
    public var sport: String?
    /// ESPN: overrides the clock direction the sport implies.
    public var clockDirection: ClockDirection?
    /// Binance, Kraken, CoinGecko: the symbols (coin ids for CoinGecko) to follow; all when absent.
    public var symbols: [String]?
    /// Coinbase Exchange: the product id, when the URL does not name it.
    public var product: String?
    /// CoinGecko: the currency to read, when the URL's `vs_currencies` does not say it (default `usd`).
    public var currency: String?

    /// Creates options; all are optional.
    public init(
        sport: String? = nil, clockDirection: ClockDirection? = nil, symbols: [String]? = nil,
        product: String? = nil, currency: String? = nil
    ) {
        self.sport = sport
        self.clockDirection = clockDirection
        self.symbols = symbols
        self.product = product
        self.currency = currency
    }
}
