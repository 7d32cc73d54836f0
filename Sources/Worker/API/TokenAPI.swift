public import Foundation
public import Hummingbird
public import LiveRelayCore
public import Logging
public import Rules
public import Store

/// Token registration as an app backend calls it. Every route needs `Authorization: Bearer <api.bearer-token>`.
///
/// | method and path | body | does |
/// |---|---|---|
/// | `PUT /v1/devices/{device}/push-to-start/{attributesType}` | `{"token", "environment"?}` | stores or rotates a push-to-start token |
/// | `DELETE /v1/devices/{device}/push-to-start/{attributesType}` | | removes it |
/// | `PUT /v1/activities/{activity}/tokens/{device}` | `{"token", "environment"?, "frequent-updates"?}` | stores or rotates an activity's update token |
/// | `DELETE /v1/activities/{activity}/tokens/{device}` | | removes it |
/// | `PUT /v1/devices/{device}/subscriptions/{feed}/{entity}` | | the device follows the entity (starts reach it) |
/// | `DELETE /v1/devices/{device}/subscriptions/{feed}/{entity}` | | it stops |
/// | `PUT`/`DELETE /v1/devices/{device}/providers/{provider}` | the install's address at FCM, Pushwoosh or Getui | see `TokenAPI+Addresses.swift` |
/// | `PUT`/`DELETE /v1/activities/{activity}/providers/{provider}` | the activity's Pushwoosh or Getui id | |
/// | `GET /v1/activities/{activity}/devices` | | the devices the activity was started on and those that reported its update token |
/// | `GET /v1/activities/{activity}/report` | | its recent history as the replay report draws it (`?format=json` for the data); see `TokenAPI+Report.swift` |
/// | `GET /v1/activities/{activity}/channel` | | its broadcast channel id; see `TokenAPI+Channels.swift` |
/// | `PUT`/`DELETE /v1/devices/{device}/channel-subscriber` | | the device subscribes its activities by channel (iOS 18) |
/// | `PUT`/`GET`/`DELETE /v1/subscriptions/{id}` | `{"device", "feed", "entity", "parameters"?}` | a device's own subscription with parameters; see `TokenAPI+Subscriptions.swift` |
///
/// Bad input gets a 4xx with `{"error": "…"}` naming the field, and stores nothing.
public struct TokenAPI: Sendable {
    public let store: any RegistryStore & AddressStore & ChannelStore & SubscriptionStore & ActivityStore
    public let queue: StoredThrottle
    public let feeds: Set<String>
    public let bearerToken: Secret?
    public let maxBodyBytes: Int
    /// Seconds of history the live report covers (`api.report-window`); 0: none is kept.
    public let reportWindow: Int
    /// The APNs environment of a token registered without one: the default provider's.
    public let defaultEnvironment: PushEnvironment
    /// The attributes types the rules in force use (a push-to-start token of another type would never be
    /// used); `nil` takes any.
    let attributesTypes: (@Sendable () -> Set<String>)?
    /// By feed, the parameters the rule files in force declare for subscriptions (``RuleEngine/subscriptionParameters``);
    /// `nil` takes subscriptions of no feed.
    let subscriptionParameters: (@Sendable () -> [String: [SubscriptionParameters]])?
    let metrics: LiveRelayMetrics
    let failures: AuthFailures
    let now: @Sendable () -> Int

    public init(
        store: any RegistryStore & AddressStore & ChannelStore & SubscriptionStore & ActivityStore,
        queue: StoredThrottle, feeds: Set<String>, bearerToken: Secret?, maxBodyBytes: Int,
        reportWindow: Int = 0, environment: PushEnvironment = .production,
        attributesTypes: (@Sendable () -> Set<String>)? = nil,
        subscriptionParameters: (@Sendable () -> [String: [SubscriptionParameters]])? = nil,
        logger: Logger = Logger(label: "liverelay.api"),
        metrics: LiveRelayMetrics = .none, now: @escaping @Sendable () -> Int = { Int(Date().timeIntervalSince1970) }
    ) {
        self.reportWindow = reportWindow
        self.defaultEnvironment = environment
        self.attributesTypes = attributesTypes
        self.subscriptionParameters = subscriptionParameters
        self.metrics = metrics
        self.failures = AuthFailures(metrics: metrics, logger: logger)
        self.store = store
        self.queue = queue
        self.feeds = feeds
        self.bearerToken = bearerToken
        self.maxBodyBytes = maxBodyBytes
        self.now = now
    }

