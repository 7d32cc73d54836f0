public import Foundation
public import LiveRelayCore

/// CoinGecko `/api/v3/simple/price?ids=…&vs_currencies=…`: one entity per coin id (`bitcoin`), in one
/// currency.
///
/// Facts: `price`, `symbol` (the coin id), `currency` (upper-cased), and when the request asks for them
/// (`include_24hr_change`, `include_24hr_vol`, `include_market_cap`, `include_last_updated_at`),
/// `change24h.percent`, `quoteVolume` (24 hours, in the currency: CoinGecko gives no volume in the coin),
/// `marketCap` and `time`. CoinGecko writes JSON numbers; they are read as exact decimals.
public struct CoinGeckoPriceNormalizer: FeedNormalizer {
    /// The `vs_currencies` code the facts are read in (`usd`).
    public let currency: String
    private let filter: SymbolFilter

    /// Reads prices in `currency`; follows `coins` only, or every coin of the body.
    public init(currency: String = "usd", coins: [String]? = nil) {
        self.currency = currency.lowercased()
        filter = SymbolFilter(symbols: coins)
    }

    /// The facts of every entity in `body`; any problem fails the whole body.
    public func normalize(_ body: Data) throws(NormalizationFailure) -> [String: Facts] {
        let root = try BodyNode.parse(body)
        guard case .object(let members) = root.value else { throw root.mismatch("an object keyed by coin id") }
        if let status = members["status"]?.objectValue, let message = status["error_message"]?.stringValue {
            throw NormalizationFailure(kind: .provider, message: "CoinGecko reported: \(message)")
        }
        if case .string(let message)? = members["error"] {
            throw NormalizationFailure(kind: .provider, message: "CoinGecko reported: \(message)")
        }
        var out: [String: Facts] = [:]
        for (coin, quote) in try root.members() {
            guard let entity = filter.entity(for: coin) else { continue }
            do throws(NormalizationFailure) {
                var facts = MarketFacts()
                guard case .object = quote.value else { throw quote.mismatch("an object of prices") }
                facts.set("symbol", .string(coin))
                facts.set("currency", .string(currency.uppercased()))
                try facts.decimal("price", try quote.member(currency))
                try facts.decimal("change24h.percent", quote.optional("\(currency)_24h_change"))
                try facts.decimal("quoteVolume", quote.optional("\(currency)_24h_vol"))
                try facts.decimal("marketCap", quote.optional("\(currency)_market_cap"))
                try facts.time(quote.optional("last_updated_at"))
                out[entity] = facts.facts
            } catch {
                throw error.about("coin \(coin)")
            }
        }
        return out
    }
}
