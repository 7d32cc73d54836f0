public import LiveRelayCore

/// The FCM part of a provider section (`"type": "fcm"`):
///
/// ```json
/// {"type": "fcm", "service-account": {"file": "firebase-adminsdk.json"}}
/// ```
public struct FCMProviderConfig: ProviderSettings {
    /// `fcm`.
    public static let kind = ProviderKind.fcm
    /// The install's registration token.
    public static let addresses: AddressSchema? = .fcm

    /// Where the Google service-account JSON key is read from.
    public var serviceAccount: SecretReference
    /// The Firebase project; by default the key file's `project_id`.
    public var projectID: String?
    /// A custom FCM server instead of `https://fcm.googleapis.com` (tests).
    public var endpoint: String?
    /// A custom OAuth 2.0 token endpoint instead of the key file's `token_uri` (tests).
    public var tokenEndpoint: String?
    /// Seconds one request may take.
    public var timeout: Int

    enum CodingKeys: String, CodingKey {
        case endpoint, timeout
        case serviceAccount = "service-account"
        case projectID = "project-id"
        case tokenEndpoint = "token-endpoint"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        serviceAccount = try c.decode(SecretReference.self, forKey: .serviceAccount)
        projectID = try c.decodeIfPresent(String.self, forKey: .projectID)
        endpoint = try c.decodeIfPresent(String.self, forKey: .endpoint)
        tokenEndpoint = try c.decodeIfPresent(String.self, forKey: .tokenEndpoint)
        timeout = try c.decodeIfPresent(Int.self, forKey: .timeout) ?? 10
    }

    /// The provider, its service account read now.
    public func makeProvider(_ context: ProviderContext) throws(ProviderSetupError) -> any PushProvider {
        let account: FCMServiceAccount
        do {
            account = try FCMServiceAccount(json: try context.secret(serviceAccount, key: "service-account"))
        } catch let error as ProviderSetupError {
            throw error
        } catch {
            throw ProviderSetupError(key: "service-account", message: "\(error)")
        }
        let configuration = FCMProvider.Configuration(
            endpoint: endpoint ?? "https://fcm.googleapis.com", tokenURL: tokenEndpoint, projectID: projectID,
            requestTimeout: .seconds(timeout), expirationSeconds: context.expiration)
        // Messages over the push lane (fcm.googleapis.com speaks HTTP/2, as the Firebase Admin SDKs use it);
        // the OAuth token requests over libcurl, which also speaks HTTP/1.1.
        return FCMProvider(
            configuration: configuration, account: account, transport: try context.transport(http2: true),
            tokenTransport: try context.transport(), now: context.now)
    }
}
