import Foundation
public import HTTP
import LiveRelayCore

/// Apple's channel-management API for broadcast Live Activities (iOS 18): create, read, list and delete an
/// app's channels, over HTTP/2 through the transport, with the provider token APNs pushes use.
///
/// Every answer other than the documented success is a ``ChannelFailure`` that says what the caller can do
/// about it (``ChannelFailure/Kind``): the channel is gone, the 10,000-channel limit is reached, broadcast or
/// the credentials are misconfigured, try again later, or this request was wrong. The provider token never
/// appears in a failure.
public struct APNsChannelClient: Sendable {
    /// Where channel-management requests go. Apple's hosts differ from the push hosts, and so do the ports.
    public struct Endpoint: Sendable, Hashable {
        /// The base URL, without a trailing slash.
        public var url: String

        /// An endpoint; a trailing slash of `url` is dropped.
        public init(url: String) {
            var url = url
            while url.hasSuffix("/") { url.removeLast() }
            self.url = url
        }

        /// `api-manage-broadcast.sandbox.push.apple.com:2195`, for development builds.
        public static let sandbox = Endpoint(url: "https://api-manage-broadcast.sandbox.push.apple.com:2195")
        /// `api-manage-broadcast.push.apple.com:2196`, for TestFlight and App Store builds.
        public static let production = Endpoint(url: "https://api-manage-broadcast.push.apple.com:2196")
    }

    /// How long APNs keeps a channel's messages: `noStorage` (0) keeps none and allows a higher publishing
    /// rate (scores); `mostRecent` (1) keeps the latest for up to 8 hours. Fixed when the channel is made.
    public enum StoragePolicy: Int, Sendable, Hashable, CaseIterable {
        case noStorage = 0
        case mostRecent = 1
    }

    public let endpoint: Endpoint
    /// The app's bundle id, without a push-type suffix.
    public let bundleID: String
    private let transport: any HTTPTransport
    private let authorization: @Sendable () async throws -> String
    private let timeout: Duration

    /// - Parameter authorization: the `authorization` header's value (`bearer <provider token>`), asked for
    ///   each request (``APNsProvider/authorization()`` shares the push provider's token).
    public init(
        endpoint: Endpoint, bundleID: String, transport: any HTTPTransport, timeout: Duration = .seconds(10),
        authorization: @escaping @Sendable () async throws -> String
    ) {
        self.endpoint = endpoint
        self.bundleID = bundleID
        self.transport = transport
        self.timeout = timeout
        self.authorization = authorization
    }

