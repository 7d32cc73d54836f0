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
    /// The devices its broadcast reached: the channel's subscribers LiveRelay started (0 without a broadcast).
    public var reach = 0

    /// Its requests that got through: one per token, one per broadcast.
    public var deliveredRequests: (tokens: Int, broadcasts: Int) {
        var counts = (tokens: 0, broadcasts: 0)
        for receipt in receipts where receipt.delivered {
            if receipt.target.kind == .channel { counts.broadcasts += 1 } else { counts.tokens += 1 }
        }
        return counts
    }

    /// Whether it reached at least one device's token.
    public var delivered: Bool { receipts.contains(where: \.delivered) }
    /// Whether any target failed (a dropped token is not a failure).
    public var failed: Bool { receipts.contains(where: \.failed) }
}
