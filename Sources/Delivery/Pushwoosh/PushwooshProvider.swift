import Foundation
public import HTTP
public import LiveRelayCore

/// Delivers Live Activity pushes through Pushwoosh's `startLiveActivity` and `updateLiveActivity` methods.
///
/// A start goes to the devices and users its targets name, up to 1000 of each per notification, or, with a
/// ``Configuration/startFilterCode``, to that segment (one notification whatever the targets); an update
/// or an end goes to the activity's `live_activity_id` (one notification per distinct id), so one request
/// serves every target of a push. Every target of a request gets the request's outcome.
public final class PushwooshProvider: PushProvider {
    /// How the provider reaches Pushwoosh.
    public struct Configuration: Sendable {
        /// The API's base URL, without a trailing slash (`https://api.pushwoosh.com`).
        public var endpoint: String
        /// The Pushwoosh application code.
        public var application: String
        /// The limit for one request.
        public var requestTimeout: Duration
        /// A segment (`filter_code`) every start goes to, instead of the devices and users of its targets.
        public var startFilterCode: String?

        /// Creates a configuration.
        public init(
            endpoint: String = "https://api.pushwoosh.com", application: String,
            requestTimeout: Duration = .seconds(10),
            startFilterCode: String? = nil
        ) {
            var endpoint = endpoint
            while endpoint.hasSuffix("/") { endpoint.removeLast() }
            self.endpoint = endpoint
            self.application = application
            self.requestTimeout = requestTimeout
            self.startFilterCode = startFilterCode
        }
    }

    /// Starts to the subscribed devices and users (or the segment), updates and ends to the activity's
    /// `live_activity_id`; up to 1000 devices or users per notification.
    public var traits: ProviderTraits {
        ProviderTraits(
            kind: .pushwoosh,
            addressing: .activityAddress(
                registry: AddressSchema.pushwoosh.registry, startsToSegment: configuration.startFilterCode != nil),
            maxBatchSize: PushwooshRequest.maximumRecipients)
    }
    /// The configuration the provider was made with.
    public let configuration: Configuration
    private let apiToken: Secret
    private let transport: any HTTPTransport

    /// - Parameter apiToken: the API access token from the Pushwoosh Control Panel.
    public init(configuration: Configuration, apiToken: Secret, transport: any HTTPTransport) {
        self.configuration = configuration
        self.apiToken = apiToken
        self.transport = transport
    }

    /// One request for every target; each target gets its outcome (targets without an address are rejected).
    public func deliver(_ push: LiveActivityPush, to targets: [PushTarget]) async -> [DeliveryOutcome] {
        let liveActivityID = { (target: PushTarget) in target.address.activity ?? push.activity.rawValue }
        var outcomes = [DeliveryOutcome?](repeating: nil, count: targets.count)
        let notifications: [PushwooshRequest.Notification]
        if push.event == .start, let filterCode = configuration.startFilterCode {
            notifications = [
                PushwooshRequest.segmentStartNotification(
                    push, liveActivityID: targets.first.map(liveActivityID) ?? push.activity.rawValue,
                    filterCode: filterCode)
            ]
        } else if push.event == .start {
            var devices: [String] = []
            var users: [String] = []
            for (index, target) in targets.enumerated() {
                if let user = target.address.user {
                    users.append(user)
                } else if let device = target.address.device ?? target.token {
                    devices.append(device)
                } else {
                    outcomes[index] = .rejected(reason: "no Pushwoosh device or user to start the activity on")
                }
            }
            notifications =
                devices.isEmpty && users.isEmpty
                ? []
                : PushwooshRequest.startNotifications(
                    push, liveActivityID: targets.first.map(liveActivityID) ?? push.activity.rawValue,
                    devices: devices, users: users)
        } else {
            var ids: [String] = []
            for target in targets where !ids.contains(liveActivityID(target)) { ids.append(liveActivityID(target)) }
            notifications = ids.map { PushwooshRequest.updateNotification(push, liveActivityID: $0) }
        }
        guard !notifications.isEmpty else { return outcomes.map { $0 ?? .rejected(reason: "nothing to send") } }
        let outcome = await send(push.event, notifications)
        return outcomes.map { $0 ?? outcome }
    }

    private func send(_ event: PushEvent, _ notifications: [PushwooshRequest.Notification]) async -> DeliveryOutcome {
        let body: Data
        do {
            body = try PushwooshRequest(
                request: .init(
                    application: configuration.application, auth: apiToken.value, notifications: notifications)
            ).canonicalJSON()
        } catch {
            return .rejected(reason: "the Pushwoosh request cannot be encoded")
        }
        let response: HTTPResponse
        do {
            response = try await transport.send(
                HTTPRequest(
                    method: "POST", url: configuration.endpoint + PushwooshRequest.path(for: event),
                    headers: [HTTPHeader("content-type", "application/json")], body: body,
                    timeout: configuration.requestTimeout, maxResponseBytes: 64 << 10))
        } catch {
            return .unanswered(error, by: "Pushwoosh")
        }
        let answer = try? JSONDecoder().decode(PushwooshResponse.self, from: response.body)
        guard let action = PushwooshStatus.action(status: response.status, statusCode: answer?.statusCode) else {
            return .delivered
        }
        let text =
            "Pushwoosh answered \(response.status), status_code \(answer.map { String($0.statusCode) } ?? "none")"
        return DeliveryOutcome(action, reason: text, answer: response)
    }
}
