import LiveRelayCore

/// The console provider's settings beside the shared ones (`bundle-id` and `expiration` shape the APNs
/// requests it prints): `channels`, as for APNs, to print what channel and both modes send (the endpoints
/// are ignored).
///
/// ```json
/// "provider": {"type": "console", "bundle-id": "com.example.scores", "channels": {"storage-policy": 0}}
/// ```
public struct ConsoleProviderConfig: ProviderSettings {
    /// `console`.
    public static let kind = ProviderKind.console

    /// Broadcast channels, printed; `nil`: tokens only.
    public var channels: APNsProviderConfig.Channels?

    /// No settings.
    public init() {}

    enum CodingKeys: String, CodingKey {
        case channels
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        channels = try c.decodeIfPresent(APNsProviderConfig.Channels.self, forKey: .channels)
    }

    /// Whether `channels` is set.
    public var hasChannels: Bool { channels != nil }

    /// The provider, printing through the context's output.
    public func makeProvider(_ context: ProviderContext) throws(ProviderSetupError) -> any PushProvider {
        ConsoleProvider(
            encoder: APNsRequestEncoder(bundleID: context.bundleID, expirationSeconds: context.expiration),
            write: context.output,
            channels: channels?.broadcast(environment: .production, endpoint: nil))
    }
}
