/// The kind of a provider: the `type` of its config entry, its name in logs and the `provider` label of
/// its metrics. An open set: a new provider adds its own.
public struct ProviderKind: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The name (`apns`, `fcm`, …).
    public let rawValue: String

    /// A kind by name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Prints each push as the APNs request it stands for; delivers nothing.
    public static let console = ProviderKind(rawValue: "console")
    /// Apple Push Notification service, token authentication over HTTP/2.
    public static let apns = ProviderKind(rawValue: "apns")
    /// Firebase Cloud Messaging HTTP v1.
    public static let fcm = ProviderKind(rawValue: "fcm")
    /// Pushwoosh `startLiveActivity` / `updateLiveActivity`.
    public static let pushwoosh = ProviderKind(rawValue: "pushwoosh")
    /// Getui RestAPI v2.
    public static let getui = ProviderKind(rawValue: "getui")

    /// The same as `rawValue`.
    public var description: String { rawValue }
}
