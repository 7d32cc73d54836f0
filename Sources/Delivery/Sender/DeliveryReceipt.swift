/// What finally happened to one push to one target, after the `Sender`'s retries.
public struct DeliveryReceipt: Sendable, Hashable {
    /// Where the push went.
    public var target: PushTarget
    /// The last outcome: `.delivered`, or why not.
    public var outcome: DeliveryOutcome
    /// How many times the push was sent (0 when the provider was already stopped).
    public var attempts: Int

    /// Creates a receipt.
    public init(target: PushTarget, outcome: DeliveryOutcome, attempts: Int) {
        self.target = target
        self.outcome = outcome
        self.attempts = attempts
    }

    /// Whether the push reached the provider's service.
    public var delivered: Bool { outcome == .delivered }

    /// The receipt of a request never made, because the worker's claim on the push lapsed (another worker
    /// sends it): no answer, so the push's row is left as it is.
    public static func notSent(to target: PushTarget) -> DeliveryReceipt {
        DeliveryReceipt(
            target: target, outcome: .retry(afterSeconds: nil, reason: "not sent: this worker's claims lapsed"),
            attempts: 0)
    }

    /// Whether this is the receipt of a request never made (``notSent(to:)``).
    public var notSent: Bool { attempts == 0 && outcome.isRetry }

    /// Whether the push failed in a way someone should look at: a dropped token is the normal end of a
    /// token, not a failure.
    public var failed: Bool {
        switch outcome {
        case .delivered, .dropToken: false
        default: true
        }
    }
}
