/// A provider's request rate: `rate` requests per second, bursts up to `burst`.
public struct RequestRate: Sendable, Hashable {
    /// Requests per second.
    public var rate: Double
    /// Requests at once after a quiet spell.
    public var burst: Double

    /// Creates a rate.
    public init(rate: Double, burst: Double) {
        self.rate = rate
        self.burst = burst
    }
}
