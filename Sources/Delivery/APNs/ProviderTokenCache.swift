/// Keeps a provider's signed token across processes. APNs answers 429 `TooManyProviderTokenUpdates` to a
/// token minted less than 20 minutes after the previous one, so a restarted worker (or the next cron tick)
/// must go on with the token it already has. Both calls are asynchronous: the provider awaits them off its
/// lock, and a database behind them is never waited for on a cooperative thread.
public protocol ProviderTokenCache: Sendable {
    /// The saved token for `key`, and when it was issued.
    func load(key: String) async -> (token: String, issuedAt: Int)?
    /// Saves a newly minted token and returns the token to use: the one saved, or one another process
    /// sharing the cache minted less than 20 minutes before it (then that one is used, and this one never
    /// reaches APNs).
    func save(key: String, token: String, issuedAt: Int) async -> (token: String, issuedAt: Int)
}
