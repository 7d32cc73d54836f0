import Foundation
import LiveRelayCore

/// Facts of one market symbol under the names every market preset shares; all prices and volumes are
/// exact `Decimal`s, `time` is UNIX seconds.
struct MarketFacts {
    /// The decimals a computed percentage keeps (rounded half away from zero): `-4.3219` %.
    static let percentScale: Int16 = 4

    private(set) var facts = Facts()

    /// Sets a decimal fact from a node, if the node is there, and gives its value.
    @discardableResult
    mutating func decimal(_ name: String, _ node: BodyNode?) throws(NormalizationFailure) -> Decimal? {
        guard let node else { return nil }
        let value = try node.decimal()
        facts.set(name, .decimal(value))
        return value
    }

    /// Sets `time` from a node (ISO 8601, UNIX seconds or milliseconds), if the node is there.
    mutating func time(_ node: BodyNode?) throws(NormalizationFailure) {
        guard let node else { return }
        facts.set("time", try node.fact(.time))
    }

    /// Sets `<name>.absolute` (`price − open`, exact) and `<name>.percent` (the change over `open`, rounded
    /// to ``percentScale`` decimals; left out when `open` is 0).
    mutating func change(_ name: String, price: Decimal, open: Decimal) {
        let change = price - open
        facts.set("\(name).absolute", .decimal(change))
        if let percent = Self.percent(change, of: open) { facts.set("\(name).percent", .decimal(percent)) }
    }

    /// `change` as a percentage of `base`, rounded to ``percentScale`` decimals; `nil` when `base` is 0.
    static func percent(_ change: Decimal, of base: Decimal) -> Decimal? {
        guard !base.isZero else { return nil }
        var exact = change * 100 / base
        var rounded = Decimal()
        NSDecimalRound(&rounded, &exact, Int(percentScale), .plain)
        return rounded
    }

    /// Sets a fact as is.
    mutating func set(_ name: String, _ value: JSONValue) { facts.set(name, value) }
}

/// The symbols a market feed was asked to follow; `nil` follows every symbol the body holds.
struct SymbolFilter: Sendable {
    let symbols: [String]?

    /// The entity id for a symbol the body holds, or `nil` when it is not followed. A followed symbol keeps
    /// the spelling the config gave it, so rules see the name the user wrote.
    func entity(for symbol: String, matching: (String) -> Bool = { _ in false }) -> String? {
        guard let symbols else { return symbol }
        return symbols.first { $0.caseInsensitiveCompare(symbol) == .orderedSame || matching($0) }
    }
}
