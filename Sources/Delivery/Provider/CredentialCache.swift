/// A provider's short-lived credential (an FCM access token, a Getui auth token), shared by every request:
/// kept until `margin` before it expires, and fetched again when none is fresh. Concurrent requests that
/// find none wait for a single exchange (single flight), so a fan-out never sends a burst of auth calls.
/// Time comes from the injected `now`, in whatever unit the provider's expiry uses.
actor CredentialCache<Failure: Error & Sendable> {
    /// A credential and when (in `now`'s unit) it expires.
    typealias Issued = (token: String, expiresAt: Int)

    private let margin: Int
    private let now: @Sendable () -> Int
    private var current: Issued?
    private var exchange: Task<Result<Issued, Failure>, Never>?
    /// How many credentials were fetched so far.
    private(set) var fetched = 0

    /// - Parameter margin: how long before its expiry a credential is replaced.
    init(margin: Int, now: @escaping @Sendable () -> Int) {
        self.margin = margin
        self.now = now
    }

    /// The credential to send now: the current one while it is fresh, else the result of one `fetch`
    /// shared by every caller waiting meanwhile.
    func token(fetch: @escaping @Sendable () async -> Result<Issued, Failure>) async throws(Failure) -> String {
        if let current, now() < current.expiresAt - margin { return current.token }
        let task: Task<Result<Issued, Failure>, Never>
        if let exchange {
            task = exchange
        } else {
            task = Task { await fetch() }
            exchange = task
        }
        let result = await task.value
        if exchange == task {
            exchange = nil
            if case .success(let issued) = result {
                current = issued
                fetched += 1
            }
        }
        return try result.get().token
    }

    /// Forgets the current credential: the provider refused it.
    func invalidate() { current = nil }
}
