import Crypto
import Foundation

/// The fake APNs' broadcast channels (iOS 18): Apple's channel-management API on the same HTTP/2 + TLS
/// server and with the same provider-token checks as pushes, as strict as Apple's documents say:
///
/// | request | answer |
/// |---|---|
/// | `POST /1/apps/<bundle id>/channels` `{"message-storage-policy": 0 or 1, "push-type": "LiveActivity"}` | 201, the new id in `apns-channel-id` |
/// | `GET /1/apps/<bundle id>/channels` with `apns-channel-id` | 200 `{"message-storage-policy", "push-type"}` |
/// | `DELETE /1/apps/<bundle id>/channels` with `apns-channel-id` | 204 |
/// | `GET /1/apps/<bundle id>/all-channels` | 200 `{"channels": [ids]}` |
///
/// Refusals: `FeatureNotEnabled` when broadcast is off for the app, `CannotCreateChannelConfig` at the
/// channel limit (10,000 per app and environment), `MissingChannelId`, `BadChannelId`,
/// `ChannelNotRegistered` (unknown or deleted; a deleted id never comes back), `BadRequestPayload` for a
/// create body that is not as above, `TopicDisallowed` for a bundle id with a push-type suffix, 404 `BadPath`
/// for any other method or path. Ids look random (base64 of 16 bytes) but are the same on every run (the
/// n-th channel created gets the same id), so goldens can hold them.
///
/// Broadcasts (``broadcast(_:bundleID:)``): `POST /4/broadcasts/apps/<bundle id>` with `apns-channel-id` of
/// a live channel, `apns-push-type: liveactivity`, `apns-priority` 5 or 10, `apns-expiration` (0 on a channel
/// that stores no message, else `BadExpirationDate`), an update or end payload of at most 5,120 bytes.
struct FakeAPNsChannels: Sendable {
    typealias Verdict = FakeAPNsRequestCheck.Verdict

    /// An answer, or the refusal APNs would give.
    enum Outcome<Value> {
        case success(Value)
        case failure(Verdict)
    }

    /// The live channels: id → storage policy.
    private(set) var channels: [String: Int] = [:]
    /// Every id ever deleted, in order.
    private(set) var deleted: [String] = []
    /// Channels created so far, in order.
    private(set) var created: [String] = []
    var limit = 10_000
    var enabled = true
    /// At most this many broadcasts to one channel in the open window (`nil`: no limit); more are `429
    /// TooManyRequests`, as APNs answers a channel updated too often. The test opens the next window.
    var broadcastsPerWindow: Int?
    /// Broadcasts accepted per channel in the open window.
    private(set) var windowCounts: [String: Int] = [:]

    /// Counts an accepted broadcast to the channel named in `request` against its window.
    mutating func countBroadcast(_ request: RecordedRequest) {
        if case .success(let id) = Self.channelID(request) { windowCounts[id, default: 0] += 1 }
    }

    /// Opens a new window: every channel may take `broadcastsPerWindow` more.
    mutating func openWindow() { windowCounts = [:] }

    /// True for the channel-management paths.
    static func handles(_ path: String) -> Bool { path.hasPrefix("/1/apps/") }
    /// True for the broadcast paths.
    static func isBroadcast(_ path: String) -> Bool { path.hasPrefix("/4/broadcasts/") }

    /// Checks one broadcast, its provider token already checked: `nil` when APNs would accept it.
    func broadcast(_ request: RecordedRequest, bundleID: String) -> Verdict? {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        // "", "4", "broadcasts", "apps", bundle
        guard parts.count == 5, parts[3] == "apps" else { return (404, "BadPath", "path \(request.path)") }
        guard request.method == "POST" else { return (405, "MethodNotAllowed", "method \(request.method)") }
        if parts[4].contains(".push-type.") {
            return (400, "TopicDisallowed", "the bundle id carries a push-type suffix")
        }
        guard parts[4] == bundleID else { return (403, "TopicMismatch", "bundle id \(parts[4]) is not this app's") }
        guard enabled else { return (400, "FeatureNotEnabled", "broadcast is not enabled for the app") }
        let id: String
        switch Self.channelID(request) {
        case .success(let found): id = found
        case .failure(let verdict): return verdict
        }
        guard let policy = channels[id] else { return (400, "ChannelNotRegistered", "no channel \(id)") }
        guard let type = request.header("apns-push-type") else { return (400, "MissingPushType", "no apns-push-type") }
        guard type == "liveactivity" else { return (400, "InvalidPushType", "apns-push-type \(type)") }
        guard let priority = request.header("apns-priority"), priority == "5" || priority == "10" else {
            return (400, "BadPriority", "apns-priority \(request.header("apns-priority") ?? "missing")")
        }
        guard let expiration = request.header("apns-expiration"), let seconds = Int(expiration), seconds >= 0 else {
            return (400, "BadExpirationDate", "apns-expiration \(request.header("apns-expiration") ?? "missing")")
        }
        if policy == 0, seconds != 0 {
            return (400, "BadExpirationDate", "apns-expiration \(seconds) on a channel that stores no message")
        }
        if let verdict = FakeAPNsRequestCheck.payload(request.body, limit: 5120) { return verdict }
        if request.bodyText.contains("\"event\":\"start\"") {
            return (400, "InvalidLiveActivityPayload", "a broadcast cannot start an activity")
        }
        if let most = broadcastsPerWindow, windowCounts[id, default: 0] >= most {
            return (429, "TooManyRequests", "channel \(id) took \(most) broadcasts in this window")
        }
        return nil
    }

