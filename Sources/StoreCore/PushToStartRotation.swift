/// What registering a device's push-to-start token for an attributes type does, the same in every store: the
/// store reads whether the token was dropped and which token the device had, and writes what this says.
///
/// - A token the provider dropped before is refused and nothing is written: it would only be dropped again.
/// - Otherwise the token is stored (or written again with its environment and time).
/// - A token the device did not have before (a first one, or a rotation) is a late join for every entity
///   the device follows: it may start what already runs there, which it could not before.
/// - A rotation moves the starts still waiting for the old token to the new one (not to both, not to none).
public enum PushToStartRotation {
    /// The writes a registration makes.
    public struct Effects: Sendable, Hashable {
        /// Whether the token is stored at all.
        public var stores: Bool
        /// Whether each entity the device follows gets a late join.
        public var lateJoins: Bool
        /// The old token whose waiting starts go to the new one; `nil` when nothing rotated.
        public var movesWaitingStartsFrom: String?

        /// Effects.
        public init(stores: Bool, lateJoins: Bool, movesWaitingStartsFrom: String?) {
            self.stores = stores
            self.lateJoins = lateJoins
            self.movesWaitingStartsFrom = movesWaitingStartsFrom
        }
    }

    /// The writes for `token` (normalized: ``ActivityTokenAdmission/normalized(_:)``), given the device's
    /// `previous` token for the attributes type and whether `token` was dropped before.
    public static func decide(token: String, previous: String?, dropped: Bool) -> Effects {
        guard !dropped else { return Effects(stores: false, lateJoins: false, movesWaitingStartsFrom: nil) }
        let rotated = previous.flatMap { $0 == token ? nil : $0 }
        return Effects(stores: true, lateJoins: previous != token, movesWaitingStartsFrom: rotated)
    }
}
