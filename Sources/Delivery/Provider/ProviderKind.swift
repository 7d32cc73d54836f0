/// The kind of a provider: the `type` of its config entry, its name in logs and the `provider` label of
/// its metrics. An open set: each provider's folder declares its own (`ProviderKind.apns`, …).
public struct ProviderKind: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The name (`apns`, `fcm`, …).
    public let rawValue: String

    /// A kind by name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The same as `rawValue`.
    public var description: String { rawValue }
}
