/// Forgets tokens a provider declared dead, so they are never used again. The token registry implements it.
public protocol TokenPruning: Sendable {
    /// Removes `target`'s token for good; `reason` is the provider's (`APNs answered Unregistered (410)`).
    func dropToken(_ target: PushTarget, reason: String) async
}
