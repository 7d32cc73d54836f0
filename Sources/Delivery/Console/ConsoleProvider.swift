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

    /// - Parameter write: receives each printed request (standard output by default).
    public init(encoder: APNsRequestEncoder, write: @escaping @Sendable (String) -> Void = { print($0) }) {
        self.encoder = encoder
        self.write = write
    }

    public func deliver(_ push: LiveActivityPush, to target: PushTarget) async -> DeliveryOutcome {
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
