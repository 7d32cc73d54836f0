import Crypto
import Delivery
import Foundation
import HTTP
import LiveRelayTesting
import Testing

/// The fake APNs rejects what Apple rejects: raw requests, each wrong in one way.
@Suite("Fake APNs strictness")
struct FakeAPNsTests {
    typealias Bed = APNsTestbed

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var status: Int
        var reason: String
        var change: @Sendable (inout HTTPRequest, APNsTestbed) throws -> Void
        var testDescription: String { name }
    }

    static let updateBody = #"{"aps":{"content-state":{"s":1},"event":"update","timestamp":1783101700}}"#

    static func base(_ bed: APNsTestbed, path: String = "/3/device/" + Bed.token(1)) throws -> HTTPRequest {
        HTTPRequest(
            method: "POST", url: bed.fake.url + path,
            headers: [
                HTTPHeader("apns-push-type", "liveactivity"),
                HTTPHeader("apns-topic", "com.example.scores.push-type.liveactivity"),
                HTTPHeader("apns-priority", "10"), HTTPHeader("apns-expiration", "0"),
                HTTPHeader("authorization", "bearer " + (try bed.key.token(issuedAt: bed.time.now))),
            ],
            body: Data(updateBody.utf8))
    }

    static func header(_ name: String, _ value: String?) -> @Sendable (inout HTTPRequest, APNsTestbed) -> Void {
        { request, _ in
            request.headers.removeAll { $0.name == name }
            if let value { request.headers.append(HTTPHeader(name, value)) }
        }
    }

    static func body(_ text: String) -> @Sendable (inout HTTPRequest, APNsTestbed) -> Void {
        { request, _ in request.body = Data(text.utf8) }
    }

    static func path(_ token: String) -> @Sendable (inout HTTPRequest, APNsTestbed) -> Void {
        { request, bed in request.url = bed.fake.url + "/3/device/" + token }
    }

    /// A token with the given header and claims and a signature that cannot verify.
    static func jwt(header: String, claims: String) -> @Sendable (inout HTTPRequest, APNsTestbed) -> Void {
        { request, _ in
            let encode = { (text: String) in
                Data(text.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
                    .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            }
            let token = encode(header) + "." + encode(claims) + "." + encode("not a signature")
            request.headers.removeAll { $0.name == "authorization" }
            request.headers.append(HTTPHeader("authorization", "bearer " + token))
        }
    }

    static let cases: [Case] = [
        Case(name: "accepted as is", status: 200, reason: "", change: { _, _ in }),
        Case(
            name: "GET", status: 405, reason: "MethodNotAllowed",
            change: { r, _ in
                r.method = "GET"; r.body = nil
            }),
        Case(
            name: "wrong path", status: 404, reason: "BadPath", change: { r, b in r.url = b.fake.url + "/3/devices/ab" }
        ),
        Case(name: "no token", status: 400, reason: "MissingDeviceToken", change: path("")),
        Case(
            name: "non-hex token", status: 400, reason: "BadDeviceToken",
            change: path(String(repeating: "g", count: 64))),
        Case(
            name: "short token", status: 400, reason: "BadDeviceToken", change: path(String(repeating: "a", count: 62))),
        Case(name: "odd token", status: 400, reason: "BadDeviceToken", change: path(String(repeating: "a", count: 65))),
        Case(name: "64-digit device token", status: 200, reason: "", change: path(String(repeating: "a", count: 64))),
        Case(name: "no topic", status: 400, reason: "MissingTopic", change: header("apns-topic", nil)),
        Case(
            name: "topic without suffix", status: 400, reason: "BadTopic",
            change: header("apns-topic", "com.example.scores")),
        Case(
            name: "another app's topic", status: 400, reason: "TopicDisallowed",
            change: header("apns-topic", "com.other.push-type.liveactivity")),
        Case(name: "no push type", status: 400, reason: "InvalidPushType", change: header("apns-push-type", nil)),
        Case(
            name: "alert push type", status: 400, reason: "InvalidPushType", change: header("apns-push-type", "alert")),
        Case(name: "no priority", status: 400, reason: "BadPriority", change: header("apns-priority", nil)),
        Case(name: "priority 7", status: 400, reason: "BadPriority", change: header("apns-priority", "7")),
        Case(
            name: "bad expiration", status: 400, reason: "BadExpirationDate", change: header("apns-expiration", "soon")),
        Case(name: "bad apns-id", status: 400, reason: "BadMessageId", change: header("apns-id", "not-a-uuid")),
        Case(
            name: "long collapse id", status: 400, reason: "BadCollapseId",
            change: header("apns-collapse-id", String(repeating: "c", count: 65))),
        Case(
            name: "no provider token", status: 403, reason: "MissingProviderToken", change: header("authorization", nil)
        ),
        Case(
            name: "garbage provider token", status: 403, reason: "InvalidProviderToken",
            change: header("authorization", "bearer x.y.z")),
        Case(
            name: "iat as a string", status: 403, reason: "InvalidProviderToken",
            change: jwt(
                header: #"{"alg":"ES256","kid":"ABC123DEFG"}"#, claims: #"{"iss":"DEF123GHIJ","iat":"1783101600"}"#)),
        Case(
            name: "bad signature", status: 403, reason: "InvalidProviderToken",
            change: jwt(
                header: #"{"alg":"ES256","kid":"ABC123DEFG"}"#, claims: #"{"iss":"DEF123GHIJ","iat":1783101600}"#)),
        Case(
            name: "token over an hour old", status: 403, reason: "ExpiredProviderToken",
            change: { r, b in
                r.headers.removeAll { $0.name == "authorization" }
                r.headers.append(
                    HTTPHeader("authorization", "bearer " + (try b.key.token(issuedAt: b.time.now - 3700))))
            }),
        Case(name: "empty body", status: 400, reason: "PayloadEmpty", change: body("")),
        Case(
            name: "4097 bytes", status: 413, reason: "PayloadTooLarge",
            change: body(#"{"aps":{"x":""# + String(repeating: "x", count: 4097 - 16) + #""}}"#)),
        Case(
            name: "start without alert", status: 400, reason: "InvalidLiveActivityPayload",
            change: body(
                #"{"aps":{"attributes":{},"attributes-type":"T","content-state":{},"event":"start","timestamp":1}}"#)),
        Case(
            name: "start without attributes-type", status: 400, reason: "InvalidLiveActivityPayload",
            change: body(
                #"{"aps":{"alert":{"title":"t"},"attributes":{},"content-state":{},"event":"start","timestamp":1}}"#)),
        Case(
            name: "timestamp as text", status: 400, reason: "InvalidLiveActivityPayload",
            change: body(#"{"aps":{"content-state":{},"event":"update","timestamp":"1"}}"#)),
        Case(
            name: "unknown event", status: 400, reason: "InvalidLiveActivityPayload",
            change: body(#"{"aps":{"content-state":{},"event":"pause","timestamp":1}}"#)),
    ]

    @Test(arguments: cases)
    func rejectsWhatAppleRejects(_ check: Case) async throws {
        try await Bed.with { bed in
            var request = try Self.base(bed)
            try check.change(&request, bed)
            let response = try await bed.transport.send(request)
            #expect(response.status == check.status)
            #expect(response.httpVersion == .http2)
            if check.status == 200 {
                #expect(bed.fake.accepted.count == 1)
                #expect(response.header("apns-id") != nil)
            } else {
                let body = try JSONDecoder().decode([String: String].self, from: response.body)
                #expect(body == ["reason": check.reason], "\(bed.fake.rejections.map(\.detail))")
                #expect(bed.fake.accepted.isEmpty)
            }
        }
    }

    @Test func an410CarriesATimestampInMilliseconds() async throws {
        try await Bed.with { bed in
            bed.fake.unregister(Bed.token(1))
            let response = try await bed.transport.send(try Self.base(bed))
            #expect(response.status == 410)
            let body = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
            #expect(body?["reason"] as? String == "Unregistered")
            #expect((body?["timestamp"] as? NSNumber)?.int64Value == Int64(bed.time.now) * 1000)
        }
    }

    @Test func aNewProviderTokenWithin20MinutesIsTooManyUpdates() async throws {
        try await Bed.with { bed in
            #expect(try await bed.transport.send(try Self.base(bed)).status == 200)
            bed.time.advance(by: 10 * 60)
            let response = try await bed.transport.send(try Self.base(bed))
            #expect(response.status == 429)
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"reason":"TooManyProviderTokenUpdates"}"#)
        }
    }
}
