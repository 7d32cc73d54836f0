import Synchronization

/// Whether a provider has been stopped by a configuration error, shared by every copy of a `Sender`.
final class ProviderHealth: Sendable {
    private let stopped = Mutex<String?>(nil)

    /// The configuration error that stopped the provider, if one did.
    var stoppedReason: String? { stopped.withLock { $0 } }

    /// Records the first configuration error; returns whether this call stopped the provider.
    func stop(reason: String) -> Bool {
        stopped.withLock { current in
            guard current == nil else { return false }
            current = reason
            return true
        }
    }
}
