public import Delivery
public import StoreCore

/// Keeps provider tokens in the state file (see ``ProviderTokenCache``).
public struct StoreTokenCache: ProviderTokenCache {
    public let store: any ProviderTokenStore

    public init(store: any ProviderTokenStore) { self.store = store }

    public func load(key: String) async -> (token: String, issuedAt: Int)? { await store.providerToken(key: key) }

    public func save(key: String, token: String, issuedAt: Int) async -> (token: String, issuedAt: Int) {
        await store.saveProviderToken(key: key, token: token, issuedAt: issuedAt)
    }
}
