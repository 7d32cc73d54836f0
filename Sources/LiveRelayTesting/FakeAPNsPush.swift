public import Foundation

/// A push the fake APNs accepted, as it arrived: what a golden file compares byte for byte.
public struct FakeAPNsPush: Sendable, Hashable, Codable {
    /// The request path, `/3/device/<token>`.
    public var path: String
    /// The headers that decide delivery (`apns-push-type`, `apns-topic`, `apns-priority`, `apns-expiration`,
    /// `apns-id`; a broadcast's `apns-channel-id` and `apns-request-id`), by name; `authorization` is never
    /// recorded.
    public var headers: [String: String]
    /// The payload exactly as received, as UTF-8 text.
    public var body: String

    /// The headers recorded; the others (`content-length`, `user-agent`, …) vary with the client.
    public static let recordedHeaders = [
        "apns-push-type", "apns-topic", "apns-priority", "apns-expiration", "apns-id", "apns-channel-id",
        "apns-request-id",
    ]

    /// Creates a record.
    public init(path: String, headers: [String: String], body: String) {
        self.path = path
        self.headers = headers
        self.body = body
    }

    /// The device or activity token the push was addressed to; `""` for a broadcast.
    public var token: String { isBroadcast ? "" : String(path.dropFirst("/3/device/".count)) }
    /// Whether it is a broadcast to a channel.
    public var isBroadcast: Bool { path.hasPrefix("/4/broadcasts/") }
    /// The channel a broadcast went to.
    public var channel: String? { headers["apns-channel-id"] }

    /// The pushes as pretty, key-sorted JSON with a final newline: the golden file format.
    public static func goldenJSON(_ pushes: [FakeAPNsPush]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(pushes) + Data("\n".utf8)
    }
}

/// A request the fake APNs refused, with the reason it answered and what exactly was wrong.
public struct FakeAPNsRejection: Sendable, Hashable {
    /// The HTTP status.
    public var status: Int
    /// Apple's reason string.
    public var reason: String
    /// What the fake found wrong, in words (not sent to the client).
    public var detail: String
    /// The request path.
    public var path: String
}
