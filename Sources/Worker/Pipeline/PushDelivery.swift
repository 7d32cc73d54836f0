public import Delivery
public import LiveRelayCore

/// What became of one push: one receipt per target it went to.
public struct PushDelivery: Sendable {
    /// The push.
    public var push: LiveActivityPush
    /// The id of the provider it went through.
    public var provider: String
    /// One per target, in the order the targets were resolved.
    public var receipts: [DeliveryReceipt]
    /// How many of its targets it will never reach: failed for good (rejected, or given up after the
    /// outbox's retries), a dropped token not counted.
    public var lost = 0

    /// Whether it reached at least one device's token.
    public var delivered: Bool { receipts.contains(where: \.delivered) }
    /// Whether any target failed (a dropped token is not a failure).
    public var failed: Bool { receipts.contains(where: \.failed) }
}
