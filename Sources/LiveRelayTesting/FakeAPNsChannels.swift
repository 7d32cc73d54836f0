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
/// for any other method or path. Ids are random, base64 of 16 bytes.
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

    /// True for the paths this handles.
    static func handles(_ path: String) -> Bool { path.hasPrefix("/1/apps/") }

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
        var id: String
        repeat {
            id = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        } while channels[id] != nil || deleted.contains(id)
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
