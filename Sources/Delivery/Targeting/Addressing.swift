public import LiveRelayCore

/// How a provider's pushes are addressed. A `start` goes to the devices subscribed to the push's entity,
/// an `update` or `end` to the devices that reported an update token for the activity; what a target
/// carries depends on the provider:
public enum Addressing: Sendable, Hashable {
    /// APNs tokens (APNs itself, the console): each push-to-start or update token is a target; only tokens
    /// of `environment` unless it is `nil`.
    case apnsTokens(environment: PushEnvironment?)
    /// APNs tokens, each with its device's address in `registry` (FCM forwards to the APNs token through
    /// the install's registration token); devices without an address there are left out.
    case apnsTokensWithAddress(registry: String)
    /// The devices' own addresses in `registry` (Getui's `cid`), each with the activity's id there (`laId`):
    /// a start to the subscribed devices, an update or end to those and to the devices with an update token.
    case deviceAddresses(registry: String)
    /// The activity's id in `registry` (Pushwoosh's `live_activity_id`): an update or an end is one target,
    /// the activity; a start goes to the subscribed devices' addresses (device or user) or, when
    /// `startsToSegment`, is one target like an update (the provider sends it to its segment).
    case activityAddress(registry: String, startsToSegment: Bool)

    /// The APNs environment whose tokens it takes; `nil` when it takes every token.
    public var environment: PushEnvironment? {
        if case .apnsTokens(let environment) = self { return environment }
        return nil
    }

    /// The provider registry whose addresses the targets carry; `nil` for APNs tokens alone.
    public var registry: String? {
        switch self {
        case .apnsTokens: nil
        case .apnsTokensWithAddress(let registry), .deviceAddresses(let registry), .activityAddress(let registry, _):
            registry
        }
    }
}
