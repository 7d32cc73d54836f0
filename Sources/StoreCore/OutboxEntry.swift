public import Foundation
public import LiveRelayCore

/// One outbox row's identity: an activity and a target. A newer push for the same activity and target
/// replaces a waiting older one.
public struct OutboxKey: Sendable, Hashable, Comparable {
    /// The activity.
    public var activity: ActivityKey
    /// The target: its APNs token, else its provider address (`@device:…`, `@user:…`, `@activity:…`), else
    /// `""` (the console's placeholder).
    public var target: String

    /// Creates a key.
    public init(activity: ActivityKey, target: String) {
        self.activity = activity
        self.target = target
    }

    /// By activity, then target.
    public static func < (a: OutboxKey, b: OutboxKey) -> Bool {
        a.activity != b.activity ? a.activity < b.activity : a.target < b.target
    }
}

/// One push to one target, waiting in the durable outbox until a final receipt.
public struct OutboxEntry: Sendable, Hashable {
    /// Which activity and target.
    public var key: OutboxKey
    /// `push-to-start` or `activity`.
    public var kind: String
    public var device: String?
    public var environment: String?
    /// The push, as JSON (the Worker encodes it).
    public var push: Data
    /// The push's timestamp: a row is only ever replaced by a newer one.
    public var timestamp: Int
    /// Delivery rounds so far.
    public var attempts: Int
    /// UNIX seconds before which it is not sent again.
    public var nextAttempt: Int
    /// Where FCM, Pushwoosh or Getui address it (their device, user or activity ids).
    public var address: ProviderAddress
    /// The id of the provider it was released to; `nil` for rows written before providers were recorded.
    public var provider: String?
    /// The broadcast channel: a `channel` row's, or the one a push-to-start row's activity subscribes to.
    public var channel: String?
    /// A `channel` row's channel's storage policy (its broadcasts' `apns-expiration` follows it).
    public var channelPolicy: Int?
    /// Set when the target is one of a fan-out's (``OutboxFanOut``), read from the registry as the fan-out's
    /// cursor reached it: it has no row of its own, and its receipt moves the cursor instead of deleting one.
    /// A fan-out itself, as ``StateStore/waitingOutbox(activities:)`` lists it, has one too, at its cursor.
    public var fanOut: FanOutMark?

    public init(
        key: OutboxKey, kind: String, device: String?, environment: String?, push: Data, timestamp: Int,
        attempts: Int = 0, nextAttempt: Int, address: ProviderAddress = ProviderAddress(), provider: String? = nil,
        channel: String? = nil, channelPolicy: Int? = nil, fanOut: FanOutMark? = nil
    ) {
        self.fanOut = fanOut
        self.channel = channel
        self.channelPolicy = channelPolicy
        self.provider = provider
        self.key = key
        self.kind = kind
        self.device = device
        self.environment = environment
        self.push = push
        self.timestamp = timestamp
        self.attempts = attempts
        self.nextAttempt = nextAttempt
        self.address = address
    }

    /// The push it carries: its activity and timestamp.
    public var pushID: PushID { PushID(activity: key.activity, timestamp: timestamp) }
}

/// A waiting row given a newer push (a start carrying a newer state), if it still holds the push it held at
/// `previousTimestamp`.
public struct OutboxRewrite: Sendable, Hashable {
    /// The row with its new push and timestamp.
    public var row: OutboxEntry
    /// Its timestamp when it was read.
    public var previousTimestamp: Int

    /// A rewrite.
    public init(row: OutboxEntry, previousTimestamp: Int) {
        self.row = row
        self.previousTimestamp = previousTimestamp
    }
}
