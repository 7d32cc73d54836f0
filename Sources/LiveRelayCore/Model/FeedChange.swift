/// One entity's facts changed between two polls: what the rules see as `prev`, `curr` and `changed`.
public struct FeedChange: Sendable, Hashable {
    public var entity: EntityKey
    /// The facts from the previous poll; `nil` when the entity is new.
    public var previous: Facts?
    /// The facts now; `nil` when the entity disappeared from the feed.
    public var current: Facts?
    /// Dotted paths of the fields that differ, sorted.
    public var changedPaths: [String]

    public init(entity: EntityKey, previous: Facts?, current: Facts?, changedPaths: [String]) {
        self.entity = entity
        self.previous = previous
        self.current = current
        self.changedPaths = changedPaths
    }
}
