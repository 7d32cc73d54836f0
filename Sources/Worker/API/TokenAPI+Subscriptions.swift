import Foundation
import Hummingbird
import LiveRelayCore
import Rules
import Store

/// Personal subscriptions, as an app backend keeps a user's own alert: the backend names each one, and
/// its parameters are checked against what the rule files of its feed declare (`subscription`).
///
/// | method and path | body | does |
/// |---|---|---|
/// | `PUT /v1/subscriptions/{id}` | `{"device", "feed", "entity", "parameters"?}` | creates it (201) or changes its parameters (200); another device or entity under the id is a 409 |
/// | `GET /v1/subscriptions/{id}` | | the subscription (404 when there is none) |
/// | `DELETE /v1/subscriptions/{id}` | | deletes it (204, 404 when there is none); its running activities end at the feed's next poll |
extension TokenAPI {
    func registerSubscriptionRoutes(on api: RouterGroup<BasicRequestContext>) {
        api.put("subscriptions/:id") { request, context in
            let id = try Validate.subscription(context.parameters.get("id"))
            let body = try await decode(SubscriptionBody.self, request)
            let device = try Validate.device(body.device, inBody: true)
            let entity = try known(feed: body.feed, entity: body.entity)
            let parameters = body.parameters ?? .emptyObject
            try check(parameters, feed: entity.feed)
            let now = now()
            let subscription = Subscription(
                id: id, device: device, entity: entity, parameters: parameters, createdAt: now)
            switch try await store.putSubscription(subscription, now: now) {
            case .created:
                return try APIServer.jsonResponse(SubscriptionReport(subscription), status: .created)
            case .changed:
                guard let stored = try await store.subscription(id: id) else {
                    throw APIError(.conflict, "subscription \(id) was deleted meanwhile")
                }
                return try APIServer.jsonResponse(SubscriptionReport(stored), status: .ok)
            case .conflict(let existing):
                throw APIError(
                    .conflict,
                    "subscription \(id) is device \(existing.device)'s to \(existing.entity.feed)/\(existing.entity.id): its device and entity never change (delete it, or use another id)"
                )
            }
        }
        api.get("subscriptions/:id") { _, context in
            let id = try Validate.subscription(context.parameters.get("id"))
            guard let subscription = try await store.subscription(id: id) else {
                throw APIError(.notFound, "no subscription \(id)")
            }
            return try APIServer.jsonResponse(SubscriptionReport(subscription), status: .ok)
        }
        api.delete("subscriptions/:id") { _, context in
            let id = try Validate.subscription(context.parameters.get("id"))
            guard try await store.deleteSubscription(id: id, now: now()) else {
                throw APIError(.notFound, "no subscription \(id)")
            }
            return Response(status: .noContent)
        }
    }

    /// The entity a body names, of a feed the config defines.
    private func known(feed: String, entity: String) throws -> EntityKey {
        guard feeds.contains(feed) else {
            let hint = Suggestion.closest(to: feed, among: feeds).map { " (did you mean \"\($0)\"?)" } ?? ""
            throw APIError(.badRequest, "feed: unknown feed \"\(feed.prefix(64))\"\(hint)")
        }
        return EntityKey(feed: feed, id: try Validate.entity(entity, inBody: true))
    }

    /// Refuses parameters that a rule file of the feed does not accept, naming the field and the file; a feed
    /// no rule file takes subscriptions of is refused too (nothing would read them).
    private func check(_ parameters: JSONValue, feed: String) throws {
        if let refusal = SubscriptionParameters.refusal(
            of: parameters, feed: feed, declared: subscriptionParameters?()[feed])
        {
            throw APIError(.badRequest, refusal)
        }
    }
}

struct SubscriptionBody: APIBody {
    static let fields: Set<String> = ["device", "feed", "entity", "parameters"]
    var device: String
    var feed: String
    var entity: String
    var parameters: JSONValue?
}

/// A subscription as the API shows it.
struct SubscriptionReport: Encodable {
    var id: String
    var device: String
    var feed: String
    var entity: String
    var parameters: JSONValue
    var createdAt: Int
    var changedAt: Int

    init(_ subscription: Subscription) {
        id = subscription.id
        device = subscription.device
        feed = subscription.entity.feed
        entity = subscription.entity.id
        parameters = subscription.parameters
        createdAt = subscription.createdAt
        changedAt = subscription.changedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, device, feed, entity, parameters
        case createdAt = "created-at"
        case changedAt = "changed-at"
    }
}
