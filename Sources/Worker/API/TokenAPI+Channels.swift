import Delivery
import Foundation
import Hummingbird
import LiveRelayCore
import Store

/// The broadcast-channel routes (iOS 18):
///
/// | method and path | body | does |
/// |---|---|---|
/// | `GET /v1/activities/{activity}/channel` | | the activity's channel id, for an app that starts the activity itself (`pushType: .channel(id)`); a personal alert's is its entity's channel when its rule file shares one; 404 while it has none |
/// | `PUT /v1/devices/{device}/channel-subscriber` | | the device's app subscribes its activities by channel: in `both` mode it gets the broadcasts, not token pushes |
/// | `DELETE /v1/devices/{device}/channel-subscriber` | | it goes by tokens again |
extension TokenAPI {
    func registerChannelRoutes(on api: RouterGroup<BasicRequestContext>) {
        api.get("activities/:activity/channel") { _, context in
            let activity = try Validate.activity(context.parameters.get("activity"))
            guard let channel = try await openChannel(of: activity) else {
                throw APIError(.notFound, "activity \(activity) has no open channel")
            }
            return try APIServer.jsonResponse(
                ChannelReport(
                    activity: activity.rawValue, channelID: channel.id, storagePolicy: channel.storagePolicy,
                    createdAt: channel.createdAt),
                status: .ok)
        }
        api.put("devices/:device/channel-subscriber") { _, context in
            try await store.setChannelSubscriber(
                device: try Validate.device(context.parameters.get("device")), true, now: now())
            return Response(status: .noContent)
        }
        api.delete("devices/:device/channel-subscriber") { _, context in
            try await store.setChannelSubscriber(
                device: try Validate.device(context.parameters.get("device")), false, now: now())
            return Response(status: .noContent)
        }
    }
}

extension TokenAPI {
    /// The open channel `activity` goes by: its own, or, for a personal alert whose rule file puts an
    /// entity's alerts on one channel, its entity's (``EntityChannel``).
    func openChannel(of activity: ActivityKey) async throws -> ActivityChannel? {
        if let own = try await store.channel(for: activity) { return own.deleteAt == nil ? own : nil }
        guard let record = try await store.activities([activity])[activity], let entity = record.entity,
            record.start?.subscription != nil,
            let shared = try await store.channel(
                for: EntityChannel.key(attributesType: record.attributesType, entity: entity))
        else { return nil }
        return shared.deleteAt == nil ? shared : nil
    }
}

/// `GET /v1/activities/{activity}/channel`.
struct ChannelReport: Encodable {
    var activity: String
    var channelID: String
    var storagePolicy: Int
    var createdAt: Int

    enum CodingKeys: String, CodingKey {
        case activity
        case channelID = "channel-id"
        case storagePolicy = "storage-policy"
        case createdAt = "created-at"
    }
}
