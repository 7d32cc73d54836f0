public import LiveRelayCore

/// The Pushwoosh part of a provider section (`"type": "pushwoosh"`):
///
/// ```json
/// {"type": "pushwoosh", "application": "XXXXX-XXXXX", "api-token": {"env": "PUSHWOOSH_API_TOKEN"}}
/// ```
///
/// With `"filter-code": "FOOTBALL_FANS"` its starts go to that segment; give several entries of `providers`
/// their own filter codes and route attributes types or rule files to them for several segments.
public struct PushwooshProviderConfig: ProviderSettings {
    /// `pushwoosh`.
    public static let kind = ProviderKind.pushwoosh
    /// The install's HWID or push token and user, the activity's `live_activity_id`.
    public static let addresses: AddressSchema? = .pushwoosh

    /// The Pushwoosh application code.
    public var application: String
    /// Where the API access token is read from.
    public var apiToken: SecretReference
    /// A custom server instead of `https://api.pushwoosh.com` (tests, or an account's own API host).
    public var endpoint: String?
    /// Seconds one request may take.
    public var timeout: Int
    /// A Pushwoosh segment (filter) code: starts go to the segment instead of the devices and users the
    /// registry knows. Updates and ends still go to the activity's `live_activity_id`.
    public var filterCode: String?

    enum CodingKeys: String, CodingKey {
        case application, endpoint, timeout
        case apiToken = "api-token"
        case filterCode = "filter-code"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        application = try c.decode(String.self, forKey: .application)
        apiToken = try c.decode(SecretReference.self, forKey: .apiToken)
        endpoint = try c.decodeIfPresent(String.self, forKey: .endpoint)
        timeout = try c.decodeIfPresent(Int.self, forKey: .timeout) ?? 10
        filterCode = try c.decodeIfPresent(String.self, forKey: .filterCode)
    }

    /// The provider, its API token read now.
    public func makeProvider(_ context: ProviderContext) throws(ProviderSetupError) -> any PushProvider {
        PushwooshProvider(
            configuration: PushwooshProvider.Configuration(
                endpoint: endpoint ?? "https://api.pushwoosh.com", application: application,
                requestTimeout: .seconds(timeout), startFilterCode: filterCode),
            apiToken: try context.secret(apiToken, key: "api-token"), transport: try context.transport())
    }
}
