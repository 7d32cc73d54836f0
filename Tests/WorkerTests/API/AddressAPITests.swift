import Foundation
import LiveRelayCore
import LiveRelayTesting
import Store
import Testing

/// The provider address routes as an app backend calls them: what is kept, what is refused and why, and that
/// no address is ever echoed or logged.
@Suite("Token API: provider addresses")
struct AddressAPITests {
    static let fcmToken = "cQz1-rT8:APA91bH" + String(repeating: "x_Y-9", count: 28)
    static let pushToken = String(repeating: "0a", count: 32)
    static let cid = "3f9a0c2b7d1e4f5a6b8c9d0e1f2a3b4c"

    @Test func fcmRegistrationTokensAreStoredRotatedAndRemoved() async throws {
        try await APITestServer.with { api async throws in
            let path = "/v1/devices/iphone-a/providers/fcm"
            #expect(try await api.client.request("PUT", path, body: #"{"token": "\#(Self.fcmToken)"}"#).status == 204)
            #expect(try await api.store.addresses(provider: "fcm").map(\.address) == [Self.fcmToken])

            let rotated = Self.fcmToken.replacingOccurrences(of: "x", with: "z")
            #expect(try await api.client.request("PUT", path, body: #"{"token": "\#(rotated)"}"#).status == 204)
            #expect(try await api.store.addresses(provider: "fcm").map(\.address) == [rotated])

            #expect(try await api.client.request("DELETE", path).status == 204)
            #expect(try await api.store.addresses(provider: "fcm").isEmpty)
        }
    }

