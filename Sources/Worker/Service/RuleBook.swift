import Rules
import Synchronization

/// The rules in force, swapped atomically when a reload succeeds. Readers take the current engine for a
/// whole change, so a reload never mixes two rule sets within one evaluation.
public final class RuleBook: Sendable {
    private let current: Mutex<(engine: RuleEngine, generation: Int)>

    public init(_ engine: RuleEngine) { current = Mutex((engine, 1)) }

    /// The engine to evaluate with now.
    public var engine: RuleEngine { current.withLock { $0.engine } }

    /// How many rule sets have been in force (1 at start).
    public var generation: Int { current.withLock { $0.generation } }

    /// Puts a new rule set in force.
    public func replace(with engine: RuleEngine) {
        current.withLock { $0 = (engine, $0.generation + 1) }
    }
}
