import Foundation
public import LiveRelayCore

/// Prints each push as the exact APNs request it stands for, and delivers nothing. The default provider: it
/// needs no credentials and no network, so a new user sees what LiveRelay would send.
public struct ConsoleProvider: SingleTargetProvider {
    /// Every APNs token (or a placeholder when none is registered), one request at a time, so the printed
    /// requests follow the release order.
    public let traits = ProviderTraits(
        kind: .console, addressing: .apnsTokens(environment: nil), maxConcurrentDeliveries: 1,
        deliversWithoutTargets: true)
    private let encoder: APNsRequestEncoder
    private let write: @Sendable (String) -> Void
    /// Broadcast channels, printed as the requests they stand for; `nil`: tokens only.
    public let channels: BroadcastChannels?

    /// - Parameters:
    ///   - write: receives each printed request (standard output by default).
    ///   - channels: the `channels` settings (storage policy, pace, deletion), for activities in channel or
    ///     both mode; the channel-management requests are printed too.
    public init(
        encoder: APNsRequestEncoder, write: @escaping @Sendable (String) -> Void = { print($0) },
        channels: APNsProvider.Broadcast? = nil
    ) {
        self.encoder = encoder
        self.write = write
        self.channels = channels.map {
            BroadcastChannels(
                client: ConsoleChannels(bundleID: encoder.bundleID, write: write), storagePolicy: $0.storagePolicy,
                deleteAfter: $0.deleteAfter, maxBroadcasts: $0.maxBroadcasts, window: $0.window)
        }
    }

    public func deliver(_ push: LiveActivityPush, to target: PushTarget) async -> DeliveryOutcome {
        if target.kind == .channel {
            guard let channel = target.channel, let channels else {
                return .rejected(reason: "a broadcast, but the console has no channels configured")
            }
            let body: Data
            do {
                body = try encoder.broadcastBody(for: push)
            } catch {
                return .rejected(reason: error.description)
            }
            write(
                ConsoleProvider.render(
                    encoder.broadcastRequest(
                        for: push, channel: channel,
                        storesMessages: (target.channelPolicy ?? channels.storagePolicy.rawValue) == 1, body: body))
            )
            return .delivered
        }
        var push = push
        if push.event == .start, let channel = target.channel { push.inputPushChannel = channel }
        let body: Data
        do {
            body = try encoder.body(for: push)
        } catch {
            return .rejected(reason: error.description)
        }
        write(
            ConsoleProvider.render(
                encoder.request(for: push, token: target.token ?? "<\(target.kind.rawValue) token>", body: body)))
        return .delivered
    }

    /// The request as HTTP/2 pseudo-headers and headers, a blank line, and the body.
    public static func render(_ request: APNsRequest) -> String {
        var lines = [":method: \(request.method)", ":path: \(request.path)"]
        lines += request.headers.map { "\($0.name): \($0.value)" }
        lines.append("")
        lines.append(String(decoding: request.body, as: UTF8.self))
        return lines.joined(separator: "\n")
    }
}