    /// A state store that fails (here its file was deleted under the worker) is a 503 with a JSON body that
    /// says so, the cause logged at error level; nothing is answered 204 into a file no one will read.
    @Test func aFailingStoreIsA503WithABody() async throws {
        try await APITestServer.with { api async throws in
            try FileManager.default.removeItem(atPath: api.store.path)
            let answer = try await api.client.request(
                "PUT", "/v1/devices/iphone-a/providers/fcm", body: #"{"token": "\#(Self.fcmToken)"}"#)
            #expect(answer.status == 503)
            #expect(answer.body == #"{"error":"the state store cannot be used now; try again later"}"#)
            #expect(api.logs.all.contains { $0.contains("the state file is gone") })
        }
    }

    @Test func anAddressTheProviderDroppedIsGone() async throws {
        try await APITestServer.with { api async throws in
            try await api.store.dropAddress(Self.fcmToken, provider: "fcm", reason: "UNREGISTERED", now: 0)
            try await api.store.dropAddress(Self.cid, provider: "getui", reason: "target user is invalid", now: 0)
            #expect(
                try await api.client.request(
                    "PUT", "/v1/devices/iphone-a/providers/fcm", body: #"{"token": "\#(Self.fcmToken)"}"#)
                    == (410, #"{"error":"token: was dropped by fcm and is never stored again"}"#))
            #expect(
                try await api.client.request(
                    "PUT", "/v1/devices/iphone-a/providers/getui", body: #"{"cid": "\#(Self.cid)"}"#)
                    == (410, #"{"error":"cid: was dropped by getui and is never stored again"}"#))
            #expect(try await api.store.addresses(provider: "fcm").isEmpty)
            #expect(try await api.store.addresses(provider: "getui").isEmpty)
        }
    }

    @Test func pushwooshTakesAnHWIDOrAPushTokenAndAUser() async throws {
        try await APITestServer.with { api async throws in
            let path = "/v1/devices/iphone-a/providers/pushwoosh"
            #expect(
                try await api.client.request(
                    "PUT", path, body: #"{"hwid": "6F1D2C3B-AAAA-4BBB-8CCC-0123456789AB", "user": "fan@example.com"}"#
                )
                .status == 204)
            #expect(
                try await api.store.addresses(provider: "pushwoosh") == [
                    RegisteredAddress(
                        device: "iphone-a", provider: "pushwoosh", address: "6F1D2C3B-AAAA-4BBB-8CCC-0123456789AB",
                        user: "fan@example.com")
                ])
            // A PUT replaces the whole address: the user is gone with this one.
            #expect(
                try await api.client.request("PUT", path, body: #"{"push-token": "\#(Self.pushToken)"}"#).status == 204)
            #expect(
                try await api.store.addresses(provider: "pushwoosh") == [
                    RegisteredAddress(device: "iphone-a", provider: "pushwoosh", address: Self.pushToken)
                ])
            #expect(try await api.client.request("PUT", path, body: #"{"user": "fan-42"}"#).status == 204)
            #expect(
                try await api.store.addresses(provider: "pushwoosh") == [
                    RegisteredAddress(device: "iphone-a", provider: "pushwoosh", address: nil, user: "fan-42")
                ])
        }
    }

    /// Each refusal names the field, says what was expected, and stores nothing.
    @Test(arguments: [
        ("fcm", #"{}"#, 400, "token: required (the FCM registration token)"),
        (
            "fcm", #"{"token": "short"}"#, 400,
            "token: expected an FCM registration token (32 to 1024 letters, digits, '-', '_' or ':'); got 5 characters"
        ),
        (
            "fcm", #"{"token": "\#(String(repeating: "a", count: 40)) "}"#, 400,
            "token: expected an FCM registration token (32 to 1024 letters, digits, '-', '_' or ':'); got 41 characters"
        ),
        ("fcm", #"{"token": 42}"#, 400, "token: expected a string, found integer"),
        ("fcm", #"{"cid": "\#(AddressAPITests.cid)"}"#, 400, "cid: not a field of fcm addresses (expected token)"),
        ("fcm", #"["token"]"#, 400, "body: expected an object with token"),
        ("pushwoosh", #"{}"#, 400, "hwid, push-token or user: required (give at least one)"),
        (
            "pushwoosh", #"{"hwid": "abc", "push-token": "\#(AddressAPITests.pushToken)"}"#, 400,
            "hwid, push-token: give one of them, not both"
        ),
        (
            "pushwoosh", #"{"push-token": "\#(AddressAPITests.pushToken.uppercased())"}"#, 400,
            "push-token: expected lower-case hex digits only"
        ),
        (
            "pushwoosh", #"{"hwid": "has space"}"#, 400,
            "hwid: expected 1 to 128 letters, digits, '.', '_', ':' or '-'; got 9 characters"
        ),
        ("pushwoosh", #"{"user": ""}"#, 400, "user: expected 1 to 256 characters without control characters; got 0"),
        (
            "pushwoosh", #"{"token": "\#(AddressAPITests.pushToken)"}"#, 400,
            "token: not a field of pushwoosh addresses (expected hwid, push-token, user)"
        ),
        (
            "getui", #"{"cid": "3f9a0c2b7d1e4f5a6b8c9d0e1f2a3b4"}"#, 400,
            "cid: expected the 32 hex digits of a Getui cid; got 31 characters"
        ),
        (
            "getui", #"{"cid": "3f9a0c2b7d1e4f5a6b8c9d0e1f2a3b4g"}"#, 400,
            "cid: expected the 32 hex digits of a Getui cid; got 32 characters"
        ),
        (
            "apns", #"{"token": "\#(AddressAPITests.pushToken)"}"#, 404,
            "provider: \"apns\" has no addresses: expected fcm, pushwoosh or getui (APNs tokens go to /push-to-start/ and /tokens/)"
        ),
    ])
    func refusedDeviceAddresses(provider: String, body: String, status: Int, error: String) async throws {
        try await APITestServer.with { api async throws in
            let answer = try await api.client.request("PUT", "/v1/devices/iphone-a/providers/\(provider)", body: body)
            #expect(answer.status == status)
            let decoded = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: String]
            #expect(decoded == ["error": error])
            for name in ["fcm", "pushwoosh", "getui"] {
                #expect(try await api.store.addresses(provider: name).isEmpty)
            }
        }
    }

    @Test func activityIdsOfPushwooshAndGetui() async throws {
        try await APITestServer.with { api async throws in
            let pushwoosh = "/v1/activities/match-760499/providers/pushwoosh"
            let getui = "/v1/activities/match-760499/providers/getui"
            #expect(
                try await api.client.request("PUT", pushwoosh, body: #"{"live-activity-id": "pw-7d1e"}"#).status == 204)
            #expect(try await api.client.request("PUT", getui, body: #"{"la-id": "myLA"}"#).status == 204)
            #expect(try await api.store.activityAddress(activity: "match-760499", provider: "pushwoosh") == "pw-7d1e")
            #expect(try await api.store.activityAddress(activity: "match-760499", provider: "getui") == "myLA")

            #expect(
                try await api.client.request("PUT", pushwoosh, body: #"{"la-id": "myLA"}"#)
                    == (400, #"{"error":"la-id: not a field of pushwoosh addresses (expected live-activity-id)"}"#))
            #expect(
                try await api.client.request("PUT", getui, body: #"{}"#) == (400, #"{"error":"la-id: required"}"#))
            #expect(
                try await api.client.request("PUT", getui, body: #"{"la-id": "my LA"}"#)
                    == (
                        400,
                        #"{"error":"la-id: expected 1 to 128 letters, digits, '.', '_', ':' or '-'; got 5 characters"}"#
                    ))
            #expect(
                try await api.client.request(
                    "PUT", "/v1/activities/match-760499/providers/fcm", body: #"{"token": "x"}"#
                )
                .status == 404)
            #expect(try await api.store.activityAddress(activity: "match-760499", provider: "getui") == "myLA")

            #expect(try await api.client.request("DELETE", getui).status == 204)
            #expect(try await api.store.activityAddress(activity: "match-760499", provider: "getui") == nil)
            #expect(try await api.store.activityAddress(activity: "match-760499", provider: "pushwoosh") == "pw-7d1e")
        }
    }

    @Test func addressesNeedTheBearerTokenAndAreNeverEchoedNorLogged() async throws {
        try await APITestServer.with { api async throws in
            let path = "/v1/devices/iphone-a/providers/getui"
            #expect(
                try await api.client.request("PUT", path, body: #"{"cid": "\#(Self.cid)"}"#, bearer: nil)
                    == (401, #"{"error":"missing bearer token"}"#))
            #expect(
                try await api.client.request("PUT", path, body: #"{"cid": "\#(Self.cid)"}"#, bearer: "guess").status
                    == 401)
            #expect(try await api.store.addresses(provider: "getui").isEmpty)

            let almost = String(Self.fcmToken.dropLast()) + "!"
            let refused = try await api.client.request(
                "PUT", "/v1/devices/iphone-a/providers/fcm", body: #"{"token": "\#(almost)"}"#)
            #expect(refused.status == 400)
            #expect(!refused.body.contains(String(almost.prefix(12))))
            #expect(try await api.client.request("PUT", path, body: #"{"cid": "\#(Self.cid)"}"#).status == 204)
            #expect(
                try await api.client.request(
                    "PUT", "/v1/devices/bad%20device/providers/getui", body: #"{"cid": "\#(Self.cid)"}"#
                )
                .status == 400)
            let logged = api.logs.all.joined(separator: "\n")
            for secret in [Self.cid, String(almost.prefix(12)), APITestServer.bearer] {
                #expect(!logged.contains(secret))
            }
        }
    }
}
