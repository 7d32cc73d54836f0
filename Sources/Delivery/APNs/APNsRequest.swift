import Crypto
public import Foundation
public import LiveRelayCore

/// One HTTP/2 request to APNs, fully formed: what the APNs provider sends and what the console provider
/// prints. The `authorization` header is not part of it: the provider adds it when sending.
public struct APNsRequest: Sendable, Hashable {
    /// Always `POST`.
    public var method: String
    /// `/3/device/<token>`, or `/4/broadcasts/apps/<bundle id>` for a broadcast.
    public var path: String
    /// In the order they are sent.
    public var headers: [(name: String, value: String)]
    /// The JSON payload.
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
    /// APNs refuses Live Activity payloads over this many bytes (413 `PayloadTooLarge`).
    public static let maximumPayloadBytes = 4096
    /// APNs refuses broadcast payloads over this many bytes (413 `PayloadTooLarge`).
    public static let maximumBroadcastBytes = 5120

    /// The app's bundle id; the topic is `<bundle id>.push-type.liveactivity`.
    public var bundleID: String
    /// How long APNs may store an undeliverable push, in seconds after its timestamp.
    public var expirationSeconds: Int

    /// Creates an encoder for an app.
    public init(bundleID: String, expirationSeconds: Int = 3600) {
        self.bundleID = bundleID
        self.expirationSeconds = expirationSeconds
    }

    /// The `apns-topic` for Live Activity pushes.
    public var topic: String { bundleID + ".push-type.liveactivity" }

    /// The body bytes: canonical JSON with sorted keys, so equal pushes encode to equal bytes. Refuses a
    /// push APNs or the device would refuse: a `start` without `attributes-type`, `attributes` or an alert,
    /// and a payload over ``maximumPayloadBytes``.
    public func body(for push: LiveActivityPush) throws(APNsPayloadError) -> Data {
        try Self.payload(for: push)
    }

    /// The payload bytes of ``body(for:)``, with its checks: what every provider that forwards a push to
    /// APNs (FCM too) must refuse before sending.
    public static func payload(for push: LiveActivityPush, limit: Int = maximumPayloadBytes)
        throws(APNsPayloadError) -> Data
    {
        func refuse(_ code: APNsPayloadError.Code, _ message: String) -> APNsPayloadError {
            APNsPayloadError(code: code, activity: push.activity, event: push.event, message: message)
        }
        if push.event == .start {
            if push.attributesType.isEmpty {
                throw refuse(
                    .missingAttributesType, "a start needs attributes-type (the app's ActivityAttributes type)")
            }
            if push.attributes == nil {
                throw refuse(.missingAttributes, "a start needs attributes (the activity's static attributes)")
            }
            if push.alert?.hasText != true {
                throw refuse(.missingAlert, "a start needs an alert with a title or body (push-to-start requires one)")
            }
        }
        let data = Self.payloadBytes(push)
        if data.count > limit {
            throw refuse(
                .payloadTooLarge,
                "the payload is \(data.count) bytes; APNs accepts at most \(limit) "
                    + "(shorten the content-state, attributes or alert)")
        }
        return data
    }

    /// The payload written straight to bytes (no encoder pass per push): the same canonical JSON as
    /// `JSONEncoder` with sorted keys would give for ``APNsPayload``, which the tests hold it to.
    static func payloadBytes(_ push: LiveActivityPush) -> Data {
        let start = push.event == .start
        var out = JSONBytes(capacity: 512)
        out.raw("{\"aps\":{")
        if let alert = push.alert {
            out.key("alert")
            writeAlert(alert, to: &out)
            out.byte(UInt8(ascii: ","))
        }
        if start {
            out.key("attributes")
            out.write(push.attributes ?? .emptyObject)
            out.byte(UInt8(ascii: ","))
            out.key("attributes-type")
            out.string(push.attributesType)
            out.byte(UInt8(ascii: ","))
        }
        out.key("content-state")
        out.write(push.contentState)
        if let dismissal = push.dismissalDate {
            out.raw(",")
            out.key("dismissal-date")
            out.int(dismissal)
        }
        out.raw(",")
        out.key("event")
        out.string(push.event.rawValue)
        if start, let channel = push.inputPushChannel {
            out.raw(",")
            out.key("input-push-channel")
            out.string(channel)
        } else if start, push.inputPushToken == true {
            out.raw(",")
            out.key("input-push-token")
            out.int(1)
        }
        if let relevance = push.relevanceScore {
            out.raw(",")
            out.key("relevance-score")
            out.double(relevance.value)
        }
        if let stale = push.staleDate {
            out.raw(",")
            out.key("stale-date")
            out.int(stale)
        }
        out.raw(",")
        out.key("timestamp")
        out.int(push.timestamp)
        out.raw("}}")
        return out.data
    }

    private static func writeAlert(_ alert: LiveActivityAlert, to out: inout JSONBytes) {
        var first = true
        func member(_ key: StaticString, _ value: String?, _ out: inout JSONBytes) {
            guard let value else { return }
            if !first { out.byte(UInt8(ascii: ",")) }
            first = false
            out.key(key)
            out.string(value)
        }
        func member(_ key: StaticString, _ values: [String]?, _ out: inout JSONBytes) {
            guard let values else { return }
            if !first { out.byte(UInt8(ascii: ",")) }
            first = false
            out.key(key)
            out.write(.array(values.map(JSONValue.string)))
        }
        out.byte(UInt8(ascii: "{"))
        member("body", alert.body, &out)
        member("loc-args", alert.locArgs, &out)
        member("loc-key", alert.locKey, &out)
        member("sound", alert.sound, &out)
        member("title", alert.title, &out)
        member("title-loc-args", alert.titleLocArgs, &out)
        member("title-loc-key", alert.titleLocKey, &out)
        out.byte(UInt8(ascii: "}"))
    }

