public import LiveRelayCore

/// A device's part in an activity's life: when a start was handed to a provider for it (push-to-start), and
/// when the app reported the activity's update token from it.
public struct ActivityDevice: Sendable, Hashable {
    /// The device.
    public var device: String
    /// When (UNIX seconds) its start went to the provider; `nil` when none did.
    public var startedAt: Int?
    /// When the app reported the activity's update token from this device; `nil` when it has not.
    public var tokenAt: Int?

    /// A record.
    public init(device: String, startedAt: Int?, tokenAt: Int?) {
        self.device = device
        self.startedAt = startedAt
        self.tokenAt = tokenAt
    }
}

/// One start of one activity on one device.
public struct DeviceStart: Sendable, Hashable {
    public var activity: ActivityKey
    public var device: String

    /// A pair.
    public init(activity: ActivityKey, device: String) {
        self.activity = activity
        self.device = device
    }
}

/// A push of an activity that got through to a device or the provider: the store sets the activity's
/// `sent_at` and, when it is the newest that did, its delivered state (`activity.delivered-state`).
public struct SentPush: Sendable, Hashable {
    public var activity: ActivityKey
    public var timestamp: Int
    public var state: JSONValue

    public init(activity: ActivityKey, timestamp: Int, state: JSONValue) {
        self.activity = activity
        self.timestamp = timestamp
        self.state = state
    }

    /// The newest of each activity's pushes, in activity order.
    public static func newest(_ pushes: [SentPush]) -> [SentPush] {
        var newest: [ActivityKey: SentPush] = [:]
        for push in pushes where push.timestamp > newest[push.activity]?.timestamp ?? Int.min {
            newest[push.activity] = push
        }
        return newest.keys.sorted().map { newest[$0]! }
    }
}
