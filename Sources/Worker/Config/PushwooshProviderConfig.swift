import LiveRelayCore

/// The Pushwoosh part of a provider section (`"type": "pushwoosh"`):
///
/// ```json
/// {"type": "pushwoosh", "application": "XXXXX-XXXXX", "api-token": {"env": "PUSHWOOSH_API_TOKEN"}}
/// ```
public struct PushwooshProviderConfig: Sendable, Decodable {
    /// The Pushwoosh application code.
    public var application: String
    /// Where the API access token is read from.
    public var apiToken: SecretReference
    /// A custom server instead of `https://api.pushwoosh.com` (tests, or an account's own API host).
    public var endpoint: String?
    /// Seconds one request may take.
    public var timeout: Int

    enum CodingKeys: String, CodingKey {
        case application, endpoint, timeout
        case apiToken = "api-token"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        application = try c.decode(String.self, forKey: .application)
        apiToken = try c.decode(SecretReference.self, forKey: .apiToken)
        endpoint = try c.decodeIfPresent(String.self, forKey: .endpoint)
        timeout = try c.decodeIfPresent(Int.self, forKey: .timeout) ?? 10
    }
}
