/// Which APNs environment a token belongs to. A token from a development build works only with the sandbox,
/// one from a TestFlight or App Store build only with production. An open set, written as in the config.
public struct PushEnvironment: Sendable, Hashable, Codable, CustomStringConvertible {
    /// `production` or `sandbox`.
    public var rawValue: String

    /// Creates an environment from its name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `api.push.apple.com`: TestFlight and App Store builds.
    public static let production = PushEnvironment(rawValue: "production")
    /// `api.sandbox.push.apple.com`: development builds.
    public static let sandbox = PushEnvironment(rawValue: "sandbox")

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }

    /// The name.
    public var description: String { rawValue }
}
