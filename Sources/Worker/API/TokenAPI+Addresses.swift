import Hummingbird
import LiveRelayCore
import Store

/// The addresses of FCM, Pushwoosh and Getui, registered as the APNs tokens are:
///
/// | method and path | body | does |
/// |---|---|---|
/// | `PUT /v1/devices/{device}/providers/fcm` | `{"token"}` | stores or rotates the install's FCM registration token |
/// | `PUT /v1/devices/{device}/providers/pushwoosh` | `{"hwid"}` or `{"push-token"}`, and/or `{"user"}` | the install's Pushwoosh HWID or push token, and its user id |
/// | `PUT /v1/devices/{device}/providers/getui` | `{"cid"}` | the install's Getui `cid` |
/// | `DELETE /v1/devices/{device}/providers/{provider}` | | removes the device's address at the provider |
/// | `PUT /v1/activities/{activity}/providers/pushwoosh` | `{"live-activity-id"}` | the activity's Pushwoosh `live_activity_id` |
/// | `PUT /v1/activities/{activity}/providers/getui` | `{"la-id"}` | the activity's Getui `laId` |
/// | `DELETE /v1/activities/{activity}/providers/{provider}` | | removes it: the activity key is used again |
///
/// A `PUT` replaces what the device (or activity) had at the provider. Address values are never logged nor
/// echoed in errors: an error names the field and what was expected. An address the provider declared dead
/// (FCM `UNREGISTERED`, Getui invalid target) is refused with 410 Gone, as dropped APNs tokens are.
extension TokenAPI {
    func registerAddressRoutes(on api: RouterGroup<BasicRequestContext>) {
        api.put("devices/:device/providers/:provider") { request, context in
            let device = try Validate.device(context.parameters.get("device"))
            let provider = try Validate.addressProvider(context.parameters.get("provider"))
            let body = try await json(request)
            let record = try Validate.deviceAddress(
                decode(DeviceAddressBody.self, from: try Validate.fields(of: body, provider.deviceFields, provider)),
                device: device, provider: provider)
            guard try await store.registerAddress(record, now: now()) else {
                throw APIError(
                    .gone, "\(provider.addressField): was dropped by \(provider.name) and is never stored again")
            }
            return Response(status: .noContent)
        }
        api.delete("devices/:device/providers/:provider") { _, context in
            try await store.removeAddress(
                device: try Validate.device(context.parameters.get("device")),
                provider: try Validate.addressProvider(context.parameters.get("provider")).name)
            return Response(status: .noContent)
        }
        api.put("activities/:activity/providers/:provider") { request, context in
            let activity = try Validate.activity(context.parameters.get("activity"))
            let provider = try Validate.activityAddressProvider(context.parameters.get("provider"))
            let body = try decode(
                ActivityAddressBody.self,
                from: try Validate.fields(of: try await json(request), provider.activityFields, provider))
            guard let raw = body.liveActivityID ?? body.laID else {
                throw APIError(.badRequest, "\(provider.activityFields[0]): required")
            }
            let id = try Validate.activityAddress(raw, field: provider.activityFields[0])
            try await store.registerActivityAddress(activity: activity, provider: provider.name, address: id)
            return Response(status: .noContent)
        }
        api.delete("activities/:activity/providers/:provider") { _, context in
            try await store.removeActivityAddress(
                activity: try Validate.activity(context.parameters.get("activity")),
                provider: try Validate.activityAddressProvider(context.parameters.get("provider")).name)
            return Response(status: .noContent)
        }
    }
}

/// A provider whose addresses the registry keeps, and the body fields its routes take.
struct AddressProvider: Sendable, Equatable {
    /// `fcm`, `pushwoosh` or `getui`: the provider type the registry keys addresses by.
    var name: String
    /// The fields of a device's address.
    var deviceFields: [String]
    /// The field naming the address a dropped check applies to.
    var addressField: String
    /// The fields of an activity's address; empty when the provider has none (FCM uses the APNs tokens).
    var activityFields: [String]

    static let fcm = AddressProvider(name: "fcm", deviceFields: ["token"], addressField: "token", activityFields: [])
    static let pushwoosh = AddressProvider(
        name: "pushwoosh", deviceFields: ["hwid", "push-token", "user"], addressField: "hwid or push-token",
        activityFields: ["live-activity-id"])
    static let getui = AddressProvider(
        name: "getui", deviceFields: ["cid"], addressField: "cid", activityFields: ["la-id"])
    static let all = [fcm, pushwoosh, getui]
}

/// The body of `PUT /v1/devices/{device}/providers/{provider}`; which fields apply depends on the provider.
struct DeviceAddressBody: Decodable {
    var token: String?
    var hwid: String?
    var pushToken: String?
    var user: String?
    var cid: String?

    enum CodingKeys: String, CodingKey {
        case token, hwid, user, cid
        case pushToken = "push-token"
    }
}

/// The body of `PUT /v1/activities/{activity}/providers/{provider}`.
struct ActivityAddressBody: Decodable {
    var liveActivityID: String?
    var laID: String?

    enum CodingKeys: String, CodingKey {
        case liveActivityID = "live-activity-id"
        case laID = "la-id"
    }
}
