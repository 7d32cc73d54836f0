import Delivery
import Foundation
import Hummingbird
import LiveRelayCore
import Logging
import Synchronization

/// A refused API request: its status and a JSON body `{"error": "…"}` that says what was wrong.
struct APIError: Error, HTTPResponseError {
    var status: HTTPResponse.Status
    var message: String
    /// Answered with `Connection: close`.
    var closesConnection = false
    /// More headers of the answer (`Allow` on a 405, `WWW-Authenticate` on a 401).
    var extraHeaders: HTTPFields = [:]

    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }

    var headers: HTTPFields {
        var headers: HTTPFields =
            closesConnection
            ? [.contentType: "application/json", .connection: "close"] : [.contentType: "application/json"]
        headers.append(contentsOf: extraHeaders)
        return headers
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try APIServer.jsonResponse(["error": message], status: status)
        if closesConnection { response.headers[.connection] = "close" }
        response.headers.append(contentsOf: extraHeaders)
        return response
    }

    /// 405: the path has other methods, named in `Allow`.
    static func methodNotAllowed(_ method: HTTPRequest.Method, allowed: [HTTPRequest.Method]) -> APIError {
        let list = allowed.map(\.rawValue).joined(separator: ", ")
        var error = APIError(.methodNotAllowed, "\(method.rawValue) is not allowed here; this path takes \(list)")
        error.extraHeaders = [.allow: list]
        return error
    }

    /// 401 with the challenge RFC 6750 describes (`error="invalid_token"` when a token was given).
    static func unauthorized(_ message: String, error: String? = nil) -> APIError {
        var refusal = APIError(.unauthorized, message)
        refusal.extraHeaders = [
            .wwwAuthenticate: "Bearer realm=\"liverelay\"" + (error.map { ", error=\"\($0)\"" } ?? "")
        ]
        return refusal
    }
}

/// Refuses requests without the configured bearer token (401 with `WWW-Authenticate`), comparing in constant
/// time; the scheme is case-insensitive (`bearer` as `Bearer`, RFC 7235). Refuses every request when no token
/// is configured (403), so registration is never open by accident. Each refusal is counted
/// (`liverelay_api_auth_failures_total`) and logged, repeated ones aggregated.
struct BearerAuthMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: Secret?
    let failures: AuthFailures

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard let token else {
            throw APIError(.forbidden, "token registration is off: set api.bearer-token in the config")
        }
        guard let header = request.headers[.authorization] else {
            failures.note("missing", context: context)
            throw APIError.unauthorized("missing bearer token")
        }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            failures.note("scheme", context: context)
            throw APIError.unauthorized("the Authorization scheme must be Bearer", error: "invalid_request")
        }
        let given = parts[1].trimmingCharacters(in: .whitespaces)
        guard BearerAuthMiddleware.constantTimeEqual(Array(given.utf8), Array(token.value.utf8)) else {
            failures.note("wrong", context: context)
            throw APIError.unauthorized("wrong bearer token", error: "invalid_token")
        }
        return try await next(request, context)
    }

    /// Compares without an early exit, so the time taken does not reveal how much of a guess was right.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<max(a.count, b.count) {
            difference |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0)
        }
        return difference == 0
    }
}

/// Checks path and body values before anything is stored.
enum Validate {
    /// `inBody`: a JSON field, taken as written (only a path step is percent-decoded).
    static func device(_ raw: String?, inBody: Bool = false) throws -> String {
        try identifier(raw, field: "device", also: "._:-", upTo: 128, decoding: !inBody)
    }

    static func attributesType(_ raw: String?) throws -> String {
        try identifier(raw, field: "attributes type", also: "_", upTo: 128, typeName: true)
    }

    static func activity(_ raw: String?) throws -> ActivityKey {
        ActivityKey(try identifier(raw, field: "activity", also: "._:-", upTo: 200))
    }

