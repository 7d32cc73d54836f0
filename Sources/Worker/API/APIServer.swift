import Foundation
public import Hummingbird
import LiveRelayCore
public import Logging
public import Prometheus

/// The worker's small HTTP API: `/healthz` (feed and provider health), `/metrics` (Prometheus), and the token
/// registration routes of ``TokenAPI`` under `/v1`.
public enum APIServer {
    /// The application to run in the service group, listening on `host:port`.
    public static func application(
        host: String, port: Int, health: HealthBoard, registry: PrometheusCollectorRegistry?, tokens: TokenAPI,
        logger: Logger, onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router()
        tokens.register(on: router)
        router.get("healthz") { _, _ -> Response in
            let snapshot = health.snapshot
            return try jsonResponse(snapshot, status: snapshot.healthy ? .ok : .serviceUnavailable)
        }
        router.get("metrics") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: registry?.emitToBuffer() ?? [])))
        }
        return Application(
            router: router, configuration: .init(address: .hostname(host, port: port), serverName: "liverelay"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) }, logger: logger)
    }

    /// A JSON response (sorted keys, so output is stable).
    static func jsonResponse(_ value: some Encodable, status: HTTPResponse.Status) throws -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: try value.canonicalJSON())))
    }
}
