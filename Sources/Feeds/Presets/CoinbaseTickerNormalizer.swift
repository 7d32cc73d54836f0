public import Foundation
public import LiveRelayCore

/// Coinbase Exchange `/products/{product}/ticker`: one entity, the product (`BTC-USD`), which the body
/// itself does not name.
///
/// Facts: `price` (last trade), `bid`, `ask`, `volume` (24 hours, base currency), `time` (of the last
/// trade), `symbol` (the product) and `currency` (the product's quote currency, `USD`). This endpoint has no
/// open, high, low or 24-hour change.
public struct CoinbaseTickerNormalizer: FeedNormalizer {
    /// The product id, the entity's id.
    public let product: String

    /// A normaliser for one product's ticker.
    public init(product: String) {
        self.product = product
    }

    /// The facts of every entity in `body`; any problem fails the whole body.
    public func normalize(_ body: Data) throws(NormalizationFailure) -> [String: Facts] {
        let root = try BodyNode.parse(body)
        if root.value["price"] == nil, let message = root.value["message"]?.stringValue {
            throw NormalizationFailure(kind: .provider, message: "Coinbase reported: \(message)")
        }
        var facts = MarketFacts()
        do {
            try facts.decimal("price", try root.member("price", of: "a Coinbase Exchange ticker"))
            try facts.decimal("bid", root.optional("bid"))
            try facts.decimal("ask", root.optional("ask"))
            try facts.decimal("volume", root.optional("volume"))
            try facts.time(root.optional("time"))
            facts.set("symbol", .string(product))
            if let currency = Self.quoteCurrency(of: product) { facts.set("currency", .string(currency)) }
        } catch {
            throw error.about("product \(product)")
        }
        return [product: facts.facts]
    }

    /// The quote currency of a `BASE-QUOTE` product id, upper-cased: `btc-usd` → `USD`.
    static func quoteCurrency(of product: String) -> String? {
        let parts = product.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        return parts[1].uppercased()
    }
}
