/// How an activity reaches its devices (`activity-modes` in the config).
public enum ActivityMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// One push per device token (push-to-start tokens for the start, update tokens after): every iOS 17.2+
    /// device, one request each.
    case token
    /// One APNs broadcast per update or end to the activity's channel, whatever the number of devices; the
    /// start goes to each device's push-to-start token with `input-push-channel` (iOS 18; an older device
    /// does not start).
    case channel
    /// The channel for the devices registered as channel subscribers, tokens for the rest.
    case both
}
