public import Delivery
public import LiveRelayCore

/// What became of one push: one receipt per target it went to.
public struct PushDelivery: Sendable {
    /// The push.
    public var push: LiveActivityPush
    /// The id of the provider it went through.
    public var provider: String
    /// One per target, in the order the targets were resolved; once ``compacted()``, those a reader looks at
    /// one by one (everything but the token updates and ends that got through).
    public var receipts: [DeliveryReceipt]
    /// Token updates and ends that got through, counted instead of kept (a goal's million receipts).
    public var deliveredTokenCount = 0
    /// How many of its targets it will never reach: failed for good (rejected, or given up after the
    /// outbox's retries), a dropped token not counted.
    public var lost = 0
    /// The devices its broadcast reached: the channel's subscribers LiveRelay started (0 without a broadcast).
    public var reach = 0

    /// Its requests that got through: one per token, one per broadcast.
    public var deliveredRequests: (tokens: Int, broadcasts: Int) {
        var counts = (tokens: deliveredTokenCount, broadcasts: 0)
        for receipt in receipts where receipt.delivered {
            if receipt.target.kind == .channel { counts.broadcasts += 1 } else { counts.tokens += 1 }
        }
        return counts
    }

    /// Whether it reached at least one device's token.
    public var delivered: Bool { deliveredTokenCount > 0 || receipts.contains(where: \.delivered) }
    /// Whether any target failed (a dropped token is not a failure).
    public var failed: Bool { receipts.contains(where: \.failed) }

    /// The same delivery with the receipts of token updates and ends that got through counted, not kept:
    /// what a delivery round hands on once it has settled them (starts, broadcasts and failures are kept).
    func compacted() -> PushDelivery {
        var out = self
        let before = receipts.count
        out.receipts.removeAll { $0.delivered && $0.target.kind == .activity && $0.target.channel == nil }
        out.deliveredTokenCount += before - out.receipts.count
        return out
    }
}
