import LiveRelayCore
import Logging

/// The front end every push goes through, whatever the provider: logs each outcome once, with the same
/// metadata keys for every provider. Providers only encode, send and classify.
public struct Sender: Sendable {
    public let provider: any PushProvider
    private let logger: Logger

    public init(provider: any PushProvider, logger: Logger) {
        self.provider = provider
        self.logger = logger
    }

    /// Delivers one push to one target and reports the classified outcome.
    public func send(_ push: LiveActivityPush, to target: PushTarget) async -> DeliveryOutcome {
        let outcome = await provider.deliver(push, to: target)
        var metadata: Logger.Metadata = [
            "provider": "\(provider.name)", "activity.key": "\(push.activity)", "push.event": "\(push.event)",
            "push.priority": "\(push.priority.rawValue)",
        ]
        switch outcome {
        case .delivered:
            logger.debug("push delivered", metadata: metadata)
        case .retry(_, let reason), .dropToken(let reason), .refreshCredentials(let reason):
            metadata["reason"] = "\(reason)"
            logger.warning("push not delivered", metadata: metadata)
        case .configurationError(let reason):
            metadata["reason"] = "\(reason)"
            logger.error("provider configuration error", metadata: metadata)
        }
        return outcome
    }
}
