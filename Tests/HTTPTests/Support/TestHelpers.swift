import Foundation
import HTTP
import LiveRelayTesting
import Testing

/// Starts a loopback server and a transport, runs `body`, and stops both whatever happens.
@discardableResult
func withServer<T>(
    _ mode: LoopbackHTTPServer.Mode = .http1,
    configuration: CurlTransport.Configuration = .init(),
    handler: @escaping LoopbackHTTPServer.Handler,
    _ body: (LoopbackHTTPServer, CurlTransport) async throws -> T
) async throws -> T {
    let server = try await LoopbackHTTPServer.start(mode: mode, handler: handler)
    let transport = try CurlTransport(configuration: configuration)
    do {
        let result = try await body(server, transport)
        transport.shutdown()
        try await server.stop()
        return result
    } catch {
        transport.shutdown()
        try? await server.stop()
        throw error
    }
}

/// Runs `operation`, which must fail with `code`; returns the error for further checks.
@discardableResult
func expectFailure(
    _ code: HTTPError.Code,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ operation: () async throws(HTTPError) -> HTTPResponse
) async -> HTTPError? {
    do {
        let response = try await operation()
        Issue.record("expected \(code), got a response with status \(response.status)", sourceLocation: sourceLocation)
        return nil
    } catch {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    }
}

/// A certificate authority shared by the TLS tests (generating one takes a few milliseconds).
let sharedAuthority: TestCertificateAuthority = {
    do {
        return try TestCertificateAuthority(extraDNSNames: ["api.push.apple.com"])
    } catch {
        fatalError("cannot generate the test certificate authority: \(error)")
    }
}()
