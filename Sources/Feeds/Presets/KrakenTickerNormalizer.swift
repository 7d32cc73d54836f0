public import Foundation
public import LiveRelayCore

/// Kraken `/0/public/Ticker?pair=…`: one entity per pair.
///
/// Kraken answers HTTP 200 even for errors, listing them in `error[]`: any `E…` entry is a feed error.
/// `result` is keyed by Kraken's own pair name (`XBTUSD` comes back as `XXBTZUSD`); the entity id is the
/// pair as the config's `symbols` spell it, or else Kraken's short name (`XBTUSD`, `BCHEUR`).
///
/// Facts: `price` (last trade), `bid`, `ask`, `volume`, `high24h` and `low24h` (the last 24 hours),
/// `symbol` (Kraken's short name), and `openToday` (`o`) with `changeToday.absolute` and
/// `changeToday.percent`. Kraken's "today" starts at 00:00 UTC, so this is no 24-hour change: the ticker
/// has none, nor the price of 24 hours ago to compute one from.
public struct KrakenTickerNormalizer: FeedNormalizer {
    private let filter: SymbolFilter

    /// Follows `symbols` only (`XBTUSD`, `BTC/USD` and `XXBTZUSD` name the same pair), or every pair.
    public init(symbols: [String]? = nil) {
        filter = SymbolFilter(symbols: symbols)
    }

    /// The facts of every entity in `body`; any problem fails the whole body.
    public func normalize(_ body: Data) throws(NormalizationFailure) -> [String: Facts] {
        let root = try BodyNode.parse(body)
        let errors = try root.member("error", of: "a Kraken ticker").elements().map {
            node throws(NormalizationFailure) in try node.string()
        }
        let fatal = errors.filter { $0.hasPrefix("E") }
        if !fatal.isEmpty {
            throw NormalizationFailure(kind: .provider, message: "Kraken reported \(fatal.joined(separator: ", "))")
        }
        var out: [String: Facts] = [:]
        for (pair, ticker) in try root.member("result", of: "a Kraken ticker").members() {
            let short = Self.shortName(pair)
            guard let entity = filter.entity(for: short, matching: { Self.canonical($0) == short || $0 == pair })
            else { continue }
            guard out[entity] == nil else { throw .shape("\(ticker.place): a second pair for \(entity)") }
            do {
                out[entity] = try Self.facts(of: ticker, symbol: short)
            } catch {
                throw error.about("pair \(pair)")
            }
        }
        return out
    }

    private static func facts(of ticker: BodyNode, symbol: String) throws(NormalizationFailure) -> Facts {
        var facts = MarketFacts()
        facts.set("symbol", .string(symbol))
        let price = try facts.decimal("price", try first(ticker, "c"))!
        if let open = try facts.decimal("openToday", ticker.optional("o")) {
            facts.change("changeToday", price: price, open: open)
        }
        try facts.decimal("bid", try first(ticker, "b"))
        try facts.decimal("ask", try first(ticker, "a"))
        try facts.decimal("volume", try second(ticker, "v"))
        try facts.decimal("high24h", try second(ticker, "h"))
        try facts.decimal("low24h", try second(ticker, "l"))
        return facts.facts
    }

    private static func first(_ ticker: BodyNode, _ key: String) throws(NormalizationFailure) -> BodyNode {
        try element(ticker, key, 0)
    }

    /// Kraken's `[today, last 24 hours]` pairs: the second one.
    private static func second(_ ticker: BodyNode, _ key: String) throws(NormalizationFailure) -> BodyNode {
        try element(ticker, key, 1)
    }

    private static func element(_ ticker: BodyNode, _ key: String, _ index: Int) throws(NormalizationFailure)
        -> BodyNode
    {
        let items = try ticker.member(key).elements()
        guard index < items.count else {
            throw .shape("\(ticker.pointer.appending(key)) has \(items.count) elements, expected at least \(index + 1)")
        }
        return items[index]
    }

    /// Kraken's legacy names prefix each asset with `X` (crypto) or `Z` (fiat): `XXBTZUSD` → `XBTUSD`,
    /// `XETHXXBT` → `ETHXBT`. Newer names (`BCHEUR`, `SOLUSD`) are already short.
    static func shortName(_ pair: String) -> String {
        let c = Array(pair)
        guard c.count == 8, "XZ".contains(c[0]), "XZ".contains(c[4]) else { return pair }
        return String(c[1...3] + c[5...7])
    }

    /// A pair as a user may write it (`btc/usd`, `BTCUSD`, `DOGEUSD`) in Kraken's short spelling.
    static func canonical(_ symbol: String) -> String {
        var s = symbol.uppercased().replacingOccurrences(of: "/", with: "")
        for (common, kraken) in [("BTC", "XBT"), ("DOGE", "XDG")] {
            if s.hasPrefix(common) { s = kraken + s.dropFirst(common.count) }
            if s.hasSuffix(common) { s = s.dropLast(common.count) + kraken }
        }
        return s
    }
}
