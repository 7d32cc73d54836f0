public import Foundation
public import LiveRelayCore

/// Binance spot tickers: `/api/v3/ticker/24hr` (full or `MINI`) and `/api/v3/ticker/price`, for one
/// symbol (an object) or many (an array). One entity per symbol (`BTCUSDT`).
///
/// A 24-hour ticker gives `price` (the last price), `bid`, `ask`, `volume` (base asset),
/// `change24h.percent`, `change24h.absolute`, `high24h`, `low24h` and `time` (the window's close time); a
/// price ticker gives `price` alone. Binance writes every number as a decimal string.
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
                out[entity] = try Self.facts(of: ticker)
            } catch {
                throw error.about("symbol \(symbol)")
            }
        }
        return out
    }

    private static func facts(of ticker: BodyNode) throws(NormalizationFailure) -> Facts {
        var facts = MarketFacts()
        if let last = ticker.optional("lastPrice") {
            try facts.decimal("price", last)
            try facts.decimal("bid", ticker.optional("bidPrice"))
            try facts.decimal("ask", ticker.optional("askPrice"))
            try facts.decimal("volume", ticker.optional("volume"))
            try facts.decimal("change24h.percent", ticker.optional("priceChangePercent"))
            try facts.decimal("change24h.absolute", ticker.optional("priceChange"))
            try facts.decimal("high24h", ticker.optional("highPrice"))
            try facts.decimal("low24h", ticker.optional("lowPrice"))
            try facts.time(ticker.optional("closeTime"))
        } else if let price = ticker.optional("price") {
            try facts.decimal("price", price)
        } else {
            throw .shape("\(ticker.place) has neither lastPrice (24-hour ticker) nor price (price ticker)")
        }
        return facts.facts
    }
}
