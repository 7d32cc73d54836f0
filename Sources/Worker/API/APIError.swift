import Foundation
import Hummingbird
import LiveRelayCore

/// A refused API request: its status and a JSON body `{"error": "…"}` that says what was wrong.
struct APIError: Error, HTTPResponseError {
    var status: HTTPResponse.Status
    var message: String
    /// Answered with `Connection: close`.
    var closesConnection = false

    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }

    var headers: HTTPFields {
        closesConnection
            ? [.contentType: "application/json", .connection: "close"] : [.contentType: "application/json"]
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try APIServer.jsonResponse(["error": message], status: status)
        if closesConnection { response.headers[.connection] = "close" }
        return response
    }
}

/// Refuses requests without the configured bearer token (401), comparing in constant time; refuses every
/// request when no token is configured (403), so registration is never open by accident.
struct BearerAuthMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: Secret?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard let token else {
            throw APIError(.forbidden, "token registration is off: set api.bearer-token in the config")
        }
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer "),
            BearerAuthMiddleware.constantTimeEqual(Array(header.dropFirst(7).utf8), Array(token.value.utf8))
        else {
            throw APIError(.unauthorized, "missing or wrong bearer token")
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
    static func device(_ raw: String?) throws -> String {
        try identifier(raw, field: "device", pattern: #"\A[A-Za-z0-9._:-]{1,128}\z"#)
    }

    static func attributesType(_ raw: String?) throws -> String {
        try identifier(raw, field: "attributes type", pattern: #"\A[A-Za-z_][A-Za-z0-9_]{0,127}\z"#)
    }

    static func activity(_ raw: String?) throws -> ActivityKey {
        ActivityKey(try identifier(raw, field: "activity", pattern: #"\A[A-Za-z0-9._:-]{1,200}\z"#))
    }

    static func entity(_ raw: String?) throws -> String {
        try identifier(raw, field: "entity", pattern: #"\A[A-Za-z0-9._:@-]{1,128}\z"#)
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

    static func environment(_ raw: String?) throws -> PushEnvironment {
        switch raw ?? "production" {
        case "production": return .production
        case "sandbox": return .sandbox
        default: throw APIError(.badRequest, "environment: expected \"production\" or \"sandbox\"")
        }
    }

    /// `pattern` is anchored with `\A` and `\z`: `$` would also match before a final line break, letting `id\n`
    /// through.
    private static func identifier(_ raw: String?, field: String, pattern: String) throws -> String {
        guard let raw, raw.range(of: pattern, options: .regularExpression) != nil else {
            throw APIError(.badRequest, "\(field): \"\((raw ?? "").prefix(64))\" is not a valid \(field) id")
        }
        // `.` and `..` are path steps, not ids: a proxy or a log reader would resolve them.
        guard !raw.allSatisfy({ $0 == "." }) else {
            throw APIError(.badRequest, "\(field): \"\(raw.prefix(64))\" is not a valid \(field) id (dots only)")
        }
        return raw
    }
}
