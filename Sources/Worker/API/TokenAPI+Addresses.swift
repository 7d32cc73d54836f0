import Delivery
import Hummingbird
import LiveRelayCore
import Store

/// The addresses of the providers that keep their own (FCM, Pushwoosh, Getui: each declares an
/// ``AddressSchema``), registered as the APNs tokens are:
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
            let schema = try Validate.addressProvider(context.parameters.get("provider"))
            let fields = try Validate.fields(of: try await json(request), schema.deviceFields, schema)
            let record = try Validate.deviceAddress(fields, device: device, schema: schema)
            guard try await store.registerAddress(record, now: now()) else {
                throw APIError(
                    .gone, "\(schema.addressField): was dropped by \(schema.registry) and is never stored again")
            }
            return Response(status: .noContent)
        }
        api.delete("devices/:device/providers/:provider") { _, context in
            try await store.removeAddress(
                device: try Validate.device(context.parameters.get("device")),
                provider: try Validate.addressProvider(context.parameters.get("provider")).registry)
            return Response(status: .noContent)
        }
        api.put("activities/:activity/providers/:provider") { request, context in
            let activity = try Validate.activity(context.parameters.get("activity"))
            let schema = try Validate.activityAddressProvider(context.parameters.get("provider"))
            let field = schema.activityField ?? ""
            let fields = try Validate.fields(of: try await json(request), [field], schema)
            guard let raw = fields[field] else { throw APIError(.badRequest, "\(field): required") }
            let id: String
            do throws(AddressError) {
                id = try schema.activityID(raw)
            } catch {
                throw APIError(.badRequest, error.message)
            }
            try await store.registerActivityAddress(activity: activity, provider: schema.registry, address: id)
            return Response(status: .noContent)
        }
        api.delete("activities/:activity/providers/:provider") { _, context in
            try await store.removeActivityAddress(
                activity: try Validate.activity(context.parameters.get("activity")),
                provider: try Validate.activityAddressProvider(context.parameters.get("provider")).registry)
            return Response(status: .noContent)
        }
    }
}
