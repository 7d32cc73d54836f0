/// A provider's request rate: `rate` requests per second with bursts up to `burst`. Continuous refill,
/// fractional seconds (a provider allows thousands of requests a second).
public struct TokenBucket: Sendable, Hashable, Codable {
    public var rate: Double
    public var burst: Double
    public private(set) var tokens: Double
    public private(set) var updatedAt: Double

    public init(rate: Double, burst: Double, now: Double) {
        self.rate = rate
        self.burst = burst
        tokens = burst
        updatedAt = now
    }

    private mutating func refill(_ now: Double) {
        if now > updatedAt {
            tokens = min(burst, tokens + (now - updatedAt) * rate)
            updatedAt = now
        }
    }

    /// Whole requests allowed now.
    public mutating func available(now: Double) -> Int {
        refill(now)
        return Int(tokens.rounded(.down))
    }

    /// Takes `count` tokens (callers take no more than `available`).
    public mutating func take(_ count: Int, now: Double) {
        refill(now)
        tokens -= Double(count)
    }

    /// Seconds until one more request is allowed.
    public mutating func delayForOne(now: Double) -> Double {
        refill(now)
        return tokens >= 1 ? 0 : (1 - tokens) / rate
    }
}
