public import LiveRelayCore

/// The Getui part of a provider section (`"type": "getui"`):
///
/// ```json
/// {"type": "getui", "app-id": "…", "app-key": "…", "master-secret": {"env": "GETUI_MASTER_SECRET"}}
/// ```
public struct GetuiProviderConfig: ProviderSettings {
    /// `getui`.
    public static let kind = ProviderKind.getui
    /// The install's `cid`, the activity's `laId`.
    public static let addresses: AddressSchema? = .getui

    /// The Getui app id.
    public var appID: String
    /// The Getui app key.
    public var appKey: String
    /// Where the app's MasterSecret is read from.
    public var masterSecret: SecretReference
    /// A custom domain instead of `https://restapi.getui.com` (tests, or another data centre).
    public var endpoint: String?
    /// `push_channel.ios.auto_badge` (`+1`, …); none by default.
    public var autoBadge: String?
    /// Seconds one request may take.
    public var timeout: Int

    enum CodingKeys: String, CodingKey {
        case endpoint, timeout
        case appID = "app-id"
        case appKey = "app-key"
        case masterSecret = "master-secret"
        case autoBadge = "auto-badge"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        appID = try c.decode(String.self, forKey: .appID)
        appKey = try c.decode(String.self, forKey: .appKey)
        masterSecret = try c.decode(SecretReference.self, forKey: .masterSecret)
        endpoint = try c.decodeIfPresent(String.self, forKey: .endpoint)
        autoBadge = try c.decodeIfPresent(String.self, forKey: .autoBadge)
        timeout = try c.decodeIfPresent(Int.self, forKey: .timeout) ?? 10
    }

    /// The provider, its master secret read now.
    public func makeProvider(_ context: ProviderContext) throws(ProviderSetupError) -> any PushProvider {
        let now = context.now
        return GetuiProvider(
            configuration: GetuiProvider.Configuration(
                endpoint: endpoint ?? "https://restapi.getui.com", appID: appID, appKey: appKey,
                ttlSeconds: context.expiration, autoBadge: autoBadge, requestTimeout: .seconds(timeout)),
            masterSecret: try context.secret(masterSecret, key: "master-secret"), transport: try context.transport(),
            now: { now() * 1000 })
    }
}
