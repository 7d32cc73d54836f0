public import LiveRelayCore

/// Where APNs requests go, and which environment's tokens that server accepts.
public struct APNsEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// The base URL, without a trailing slash (`https://api.push.apple.com`).
    public var url: String
    /// The environment whose tokens the server accepts.
    public var environment: PushEnvironment

    /// An endpoint; a trailing slash of `url` is dropped.
    public init(url: String, environment: PushEnvironment) {
        var url = url
        while url.hasSuffix("/") { url.removeLast() }
        self.url = url
        self.environment = environment
    }

    /// Apple's production server, for TestFlight and App Store builds.
    public static let production = APNsEndpoint(url: "https://api.push.apple.com", environment: .production)
    /// Apple's development server, for development builds.
    public static let sandbox = APNsEndpoint(url: "https://api.sandbox.push.apple.com", environment: .sandbox)

    /// Apple's server for an environment.
    public static func apple(_ environment: PushEnvironment) -> APNsEndpoint {
        environment == .sandbox ? .sandbox : .production
    }

    /// `https://api.push.apple.com (production)`.
    public var description: String { "\(url) (\(environment))" }
}
