public import HTTP
public import LiveRelayCore

/// A provider kind's own settings: the keys its config entry has beside the shared ones (`id`, `type`,
/// `bundle-id`, `expiration`, `rate`, `burst`), decoded from that same entry, and how to build the provider
/// from them. The worker finds a kind's settings type in its provider table by the entry's `type`.
public protocol ProviderSettings: Decodable, Sendable {
    /// The `type` its config entries have.
    static var kind: ProviderKind { get }
    /// Its config keys beside the shared ones, composed into the config schema.
    static var configSchema: ProviderConfigSchema { get }
    /// The provider these settings describe: secrets read and transports opened through `context`.
    func makeProvider(_ context: ProviderContext) throws(ProviderSetupError) -> any PushProvider
    /// How the token API registers the provider's own addresses; `nil` when APNs tokens are all it needs.
    static var addresses: AddressSchema? { get }
    /// Whether the provider will have broadcast channels (APNs with `channels`).
    var hasChannels: Bool { get }
}

extension ProviderSettings {
    /// Most providers need only the APNs tokens.
    public static var addresses: AddressSchema? { nil }
    /// Most providers have no channels.
    public var hasChannels: Bool { false }
}

/// What building a provider takes from the worker: the shared settings of its config entry, the clock,
/// where provider tokens are kept, where the console prints, and the way secrets are read and libcurl
/// transports opened (the worker's CA file and write coalescing apply to every provider alike).
public struct ProviderContext: Sendable {
    /// How a transport is shaped: libcurl threads (one HTTP/2 connection each) and streams per connection.
    public struct TransportShape: Sendable, Hashable {
        /// Connections, each on its own curl thread.
        public var connections: Int
        /// Requests in flight per connection at most.
        public var streams: Int
        /// The provider's servers speak HTTP/2 (ALPN `h2`), so the push lane may carry its requests.
        public var http2: Bool
    }

    /// The app's bundle id.
    public var bundleID: String
    /// Seconds after a push's timestamp during which it may be stored for an offline device.
    public var expiration: Int
    /// The wall clock in UNIX seconds (provider tokens, auth timestamps).
    public var now: @Sendable () -> Int
    /// Keeps APNs provider tokens across processes.
    public var tokenCache: (any ProviderTokenCache)?
    /// Where the console provider prints.
    public var output: @Sendable (String) -> Void
    private let readSecret: @Sendable (SecretReference) throws(SecretError) -> Secret
    private let openTransport: @Sendable (TransportShape) throws(HTTPError) -> any HTTPTransport

    /// A context.
    public init(
        bundleID: String, expiration: Int, now: @escaping @Sendable () -> Int,
        tokenCache: (any ProviderTokenCache)? = nil, output: @escaping @Sendable (String) -> Void,
        readSecret: @escaping @Sendable (SecretReference) throws(SecretError) -> Secret,
        openTransport: @escaping @Sendable (TransportShape) throws(HTTPError) -> any HTTPTransport
    ) {
        self.bundleID = bundleID
        self.expiration = expiration
        self.now = now
        self.tokenCache = tokenCache
        self.output = output
        self.readSecret = readSecret
        self.openTransport = openTransport
    }

    /// Reads the secret a setting refers to; `key` names the setting in errors (never the value).
    public func secret(_ reference: SecretReference, key: String) throws(ProviderSetupError) -> Secret {
        do {
            return try readSecret(reference)
        } catch {
            throw ProviderSetupError(key: key, message: error.description)
        }
    }

    /// A transport of its own for the provider: the push lane when its servers speak HTTP/2 (`http2`, unless
    /// the config's `http.push-lane` says `curl`), else libcurl.
    public func transport(connections: Int = 1, streams: Int = 100, http2: Bool = false) throws(ProviderSetupError)
        -> any HTTPTransport
    {
        do {
            return try openTransport(TransportShape(connections: connections, streams: streams, http2: http2))
        } catch {
            throw ProviderSetupError(key: nil, message: "cannot start the HTTP/2 transport: \(error)")
        }
    }
}

/// Why a provider could not be built: the setting it concerns and what is wrong, never a secret's value.
public struct ProviderSetupError: Error, Sendable, CustomStringConvertible {
    /// The config key (`key`, `service-account`, …); `nil` for the provider as a whole.
    public var key: String?
    /// What is wrong.
    public var message: String

    /// An error.
    public init(key: String?, message: String) {
        self.key = key
        self.message = message
    }

    /// `provider.key: the APNs key … is not a PEM-encoded P-256 private key (.p8)`.
    public var description: String { "provider\(key.map { "." + $0 } ?? ""): \(message)" }
}
