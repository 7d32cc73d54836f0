public import Foundation
public import LiveRelayCore

/// Binance spot tickers: `/api/v3/ticker/24hr` (full or `MINI`) and `/api/v3/ticker/price`, for one
/// symbol (an object) or many (an array). One entity per symbol (`BTCUSDT`).
///
/// A 24-hour ticker gives `price` (the last price), `open24h`, `high24h`, `low24h`, `change24h.absolute`,
/// `change24h.percent`, `volume` (base asset), `quoteVolume` and `time` (the rolling window's close time);
/// the full one adds `bid` and `ask`. The `MINI` ticker has no change, which is computed from `openPrice`.
/// A price ticker gives `price` alone. Every entity has `symbol`, Binance's own spelling. Binance writes
/// every number as a decimal string.
public struct BinanceTickerNormalizer: FeedNormalizer {
    private let filter: SymbolFilter

    /// Follows `symbols` only, or every symbol of the body when `nil`.
    public init(symbols: [String]? = nil) {
        filter = SymbolFilter(symbols: symbols)
    }

    /// The facts of every entity in `body`; any problem fails the whole body.
    public func normalize(_ body: Data) throws(NormalizationFailure) -> [String: Facts] {
        let root = try BodyNode.parse(body)
        let tickers: [BodyNode]
        switch root.value {
        case .array: tickers = try root.elements()
        case .object(let members):
            if let code = members["code"], let message = members["msg"]?.stringValue {
                throw NormalizationFailure(
                    kind: .provider, message: "Binance reported error \(code.jsonString()): \(message)")
            }
            tickers = [root]
        default: throw root.mismatch("an array of tickers or one ticker")
        }
        var out: [String: Facts] = [:]
        for ticker in tickers {
            let symbol = try ticker.member("symbol").string()
            guard let entity = filter.entity(for: symbol) else { continue }
            guard out[entity] == nil else { throw .shape("\(ticker.place): duplicate symbol \(symbol)") }
            do {
                out[entity] = try Self.facts(of: ticker, symbol: symbol)
            } catch {
                throw error.about("symbol \(symbol)")
            }
        }
        return out
    }

    private static func facts(of ticker: BodyNode, symbol: String) throws(NormalizationFailure) -> Facts {
        var facts = MarketFacts()
        facts.set("symbol", .string(symbol))
        if let last = ticker.optional("lastPrice") {
            let price = try facts.decimal("price", last)!
            try facts.decimal("bid", ticker.optional("bidPrice"))
            try facts.decimal("ask", ticker.optional("askPrice"))
            let open = try facts.decimal("open24h", ticker.optional("openPrice"))
            try facts.decimal("high24h", ticker.optional("highPrice"))
            try facts.decimal("low24h", ticker.optional("lowPrice"))
            try facts.decimal("volume", ticker.optional("volume"))
            try facts.decimal("quoteVolume", ticker.optional("quoteVolume"))
            if ticker.optional("priceChange") == nil, let open {
                facts.change("change24h", price: price, open: open)
            }
            try facts.decimal("change24h.absolute", ticker.optional("priceChange"))
            try facts.decimal("change24h.percent", ticker.optional("priceChangePercent"))
            try facts.time(ticker.optional("closeTime"))
        } else if let price = ticker.optional("price") {
            try facts.decimal("price", price)
        } else {
            throw .shape("\(ticker.place) has neither lastPrice (24-hour ticker) nor price (price ticker)")
        }
        return facts.facts
    }
}