    /// Adds the routes to a router.
    public func register(on router: some RouterMethods<BasicRequestContext>) {
        let api = router.group("v1").add(middleware: BearerAuthMiddleware(token: bearerToken, failures: failures))
        api.put("devices/:device/push-to-start/:type") { request, context in
            let device = try Validate.device(context.parameters.get("device"))
            let type = try Validate.attributesType(context.parameters.get("type"))
            if let known = attributesTypes?(), !known.contains(type) {
                let hint = Suggestion.closest(to: type, among: known).map { " (did you mean \"\($0)\"?)" } ?? ""
                throw APIError(
                    .badRequest,
                    "attributes type \"\(type)\": no rule starts activities of it\(hint); the rules use "
                        + (known.isEmpty ? "none" : known.sorted().joined(separator: ", ")))
            }
            let body = try await decode(TokenBody.self, request)
            let token = try Validate.token(body.token)
            guard
                try await store.registerPushToStartToken(
                    device: device, attributesType: type, token: token,
                    environment: try Validate.environment(body.environment, default: defaultEnvironment), now: now())
            else {
                throw APIError.droppedToken
            }
            return Response(status: .noContent)
        }
        api.delete("devices/:device/push-to-start/:type") { _, context in
            try await store.removePushToStartToken(
                device: try Validate.device(context.parameters.get("device")),
                attributesType: try Validate.attributesType(context.parameters.get("type")))
            return Response(status: .noContent)
        }
        api.put("activities/:activity/tokens/:device") { request, context in
            let activity = try Validate.activity(context.parameters.get("activity"))
            let device = try Validate.device(context.parameters.get("device"))
            let body = try await decode(ActivityTokenBody.self, request)
            let token = try Validate.token(body.token)
            switch try await store.registerActivityToken(
                activity: activity, device: device, token: token,
                environment: try Validate.environment(body.environment, default: defaultEnvironment), now: now())
            {
            case .stored: break
            case .dropped: throw APIError.droppedToken
            case .ended: throw APIError.endedActivity(activity)
            }
            if let frequent = body.frequentUpdates { try await queue.setFrequentUpdates(frequent, for: activity) }
            return Response(status: .noContent)
        }
        api.delete("activities/:activity/tokens/:device") { _, context in
            try await store.removeActivityToken(
                activity: try Validate.activity(context.parameters.get("activity")),
                device: try Validate.device(context.parameters.get("device")))
            return Response(status: .noContent)
        }
        api.put("devices/:device/subscriptions/:feed/:entity") { _, context in
            try await store.subscribe(
                device: try Validate.device(context.parameters.get("device")), to: try entity(context), now: now())
            return Response(status: .noContent)
        }
        api.delete("devices/:device/subscriptions/:feed/:entity") { _, context in
            try await store.unsubscribe(
                device: try Validate.device(context.parameters.get("device")), from: try entity(context))
            return Response(status: .noContent)
        }
        api.get("activities/:activity/devices") { _, context in
            let activity = try Validate.activity(context.parameters.get("activity"))
            let devices = try await store.activityDevices(activity).map {
                DeviceReport(device: $0.device, startedAt: $0.startedAt, tokenAt: $0.tokenAt)
            }
            return try APIServer.jsonResponse(DevicesReport(activity: activity.rawValue, devices: devices), status: .ok)
        }
        registerAddressRoutes(on: api)
        registerReportRoute(on: api)
        registerChannelRoutes(on: api)
        registerSubscriptionRoutes(on: api)
    }

