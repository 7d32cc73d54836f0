public import Delivery
public import LiveRelayCore
import Synchronization

/// A provider that records every push it is handed and answers as told (by default: delivered). By
/// default it is addressed like the console (every APNs token, a placeholder when none is registered, one
/// request at a time), so a test sees each push once even with an empty registry.
public final class RecordingProvider: SingleTargetProvider {
    /// How the worker addresses and paces it.
    public let traits: ProviderTraits
    private let answer: @Sendable (LiveActivityPush, PushTarget) -> DeliveryOutcome
    private let recorded = Mutex<[(push: LiveActivityPush, target: PushTarget)]>([])

    /// - Parameter answer: the outcome of each delivery.
    public init(
        traits: ProviderTraits = ProviderTraits(
            kind: .console, addressing: .apnsTokens(environment: nil), maxConcurrentDeliveries: 1,
            deliversWithoutTargets: true),
        answer: @escaping @Sendable (LiveActivityPush, PushTarget) -> DeliveryOutcome = { _, _ in .delivered }
    ) {
        self.traits = traits
        self.answer = answer
    }

    public func deliver(_ push: LiveActivityPush, to target: PushTarget) async -> DeliveryOutcome {
        recorded.withLock { $0.append((push, target)) }
        return answer(push, target)
    }

    /// Every push handed to it, in order (once per target).
    public var pushes: [LiveActivityPush] { recorded.withLock { $0.map(\.push) } }

    /// Every push with the target it went to.
    public var deliveries: [(push: LiveActivityPush, target: PushTarget)] { recorded.withLock { $0 } }

    /// The pushes of the activities whose key starts with `prefix`.
    public func of(_ prefix: String) -> [LiveActivityPush] {
        pushes.filter { $0.activity.rawValue.hasPrefix(prefix) }
    }
}