    /// The whole request. `token` is the device or activity token in hex; the console shows a placeholder
    /// when none is registered.
    public func request(for push: LiveActivityPush, token: String, body: Data) -> APNsRequest {
        APNsRequest(
            method: "POST", path: "/3/device/" + token,
            headers: headers(for: push, apnsID: Self.apnsID(for: push, token: token)), body: body)
    }

    /// The header fields every token of a push gets alike: all of ``request(for:token:body:)``'s but
    /// `apns-id`, in the same order.
    public func sharedHeaders(for push: LiveActivityPush) -> [(name: String, value: String)] {
        headers(for: push, apnsID: nil)
    }

    private func headers(for push: LiveActivityPush, apnsID: String?) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(6)
        headers.append(("apns-push-type", "liveactivity"))
        headers.append(("apns-topic", topic))
        headers.append(("apns-priority", String(push.priority.rawValue)))
        headers.append(("apns-expiration", String(push.timestamp + expirationSeconds)))
        if let apnsID { headers.append(("apns-id", apnsID)) }
        headers.append(("content-type", "application/json"))
        return headers
    }

    /// The body of a broadcast: a start cannot be broadcast (APNs starts channel activities by push-to-start
    /// with `input-push-channel`), and the payload may be up to ``maximumBroadcastBytes``.
    public func broadcastBody(for push: LiveActivityPush) throws(APNsPayloadError) -> Data {
        if push.event == .start {
            throw APNsPayloadError(
                code: .startBroadcast, activity: push.activity, event: push.event,
                message: "a broadcast cannot start an activity (push-to-start with input-push-channel does)")
        }
        return try Self.payload(for: push, limit: Self.maximumBroadcastBytes)
    }

    /// A broadcast of `push` to `channel`: `apns-expiration` is 0 on a channel that stores no message (APNs
    /// refuses anything else there), else the push's timestamp plus ``expirationSeconds``.
    public func broadcastRequest(
        for push: LiveActivityPush, channel: String, storesMessages: Bool, body: Data
    ) -> APNsRequest {
        APNsRequest(
            method: "POST", path: "/4/broadcasts/apps/" + bundleID,
            headers: [
                ("apns-push-type", "liveactivity"),
                ("apns-channel-id", channel),
                ("apns-priority", String(push.priority.rawValue)),
                ("apns-expiration", storesMessages ? String(push.timestamp + expirationSeconds) : "0"),
                ("apns-request-id", Self.apnsID(for: push, token: "channel " + channel)),
                ("content-type", "application/json"),
            ],
            body: body)
    }

    /// A UUID that names one push to one token, derived from the activity, event, timestamp and token, so
    /// the same push gets the same `apns-id` on every run and every retry (APNs echoes it in its answer).
    public static func apnsID(for push: LiveActivityPush, token: String) -> String {
        APNsIDs(push).id(token: token)
    }

    /// The `apns-id`s of one push's requests (``apnsID(for:token:)``): the push's part of what is hashed is
    /// written once, and each token's name is one SHA-256 over it and the token.
    public struct APNsIDs: Sendable {
        /// `activity \n event \n timestamp \n`, as hashed before the token.
        private let prefix: [UInt8]

        /// The names of `push`'s requests.
        public init(_ push: LiveActivityPush) {
            var prefix: [UInt8] = []
            prefix.reserveCapacity(push.activity.rawValue.utf8.count + 32)
            prefix += push.activity.rawValue.utf8
            prefix.append(UInt8(ascii: "\n"))
            prefix += push.event.rawValue.utf8
            prefix.append(UInt8(ascii: "\n"))
            prefix += String(push.timestamp).utf8
            prefix.append(UInt8(ascii: "\n"))
            self.prefix = prefix
        }

        /// The `apns-id` of the request to `token`.
        public func id(token: String) -> String {
            var token = token
            let digest = token.withUTF8 { token in
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: prefix.count + token.count) { bytes in
                    var end = bytes.initialize(fromContentsOf: prefix)
                    end = bytes[end...].initialize(fromContentsOf: token)
                    var hasher = SHA256()
                    hasher.update(
                        bufferPointer: UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: bytes[..<end])))
                    return hasher.finalize()
                }
            }
            return digest.withUnsafeBytes { digest in
                String(unsafeUninitializedCapacity: 36) { text in
                    let hex: StaticString = "0123456789abcdef"
                    var at = 0
                    for i in 0..<16 {
                        var byte = digest[i]
                        if i == 6 { byte = (byte & 0x0F) | 0x80 }  // version 8: a name-based UUID of our own
                        if i == 8 { byte = (byte & 0x3F) | 0x80 }  // RFC 9562 variant
                        if i == 4 || i == 6 || i == 8 || i == 10 {
                            text[at] = UInt8(ascii: "-")
                            at += 1
                        }
                        text[at] = hex.utf8Start[Int(byte >> 4)]
                        text[at + 1] = hex.utf8Start[Int(byte & 0x0F)]
                        at += 2
                    }
                    return at
                }
            }
        }
    }
}