    /// Deletes a channel behind LiveRelay's back (the operator, another tool): later requests naming it get
    /// `ChannelNotRegistered`.
    mutating func remove(_ id: String) {
        guard channels.removeValue(forKey: id) != nil else { return }
        deleted.append(id)
    }

    /// Answers one channel-management request, its provider token already checked.
    mutating func handle(_ request: RecordedRequest, bundleID: String) -> Outcome<ServerResponse> {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        // "", "1", "apps", bundle, "channels" | "all-channels"
        guard parts.count == 5, let resource = parts.last, resource == "channels" || resource == "all-channels"
        else { return .failure((404, "BadPath", "path \(request.path)")) }
        let bundle = parts[3]
        if bundle.contains(".push-type.") {
            return .failure((400, "TopicDisallowed", "the bundle id carries a push-type suffix"))
        }
        guard bundle == bundleID else {
            return .failure((403, "TopicMismatch", "bundle id \(bundle) is not this app's"))
        }
        guard enabled else { return .failure((400, "FeatureNotEnabled", "broadcast is not enabled for the app")) }
        switch (request.method, resource) {
        case ("POST", "channels"):
            return create(request.body)
        case ("GET", "all-channels"):
            let body = try? JSONSerialization.data(withJSONObject: ["channels": channels.keys.sorted()])
            return .success(
                ServerResponse(status: 200, headers: [("content-type", "application/json")], body: body ?? Data()))
        case ("GET", "channels"), ("DELETE", "channels"):
            let id: String
            switch Self.channelID(request) {
            case .success(let found): id = found
            case .failure(let verdict): return .failure(verdict)
            }
            guard let policy = channels[id] else {
                return .failure((400, "ChannelNotRegistered", "no channel \(id) in this environment"))
            }
            if request.method == "DELETE" {
                channels[id] = nil
                deleted.append(id)
                return .success(ServerResponse(status: 204))
            }
            let body = try? JSONSerialization.data(
                withJSONObject: ["message-storage-policy": policy, "push-type": "LiveActivity"], options: .sortedKeys)
            return .success(
                ServerResponse(status: 200, headers: [("content-type", "application/json")], body: body ?? Data()))
        default:
            return .failure((404, "BadPath", "\(request.method) \(request.path)"))
        }
    }

    private mutating func create(_ body: Data) -> Outcome<ServerResponse> {
        guard case .object(let object)? = try? JSONDecoder().decode(FakeJSON.self, from: body) else {
            return .failure((400, "BadRequestPayload", "the body is not a JSON object"))
        }
        guard case .int(let policy)? = object["message-storage-policy"], policy == 0 || policy == 1 else {
            return .failure((400, "BadRequestPayload", "message-storage-policy must be 0 or 1"))
        }
        guard object["push-type"] == .string("LiveActivity") else {
            return .failure((400, "BadRequestPayload", "push-type must be LiveActivity"))
        }
        if let unknown = object.keys.first(where: { $0 != "message-storage-policy" && $0 != "push-type" }) {
            return .failure((400, "BadRequestPayload", "unknown field \(unknown)"))
        }
        guard channels.count < limit else {
            return .failure((400, "CannotCreateChannelConfig", "the app has \(channels.count) channels, the limit"))
        }
        let id = Data(SHA256.hash(data: Data("fake APNs channel \(created.count)".utf8)).prefix(16))
            .base64EncodedString()
        channels[id] = policy
        created.append(id)
        return .success(ServerResponse(status: 201, headers: [("apns-channel-id", id)]))
    }

    /// The `apns-channel-id` header: present, base64, at most 64 characters.
    static func channelID(_ request: RecordedRequest) -> Outcome<String> {
        guard let id = request.header("apns-channel-id"), !id.isEmpty else {
            return .failure((400, "MissingChannelId", "no apns-channel-id"))
        }
        guard id.count <= 64, Data(base64Encoded: id) != nil else {
            return .failure((400, "BadChannelId", "apns-channel-id is not a channel id"))
        }
        return .success(id)
    }
}
