import Foundation
import LiveRelayCore

/// One HTTP/2 request to APNs, fully formed: what the APNs provider sends and what the console provider
/// prints.
public struct APNsRequest: Sendable, Hashable {
    public var method: String
    public var path: String
    /// In the order they are sent.
    public var headers: [(name: String, value: String)]
    public var body: Data

    public static func == (a: APNsRequest, b: APNsRequest) -> Bool {
        a.method == b.method && a.path == b.path && a.body == b.body
            && a.headers.map { [$0.name, $0.value] } == b.headers.map { [$0.name, $0.value] }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(path)
        hasher.combine(body)
    }
}

/// Builds APNs requests for Live Activity pushes.
public struct APNsRequestEncoder: Sendable {
    /// The app's bundle id; the topic is `<bundle id>.push-type.liveactivity`.
    public var bundleID: String
    /// How long APNs may store an undeliverable push, in seconds after its timestamp.
    public var expirationSeconds: Int

    public init(bundleID: String, expirationSeconds: Int = 3600) {
        self.bundleID = bundleID
        self.expirationSeconds = expirationSeconds
    }

    /// The `apns-topic` for Live Activity pushes.
    public var topic: String { bundleID + ".push-type.liveactivity" }

    /// The body bytes: canonical JSON with sorted keys, so equal pushes encode to equal bytes.
    public func body(for push: LiveActivityPush) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(APNsPayload(push))
    }

    /// The whole request. `token` is the device or activity token in hex; the console shows a placeholder
    /// when none is registered.
    public func request(for push: LiveActivityPush, token: String, body: Data) -> APNsRequest {
        APNsRequest(
            method: "POST", path: "/3/device/" + token,
            headers: [
                ("apns-push-type", "liveactivity"),
                ("apns-topic", topic),
                ("apns-priority", String(push.priority.rawValue)),
                ("apns-expiration", String(push.timestamp + expirationSeconds)),
                ("content-type", "application/json"),
            ],
            body: body)
    }
}
