import Hummingbird

/// Counts every API request by route pattern (`/v1/devices/{device}/push-to-start/{type}`, never the ids in
/// it: ids are not labels), method and status, and times it. A path no route has is `unmatched`.
struct APIMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: LiveRelayMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let started = ContinuousClock.now
        let status: HTTPResponse.Status
        do {
            let response = try await next(request, context)
            status = response.status
            record(request, context, status, started)
            return response
        } catch let error as any HTTPResponseError {
            status = error.status
            record(request, context, status, started)
            throw error
        } catch {
            record(request, context, .internalServerError, started)
            throw error
        }
    }

    private func record(
        _ request: Request, _ context: Context, _ status: HTTPResponse.Status, _ started: ContinuousClock.Instant
    ) {
        let route = context.endpointPath.flatMap { $0 == "NotFound" ? nil : $0 } ?? "unmatched"
        metrics.apiRequest(
            route: route, method: request.method.rawValue, status: status.code, duration: ContinuousClock.now - started)
    }
}
