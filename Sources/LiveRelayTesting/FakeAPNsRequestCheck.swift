import Foundation

/// The fake APNs' checks of one request's path, headers and payload, in the order APNs answers them.
/// Returns `nil` for a request APNs would accept, else the status, Apple's reason and what was wrong.
///
/// Stricter than Apple in two places, on purpose: a missing `apns-priority` is `BadPriority` (Apple would
/// default to 10; LiveRelay must always choose), and a Live Activity payload without the keys its event
/// needs is `InvalidLiveActivityPayload` (Apple accepts it and the device drops it silently).
enum FakeAPNsRequestCheck {
    typealias Verdict = (status: Int, reason: String, detail: String)

    static func headers(_ request: RecordedRequest, bundleID: String) -> Verdict? {
        if request.method != "POST" { return (405, "MethodNotAllowed", "method \(request.method)") }
        guard request.path.hasPrefix("/3/device/") else { return (404, "BadPath", "path \(request.path)") }
        let names = request.headers.map { $0.name.lowercased() }.filter {
            $0.hasPrefix("apns-") || $0 == "authorization"
        }
        if let repeated = names.first(where: { name in names.filter { $0 == name }.count > 1 }) {
            return (400, "DuplicateHeaders", "\(repeated) appears more than once")
        }
        guard let topic = request.header("apns-topic"), !topic.isEmpty else {
            return (400, "MissingTopic", "no apns-topic")
        }
        guard request.header("apns-push-type") == "liveactivity" else {
            return (400, "InvalidPushType", "apns-push-type is \(request.header("apns-push-type") ?? "missing")")
        }
        let suffix = ".push-type.liveactivity"
        guard topic.hasSuffix(suffix) else { return (400, "BadTopic", "a liveactivity topic must end in \(suffix)") }
        guard topic == bundleID + suffix else {
            return (400, "TopicDisallowed", "topic \(topic) is not this team's app")
        }
        guard let priority = request.header("apns-priority") else {
            return (400, "BadPriority", "no apns-priority (LiveRelay must always choose 5 or 10)")
        }
        guard priority == "5" || priority == "10" else { return (400, "BadPriority", "apns-priority \(priority)") }
        if let expiration = request.header("apns-expiration"), Int(expiration).map({ $0 >= 0 }) != true {
            return (400, "BadExpirationDate", "apns-expiration \(expiration)")
        }
        if let id = request.header("apns-id"), UUID(uuidString: id) == nil || id.count != 36 {
            return (400, "BadMessageId", "apns-id \(id) is not a UUID")
        }
        if let collapse = request.header("apns-collapse-id"), collapse.utf8.count > 64 {
            return (400, "BadCollapseId", "apns-collapse-id over 64 bytes")
        }
        return nil
    }

    /// Device tokens are 64 hex digits, Live Activity tokens longer: any even count of hex digits from 64.
    static func token(_ request: RecordedRequest) -> Verdict? {
        let token = String(request.path.dropFirst("/3/device/".count))
        if token.isEmpty { return (400, "MissingDeviceToken", "no token in the path") }
        let hex = token.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) || (65...70).contains($0) }
        guard hex, token.count % 2 == 0, (64...400).contains(token.count) else {
            return (400, "BadDeviceToken", "token is not 64 to 400 hex digits")
        }
        return nil
    }

    /// A Live Activity payload; `limit` is 4096 bytes for a device push, 5120 for a broadcast.
    static func payload(_ body: Data, limit: Int = 4096) -> Verdict? {
        if body.isEmpty { return (400, "PayloadEmpty", "no body") }
        if body.count > limit { return (413, "PayloadTooLarge", "\(body.count) bytes, over \(limit)") }
        func invalid(_ detail: String) -> Verdict { (400, "InvalidLiveActivityPayload", detail) }
        guard case .object(let root)? = try? JSONDecoder().decode(FakeJSON.self, from: body),
            case .object(let aps)? = root["aps"]
        else { return invalid("the body is not a JSON object with an aps object") }
        guard case .int? = aps["timestamp"] else { return invalid("aps.timestamp must be an integer") }
        guard case .string(let event)? = aps["event"], ["start", "update", "end"].contains(event) else {
            return invalid("aps.event must be start, update or end")
        }
        guard case .object? = aps["content-state"] else { return invalid("aps.content-state must be an object") }
        if event == "start" {
            guard case .string(let type)? = aps["attributes-type"], !type.isEmpty else {
                return invalid("a start needs aps.attributes-type")
            }
            guard case .object? = aps["attributes"] else { return invalid("a start needs aps.attributes") }
            switch aps["alert"] {
            case .object?, .string?: break
            default: return invalid("a start needs aps.alert")
            }
        } else if aps["attributes-type"] != nil || aps["attributes"] != nil || aps["input-push-token"] != nil
            || aps["input-push-channel"] != nil
        {
            return invalid("only a start carries attributes-type, attributes, input-push-token and input-push-channel")
        }
        if let channel = aps["input-push-channel"] {
            guard case .string(let id) = channel, !id.isEmpty, Data(base64Encoded: id) != nil else {
                return invalid("aps.input-push-channel must be a channel id")
            }
            if aps["input-push-token"] != nil { return invalid("input-push-token and input-push-channel together") }
        }
        for key in ["stale-date", "dismissal-date"] {
            if let value = aps[key], case .int = value {
            } else if aps[key] != nil {
                return invalid("aps.\(key) must be an integer (UNIX seconds)")
            }
        }
        switch aps["relevance-score"] {
        case nil, .int?, .double?: break
        default: return invalid("aps.relevance-score must be a number")
        }
        if let input = aps["input-push-token"], input != .int(1) { return invalid("aps.input-push-token must be 1") }
        return nil
    }
}

/// Just enough JSON to tell integers from other numbers and booleans from numbers.
enum FakeJSON: Decodable, Equatable {
    case null, bool(Bool), int(Int), double(Double), string(String), array([FakeJSON]), object([String: FakeJSON])

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let value = try? c.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? c.decode(Int.self) {
            self = .int(value)
        } else if let value = try? c.decode(Double.self) {
            self = .double(value)
        } else if let value = try? c.decode(String.self) {
            self = .string(value)
        } else if let value = try? c.decode([FakeJSON].self) {
            self = .array(value)
        } else {
            self = .object(try c.decode([String: FakeJSON].self))
        }
    }
}