    /// Creates a Live Activity channel; its id, as APNs chose it.
    public func create(_ policy: StoragePolicy) async throws(ChannelFailure) -> String {
        let body = Data(#"{"message-storage-policy":\#(policy.rawValue),"push-type":"LiveActivity"}"#.utf8)
        let response = try await send("POST", "channels", body: body, expecting: 201, operation: "create")
        guard let id = response.header("apns-channel-id"), !id.isEmpty else {
            throw ChannelFailure(
                .rejected, operation: "create", status: response.status, reason: nil,
                message: "APNs answered 201 without an apns-channel-id")
        }
        return id
    }

    /// A channel's storage policy.
    public func read(_ id: String) async throws(ChannelFailure) -> StoragePolicy {
        let response = try await send("GET", "channels", channel: id, expecting: 200, operation: "read")
        guard case .object(let object)? = try? JSONParser.parse(response.body),
            case .int(let raw)? = object["message-storage-policy"], let policy = StoragePolicy(rawValue: raw)
        else {
            throw ChannelFailure(
                .rejected, operation: "read", status: response.status, reason: nil,
                message: "APNs answered without a message-storage-policy of 0 or 1")
        }
        return policy
    }

    /// Every channel the app has in this environment.
    public func list() async throws(ChannelFailure) -> [String] {
        let response = try await send("GET", "all-channels", expecting: 200, operation: "list")
        guard case .object(let object)? = try? JSONParser.parse(response.body),
            case .array(let ids)? = object["channels"]
        else {
            throw ChannelFailure(
                .rejected, operation: "list", status: response.status, reason: nil,
                message: "APNs answered without a channels list")
        }
        return ids.compactMap(\.stringValue)
    }

    /// Deletes a channel. Messages APNs stored before may still be delivered.
    public func delete(_ id: String) async throws(ChannelFailure) {
        _ = try await send("DELETE", "channels", channel: id, expecting: 204, operation: "delete")
    }

    private func send(
        _ method: String, _ resource: String, channel: String? = nil, body: Data? = nil, expecting: Int,
        operation: String
    ) async throws(ChannelFailure) -> HTTPResponse {
        let bearer: String
        do {
            bearer = try await authorization()
        } catch {
            throw ChannelFailure(.configuration, operation: operation, status: nil, reason: nil, message: "\(error)")
        }
        var headers = [HTTPHeader("authorization", bearer)]
        if let channel { headers.append(HTTPHeader("apns-channel-id", channel)) }
        if body != nil { headers.append(HTTPHeader("content-type", "application/json")) }
        let response: HTTPResponse
        do {
            response = try await transport.send(
                HTTPRequest(
                    method: method, url: "\(endpoint.url)/1/apps/\(bundleID)/\(resource)", headers: headers, body: body,
                    timeout: timeout, maxResponseBytes: 4 << 20))
        } catch {
            throw ChannelFailure(
                .retry, operation: operation, status: nil, reason: nil, message: "APNs did not answer: \(error)")
        }
        guard response.status == expecting else {
            let reason = (try? JSONParser.parse(response.body))?["reason"]?.stringValue
            throw ChannelFailure.classify(
                operation: operation, status: response.status, reason: reason,
                retryAfter: response.retryAfterSeconds)
        }
        return response
    }
}

/// A channel-management request APNs did not grant, and what to do about it.
public struct ChannelFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What the caller can do.
    public enum Kind: String, Sendable, Hashable {
        /// `ChannelNotRegistered`: the channel does not exist (deleted, or made in the other environment):
        /// make a new one or fall back to tokens.
        case channelGone
        /// `CannotCreateChannelConfig`: the app has 10,000 channels in this environment: delete old ones, or
        /// fall back to tokens.
        case limitReached
        /// Broadcast is not enabled for the app (`FeatureNotEnabled`), or the key, team, bundle id or host
        /// is wrong: nothing works until the operator fixes it.
        case configuration
        /// 429 and 5xx, or no answer: try again later.
        case retry
        /// Only this request was wrong.
        case rejected
    }

    public var kind: Kind
    /// `create`, `read`, `list` or `delete`.
    public var operation: String
    public var status: Int?
    /// APNs' reason (`ChannelNotRegistered`, …).
    public var reason: String?
    public var message: String
    /// The answer's `Retry-After`, in seconds.
    public var retryAfter: Int?

    /// A failure.
    public init(
        _ kind: Kind, operation: String, status: Int?, reason: String?, message: String, retryAfter: Int? = nil
    ) {
        self.kind = kind
        self.operation = operation
        self.status = status
        self.reason = reason
        self.message = message
        self.retryAfter = retryAfter
    }

    /// What an answer other than the expected success means. Pure.
    public static func classify(operation: String, status: Int, reason: String?, retryAfter: Int? = nil)
        -> ChannelFailure
    {
        let kind: Kind =
            switch (status, reason) {
            case (_, "ChannelNotRegistered"?): .channelGone
            case (_, "CannotCreateChannelConfig"?): .limitReached
            case (_, "FeatureNotEnabled"?), (_, "TopicDisallowed"?), (_, "BadPath"?), (403, _), (404, _): .configuration
            case (429, _), (500...599, _): .retry
            default: .rejected
            }
        let advice =
            switch kind {
            case .channelGone: ": the channel no longer exists in this environment"
            case .limitReached: ": the app has the most channels APNs allows (10,000 per environment)"
            case .configuration where reason == "FeatureNotEnabled":
                ": broadcast push is not enabled for the app's App ID (Apple developer portal)"
            default: ""
            }
        return ChannelFailure(
            kind, operation: operation, status: status, reason: reason,
            message: "APNs answered \(reason ?? "no reason") (\(status))\(advice)", retryAfter: retryAfter)
    }

    /// `channel create failed (limitReached): APNs answered CannotCreateChannelConfig (400): …`.
    public var description: String { "channel \(operation) failed (\(kind.rawValue)): \(message)" }
}
