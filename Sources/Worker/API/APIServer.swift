import Foundation
public import Hummingbird
import LiveRelayCore
public import Logging
public import Prometheus
import Store

/// The worker's small HTTP API: the probes (`/livez`, `/readyz`, `/healthz`), `/metrics` (Prometheus),
/// `/openapi.json` (the API's description), and the token registration routes of ``TokenAPI`` under `/v1`.
/// Every `GET` also answers `HEAD`; a path that exists with other methods answers 405 with `Allow`.
public enum APIServer {
    /// The application to run in the service group, listening on `host:port`. `ready` says why the worker
    /// is not ready (the store does not answer), or `nil` when it is.
    public static func application(
        host: String, port: Int, health: HealthBoard, registry: PrometheusCollectorRegistry?, tokens: TokenAPI,
        limits: APIConnectionLimits, idleTimeout: Int, logger: Logger,
        ready: @escaping @Sendable () async -> String? = { nil },
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let process = ProcessMetrics(metrics: tokens.metrics)
        let router = router(tokens, logger: logger) { routes in
            routes.get("livez") { _, _ -> Response in try jsonResponse(["status": "ok"], status: .ok) }
            routes.get("readyz") { _, _ -> Response in
                let reason = await ready()
                tokens.metrics.ready(reason == nil)
                guard let reason else { return try jsonResponse(["status": "ready"], status: .ok) }
                return try jsonResponse(["status": "not ready", "reason": reason], status: .serviceUnavailable)
            }
            routes.get("healthz") { _, _ -> Response in
                let snapshot = health.snapshot
                return try jsonResponse(snapshot, status: snapshot.healthy ? .ok : .serviceUnavailable)
            }
            routes.get("metrics") { _, _ -> Response in
                process.sample()
                return Response(
                    status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: registry?.emitToBuffer() ?? [])))
            }
            routes.get("openapi.json") { _, _ -> Response in
                Response(
                    status: .ok, headers: [.contentType: "application/json"],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: OpenAPIDocument.text)))
            }
        }
        let guardLimits = limits
        return Application(
            router: router,
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: [APIConnectionGuard(guardLimits)],
                    idleTimeout: .seconds(Int64(idleTimeout)))),
            configuration: .init(address: .hostname(host, port: port), serverName: "liverelay"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) }, logger: logger)
    }

    /// A router with the token routes, every error answered with a JSON body.
    public static func tokenRouter(_ tokens: TokenAPI, logger: Logger) -> Router<BasicRequestContext> {
        router(tokens, logger: logger) { _ in }
    }

    /// The token routes and those `more` adds, each request counted, each `GET` answering `HEAD` too, every
    /// error a JSON body, and a method a path does not take a 405 with `Allow`.
    static func router(
        _ tokens: TokenAPI, logger: Logger, _ more: (RecordingRouter<BasicRequestContext>) -> Void
    ) -> Router<BasicRequestContext> {
        let table = RouteTable()
        let router = Router(options: .autoGenerateHeadEndpoints)
        router.add(middleware: APIMetricsMiddleware(metrics: tokens.metrics))
        router.add(middleware: ErrorBodyMiddleware(logger: logger, routes: table))
        let routes = RecordingRouter(base: router, table: table)
        tokens.register(on: routes)
        more(routes)
        return router
    }

    /// A JSON response (sorted keys, so output is stable).
    static func jsonResponse(_ value: some Encodable, status: HTTPResponse.Status) throws -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: try value.compactJSON())))
    }
}

/// Every error answer has a JSON body: a failing state store is a 503 that says so (the cause logged at error
/// level, where the operator looks), anything else unexpected a 500; refusals (``APIError``, Hummingbird's
/// own 4xx) pass as they are.
struct ErrorBodyMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger
    /// The routes, to tell a method a path does not take (405) from a path that does not exist (404).
    let routes: RouteTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        // A CONNECT would make the connection a tunnel: refused, framed, and the connection closed.
        if request.method == .connect {
            var refusal = APIError(.methodNotAllowed, "CONNECT is not served here")
            refusal.closesConnection = true
            throw refusal
        }
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as HTTPError {
            if error.status == .notFound {
                let allowed = routes.methods(for: request.uri.path)
                if !allowed.isEmpty { throw APIError.methodNotAllowed(request.method, allowed: allowed) }
            }
            // Hummingbird's own refusals (no such route, a body over its limit): the same JSON shape.
            throw APIError(error.status, error.body ?? error.status.reasonPhrase.lowercased())
        } catch let error as any HTTPResponseError {
            throw error
        } catch let failure as StoreFailure {
            logger.error(
                "API request failed: the state store",
                metadata: ["error": "\(failure)", "path": "\(request.uri.path.prefix(200))"])
            throw APIError(.serviceUnavailable, "the state store cannot be used now; try again later")
        } catch {
            logger.error(
                "API request failed", metadata: ["error": "\(error)", "path": "\(request.uri.path.prefix(200))"])
            throw APIError(.internalServerError, "internal error")
        }
    }
}
