/// The console provider's settings: none beside the shared ones (`bundle-id` and `expiration` shape the
/// APNs requests it prints).
///
/// ```json
/// "provider": {"type": "console", "bundle-id": "com.example.scores"}
/// ```
public struct ConsoleProviderConfig: ProviderSettings {
    /// `console`.
    public static let kind = ProviderKind.console

    /// No settings.
    public init() {}

    /// Nothing to decode.
    public init(from decoder: any Decoder) throws {}

    /// The provider, printing through the context's output.
    public func makeProvider(_ context: ProviderContext) throws(ProviderSetupError) -> any PushProvider {
        ConsoleProvider(
            encoder: APNsRequestEncoder(bundleID: context.bundleID, expirationSeconds: context.expiration),
            write: context.output)
    }
}
