public import Delivery
public import Rules
import Synchronization

/// The rules in force and the provider routes made from them, swapped together and atomically when a
/// reload succeeds. Readers take the current engine for a whole change, so a reload never mixes two rule
/// sets within one evaluation.
public final class RuleBook: Sendable {
    private let current: Mutex<(engine: RuleEngine, routes: ProviderRoutes, generation: Int)>

    public init(_ engine: RuleEngine, routes: ProviderRoutes) { current = Mutex((engine, routes, 1)) }

    /// The engine to evaluate with now.
    public var engine: RuleEngine { current.withLock { $0.engine } }

    /// Which provider each push goes to, for the rules in force.
    public var routes: ProviderRoutes { current.withLock { $0.routes } }

    /// How many rule sets have been in force (1 at start).
    public var generation: Int { current.withLock { $0.generation } }

    /// Puts a new rule set and its routes in force.
    public func replace(with engine: RuleEngine, routes: ProviderRoutes) {
        current.withLock { $0 = (engine, routes, $0.generation + 1) }
    }
}
