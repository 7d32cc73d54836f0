/// When to mint a new APNs provider token (JWT). Pure: `now` (UNIX seconds) comes in as a parameter.
///
/// APNs rejects a token older than an hour (403 `ExpiredProviderToken`) and a token replaced less than
/// 20 minutes after the previous one (429 `TooManyProviderTokenUpdates`). So one token is shared by every
/// connection and request, and a new one is minted when:
/// - there is none yet;
/// - the current one is `refreshInterval` old (kept within 20…55 minutes, so it never reaches the hour
///   even with a few minutes of clock skew);
/// - APNs answered `ExpiredProviderToken` for it, and it is at least 20 minutes old.
///
/// An `ExpiredProviderToken` for a token younger than 20 minutes is not answered by minting at once: a
/// token minted from the same clock would look just as expired (the clocks disagree by more than the
/// token's age), and minting again would earn `TooManyProviderTokenUpdates` on top. The token is marked
/// rejected instead, and replaced as soon as the 20 minutes have passed. The one case the policy cannot
/// see is a new process (a cron tick) that does not know when the last one minted.
public struct ProviderTokenPolicy: Sendable, Hashable {
    /// APNs' floor between two tokens, in seconds.
    public static let minimumInterval = 20 * 60
    /// The longest refresh interval allowed, in seconds: under the hour APNs accepts.
    public static let maximumInterval = 55 * 60

    /// Seconds after which the token is replaced.
    public let refreshInterval: Int
    /// When the current token was minted; `nil` before the first.
    public private(set) var issuedAt: Int?
    /// Whether APNs rejected the current token as expired.
    public private(set) var rejected = false

    /// What to do for the next request.
    public enum Decision: Sendable, Hashable {
        /// Keep using the token issued at this time.
        case use(issuedAt: Int)
        /// Mint a token with this `iat` and use it from now on.
        case mint(issuedAt: Int)
    }

    /// A policy replacing tokens every `refreshInterval` seconds (clamped to 20…55 minutes; 50 by default).
    public init(refreshInterval: Int = 50 * 60) {
        self.refreshInterval = min(max(refreshInterval, Self.minimumInterval), Self.maximumInterval)
    }

    /// The token to use for a request sent at `now`.
    public mutating func token(now: Int) -> Decision {
        guard let issuedAt else { return mint(now) }
        // A clock that went backwards makes the token look younger, never older: keep it.
        let age = max(0, now - issuedAt)
        if age >= refreshInterval || (rejected && age >= Self.minimumInterval) { return mint(now) }
        return .use(issuedAt: issuedAt)
    }

    /// Adopts a token an earlier process minted at `issuedAt` (from a saved cache), so a restart keeps using
    /// it instead of minting again within APNs' 20 minutes.
    public mutating func restore(issuedAt: Int) {
        self.issuedAt = issuedAt
        rejected = false
    }

    /// APNs answered `ExpiredProviderToken` at `now`. Returns whether the next request gets a new token.
    public mutating func expired(now: Int) -> Bool {
        guard let issuedAt else { return true }
        rejected = true
        return now - issuedAt >= Self.minimumInterval
    }

    private mutating func mint(_ now: Int) -> Decision {
        issuedAt = now
        rejected = false
        return .mint(issuedAt: now)
    }
}
