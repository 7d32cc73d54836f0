import Foundation
import LiveRelayCore

/// Facts of one market symbol under the names every market preset shares; all prices and volumes are
/// exact `Decimal`s, `time` is UNIX seconds.
struct MarketFacts {
    private(set) var facts = Facts()

    /// Sets a decimal fact from a node, if the node is there.
    mutating func decimal(_ name: String, _ node: BodyNode?) throws(NormalizationFailure) {
        guard let node else { return }
        facts.set(name, .decimal(try node.decimal()))
    }

    /// Sets `time` from a node (ISO 8601, UNIX seconds or milliseconds), if the node is there.
    mutating func time(_ node: BodyNode?) throws(NormalizationFailure) {
        guard let node else { return }
        facts.set("time", try node.fact(.time))
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