    private func entity(_ context: BasicRequestContext) throws -> EntityKey {
        let feed = context.parameters.get("feed") ?? ""
        guard feeds.contains(feed) else { throw APIError(.notFound, "feed: unknown feed \"\(feed.prefix(64))\"") }
        return EntityKey(feed: feed, id: try Validate.entity(context.parameters.get("entity")))
    }

    /// The body as `T`; a field `T` does not take is refused, named (with the closest one it takes).
    func decode<T: APIBody>(_ type: T.Type, _ request: Request) async throws -> T {
        let body = try await json(request)
        guard case .object(let members) = body else { throw APIError(.badRequest, "the body must be a JSON object") }
        if let null = members.keys.sorted().first(where: { members[$0] == .null }) {
            throw APIError(.badRequest, "\(null): null is not a value here; leave the field out")
        }
        if let unknown = members.keys.sorted().first(where: { !T.fields.contains($0) }) {
            let hint = Suggestion.closest(to: unknown, among: T.fields).map { " (did you mean \"\($0)\"?)" } ?? ""
            throw APIError(
                .badRequest,
                "\(unknown): unknown field\(hint); this body takes \(T.fields.sorted().joined(separator: ", "))")
        }
        return try decode(type, from: body)
    }

    /// The body as JSON, refused when it is too large or not JSON.
    func json(_ request: Request) async throws -> JSONValue {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > maxBodyBytes {
            throw APIError(.contentTooLarge, "body is larger than \(maxBodyBytes) bytes")
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: maxBodyBytes)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw APIError(.contentTooLarge, "body is larger than \(maxBodyBytes) bytes")
        } catch {
            throw APIError(.badRequest, "the body could not be read: its framing is malformed or it was cut short")
        }
        let data = Data(buffer.readableBytesView)
        do {
            return try JSONParser.parse(data)
        } catch {
            throw APIError(.badRequest, "body is not valid JSON: \(error)")
        }
    }

    func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        do {
            return try JSONValueDecoder().decode(T.self, from: value)
        } catch {
            let at = error.pointer.tokens.joined(separator: ".")
            throw APIError(.badRequest, at.isEmpty ? error.message : "\(at): \(error.message)")
        }
    }
}

/// A request body with a fixed set of fields: any other is refused.
protocol APIBody: Decodable {
    static var fields: Set<String> { get }
}

struct TokenBody: APIBody {
    static let fields: Set<String> = ["token", "environment"]
    var token: String
    var environment: String?
}

struct ActivityTokenBody: APIBody {
    static let fields: Set<String> = ["token", "environment", "frequent-updates"]
    var token: String
    var environment: String?
    var frequentUpdates: Bool?

    enum CodingKeys: String, CodingKey {
        case token, environment
        case frequentUpdates = "frequent-updates"
    }
}

extension APIError {
    /// A token the provider declared dead is refused for good, so a stale app cannot bring it back.
    static let droppedToken = APIError(.gone, "token was dropped by the provider and is never stored again")

    /// A token for an activity that has ended would get nothing: the app learns that instead.
    static func endedActivity(_ activity: ActivityKey) -> APIError {
        APIError(.conflict, "activity \(activity) has ended: nothing more is sent for it")
    }
}

/// `GET /v1/activities/{activity}/devices`: which devices have the activity. A device with `started-at` and
/// no `token-at` got its start but has not reported the activity's update token (yet): the app backend can
/// see a device that did not.
struct DevicesReport: Encodable {
    var activity: String
    var devices: [DeviceReport]
}

/// One device of ``DevicesReport``.
struct DeviceReport: Encodable {
    var device: String
    /// When (UNIX seconds) its start went to the provider.
    var startedAt: Int?
    /// When the app reported the activity's update token from it.
    var tokenAt: Int?

    enum CodingKeys: String, CodingKey {
        case device
        case startedAt = "started-at"
        case tokenAt = "token-at"
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(device, forKey: .device)
        try c.encode(startedAt, forKey: .startedAt)
        try c.encode(tokenAt, forKey: .tokenAt)
    }
}
