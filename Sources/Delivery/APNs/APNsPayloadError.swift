public import LiveRelayCore

/// A push LiveRelay refuses to send to APNs because APNs or the device would refuse it: checked before
/// sending, so the problem names the activity and the rule instead of coming back as a bare status code.
public struct APNsPayloadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of problem: a short stable name, fit for a metric label.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The name (`payload_too_large`, …).
        public let name: String

        /// Creates a code; prefer the predefined ones.
        public init(_ name: String) { self.name = name }

        /// The encoded body is over APNs' limit for Live Activity pushes.
        public static let payloadTooLarge = Code("payload_too_large")
        /// A `start` without `attributes-type`.
        public static let missingAttributesType = Code("missing_attributes_type")
        /// A `start` without `attributes`.
        public static let missingAttributes = Code("missing_attributes")
        /// A `start` without an alert (push-to-start needs one).
        public static let missingAlert = Code("missing_alert")
        /// A `start` addressed to a broadcast channel (a broadcast can only update or end).
        public static let startBroadcast = Code("start_broadcast")
        /// The payload could not be encoded at all.
        public static let encoding = Code("encoding")

        /// The same as `name`.
        public var description: String { name }
    }

    /// What is wrong.
    public var code: Code
    /// The activity the push was for.
    public var activity: ActivityKey
    /// The event of the push.
    public var event: PushEvent
    /// What is wrong, in words.
    public var message: String

    /// Creates an error.
    public init(code: Code, activity: ActivityKey, event: PushEvent, message: String) {
        self.code = code
        self.activity = activity
        self.event = event
        self.message = message
    }

    /// `missing_alert: start match-1: …`
    public var description: String { "\(code): \(event) \(activity): \(message)" }
}
