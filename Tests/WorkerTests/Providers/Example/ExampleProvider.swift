import Delivery
import Foundation
import HTTP
import LiveRelayCore

/// Sends each push to each target as `POST /v1/live-activities/{token}` with a bearer API key and the push
/// as JSON (`event`, `timestamp`, `content-state`; a start's `attributes-type`, `attributes` and `alert`; an
/// end's `dismissal-date`).
struct ExampleProvider: SingleTargetProvider {
    let endpoint: String
    let apiKey: Secret
    let timeout: Duration
    let transport: any HTTPTransport

    var traits: ProviderTraits { ProviderTraits(kind: .example, addressing: .apnsTokens(environment: nil)) }

    func deliver(_ push: LiveActivityPush, to target: PushTarget) async -> DeliveryOutcome {
        guard let token = target.token else { return .rejected(reason: "example: a target without a token") }
        var body: [String: JSONValue] = [
            "event": .string(push.event.rawValue), "timestamp": .int(push.timestamp),
            "content-state": push.contentState,
        ]
        if push.event == .start {
            body["attributes-type"] = .string(push.attributesType)
            body["attributes"] = push.attributes ?? .emptyObject
            if let alert = push.alert { body["alert"] = .object(["title": alert.title.map { .string($0) } ?? .null]) }
        }
        if let dismissal = push.dismissalDate { body["dismissal-date"] = .int(dismissal) }
        let response: HTTPResponse
        do {
            response = try await transport.send(
                HTTPRequest(
                    method: "POST", url: endpoint + "/v1/live-activities/" + token,
                    headers: [
                        HTTPHeader("authorization", "Bearer " + apiKey.value),
                        HTTPHeader("content-type", "application/json"),
                    ],
                    body: Data(JSONValue.object(body).jsonString().utf8), timeout: timeout,
                    maxResponseBytes: 16 << 10))
        } catch {
            return .unanswered(error, by: "example")
        }
        guard let action = Self.action(status: response.status) else { return .delivered }
        return DeliveryOutcome(action, reason: "example answered \(response.status)", answer: response)
    }

    /// The service's error table: `nil` for delivered.
    static func action(status: Int) -> DeliveryAction? {
        switch status {
        case 200..<300: nil
        case 401, 403: .configuration
        case 410: .dropToken
        case 429: .throttle
        case 400..<500: .rejectPush
        default: .retry
        }
    }
}
