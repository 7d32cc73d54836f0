/// One fact a feed can give an entity: what rules read as `curr.<path>` and `prev.<path>`.
///
/// A feed's catalogue lists every fact it can produce, so that a rule naming a fact no feed gives can be
/// flagged before it silently reads `null`.
public struct FactDescription: Sendable, Hashable, CustomStringConvertible {
    /// The dotted path rules read after `curr.`: `home.score`, `change24h.percent`.
    public var path: String
    /// The type of its value: `int`, `decimal` (exact), `string`, `bool`, or `time` (UNIX seconds).
    public var type: FieldType
    /// What it is, in one line.
    public var meaning: String
    /// When it is there, if not always (`"once the match has started"`); `nil` when every entity of every
    /// body that normalises has it.
    public var condition: String?

    /// Describes a fact; without a condition, it is always there.
    public init(_ path: String, _ type: FieldType, _ meaning: String, condition: String? = nil) {
        self.path = path
        self.type = type
        self.meaning = meaning
        self.condition = condition
    }

    /// True when an entity may lack the fact.
    public var isConditional: Bool { condition != nil }

    /// The JSON Schema type of its value: `integer` (`int`, `time`), `number`, `string` or `boolean`.
    public var jsonType: String {
        switch type {
        case .int, .time: "integer"
        case .decimal: "number"
        case .string: "string"
        case .bool: "boolean"
        }
    }

    /// `home.score (int): …`, for messages and listings.
    public var description: String {
        "\(path) (\(type.rawValue)): \(meaning)" + (condition.map { "; only \($0)" } ?? "")
    }
}

extension Array where Element == FactDescription {
    /// The entry for a path, if the catalogue has it.
    public subscript(path path: String) -> FactDescription? { first { $0.path == path } }

    /// The paths, in catalogue order.
    public var paths: [String] { map(\.path) }
}