    static func subscription(_ raw: String?) throws -> String {
        try identifier(raw, field: "subscription", also: "._:-", upTo: 200)
    }

    static func entity(_ raw: String?, inBody: Bool = false) throws -> String {
        try identifier(raw, field: "entity", also: "._:@-", upTo: 128, decoding: !inBody)
    }

    /// Lower-case hex, an even number of digits between 64 (device tokens) and 512; Live Activity tokens are
    /// longer than device tokens, so no single length is assumed.
    static func token(_ raw: String, field: String = "token") throws -> String {
        guard raw.count % 2 == 0, (64...512).contains(raw.count) else {
            throw APIError(
                .badRequest, "\(field): expected 64 to 512 hex digits, an even number; got \(raw.count) characters")
        }
        guard raw.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            throw APIError(.badRequest, "\(field): expected lower-case hex digits only")
        }
        return raw
    }

    /// The environment a body names, or `default` (the provider's) when it names none.
    static func environment(_ raw: String?, default fallback: PushEnvironment) throws -> PushEnvironment {
        guard let raw else { return fallback }
        switch raw {
        case "production": return .production
        case "sandbox": return .sandbox
        default: throw APIError(.badRequest, "environment: expected \"production\" or \"sandbox\"")
        }
    }

    /// An id of ASCII letters, digits and the characters of `also`, 1 to `upTo` of them (`typeName`: a Swift
    /// type name, which starts with a letter or `_`), checked byte by byte: any other byte refuses it, a line
    /// break at the end too. A path step is percent-decoded first (`a%3Ab` is `a:b`, as clients that escape
    /// `:` and `@` send it); a malformed escape is refused.
    private static func identifier(
        _ step: String?, field: String, also: StaticString, upTo limit: Int, typeName: Bool = false,
        decoding: Bool = true
    ) throws -> String {
        let raw = step.map { decoding && $0.contains("%") ? $0.removingPercentEncoding : $0 } ?? nil
        guard let raw, fits(raw, also: also, upTo: limit, typeName: typeName) else {
            throw APIError(.badRequest, "\(field): \"\((step ?? "").prefix(64))\" is not a valid \(field) id")
        }
        // `.` and `..` are path steps, not ids: a proxy or a log reader would resolve them.
        guard !raw.allSatisfy({ $0 == "." }) else {
            throw APIError(.badRequest, "\(field): \"\(raw.prefix(64))\" is not a valid \(field) id (dots only)")
        }
        return raw
    }

    private static func fits(_ raw: String, also: StaticString, upTo limit: Int, typeName: Bool) -> Bool {
        let bytes = raw.utf8
        guard (1...limit).contains(bytes.count) else { return false }
        let extra = UnsafeBufferPointer(start: also.utf8Start, count: also.utf8CodeUnitCount)
        var first = true
        for byte in bytes {
            let letter = (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            let digit = (0x30...0x39).contains(byte)
            guard letter || (digit && !(typeName && first)) || extra.contains(byte) else { return false }
            first = false
        }
        return true
    }
}

/// Counts refused credentials and logs them, the first of a kind at once and then at most one line every
/// ten seconds with how many more came (a client retrying a wrong token in a loop writes a few lines). The
/// token given is never logged.
final class AuthFailures: Sendable {
    private let metrics: LiveRelayMetrics
    private let logger: Logger
    private let log = Mutex(RepeatedLog<ContinuousClock.Instant>(window: .seconds(10)))

    init(metrics: LiveRelayMetrics, logger: Logger) {
        self.metrics = metrics
        self.logger = logger
    }

    func note(_ reason: String, context: some RequestContext) {
        metrics.authFailure(reason: reason)
        guard let earlier = log.withLock({ $0.record(reason, now: .now) }) else { return }
        logger.warning(
            "token API request refused: bad credentials",
            metadata: [
                "reason": "\(reason)", "route": "\(context.endpointPath ?? "?")", "refused-since-last": "\(earlier)",
            ])
    }
}
