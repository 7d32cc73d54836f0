import Foundation
import HTTP
import LiveRelayTesting
import Testing

@Suite("CurlTransport over TLS and HTTP/2")
struct CurlTransportTLSTests {
    let trusting = CurlTransport.Configuration(caFile: sharedAuthority.caFile)

    @Test func httpsNegotiatesHTTP2WithTheTestCA() async throws {
        try await withServer(
            .http2TLS(sharedAuthority), configuration: trusting,
            handler: { request in
                .text("hello \(request.httpVersion)")
            }
        ) { server, transport in
            let response = try await transport.send(HTTPRequest(url: server.url("/h2")))
            #expect(response.status == 200)
            #expect(response.httpVersion == .http2)
            #expect(String(decoding: response.body, as: UTF8.self) == "hello HTTP/2")
            #expect(server.requests.first?.httpVersion == "HTTP/2")
        }
    }

    @Test func localhostMatchesTheCertificateToo() async throws {
        try await withServer(.http2TLS(sharedAuthority), configuration: trusting, handler: { _ in .text("ok") }) {
            server, transport in
            let response = try await transport.send(HTTPRequest(url: "https://localhost:\(server.port)/"))
            #expect(response.status == 200)
        }
    }

    @Test func http1OverTLS() async throws {
        try await withServer(.http1TLS(sharedAuthority), configuration: trusting, handler: { _ in .text("ok") }) {
            server, transport in
            let response = try await transport.send(HTTPRequest(url: server.url("/")))
            #expect(response.status == 200)
            #expect(response.httpVersion == .http1_1)
            #expect(server.requests.first?.httpVersion == "HTTP/1.1")
        }
    }

    @Test func concurrentRequestsAreMultiplexedOverFewConnections() async throws {
        try await withServer(
            .http2TLS(sharedAuthority), configuration: trusting,
            handler: { request in
                .text(request.path)
            }
        ) { server, transport in
            let results = await withTaskGroup(of: (Int, Result<HTTPResponse, HTTPError>).self) { group in
                for index in 0..<200 {
                    group.addTask {
                        do throws(HTTPError) {
                            return (
                                index, .success(try await transport.send(HTTPRequest(url: server.url("/n/\(index)"))))
                            )
                        } catch {
                            return (index, .failure(error))
                        }
                    }
                }
                return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
            }
            #expect(results.count == 200)
            for (index, result) in results {
                let response = try result.get()
                #expect(response.status == 200)
                #expect(response.httpVersion == .http2)
                #expect(String(decoding: response.body, as: UTF8.self) == "/n/\(index)")
            }
            #expect(server.requests.count == 200)
            #expect(server.requests.allSatisfy { $0.httpVersion == "HTTP/2" })
            // 100 streams per connection and at most 4 connections per host: not one connection per request.
            #expect(server.connectionCount <= trusting.maxConnectionsPerHost)
        }
    }

    @Test(arguments: [false, true])
    func oneConnectionCarriesAHundredStreamsAtOnce(coalesceWrites: Bool) async throws {
        var configuration = trusting
        configuration.maxConnectionsPerHost = 1
        configuration.coalesceWrites = coalesceWrites
        // No response leaves the server before all 100 requests have arrived: only multiplexing gets there.
        let barrier = Barrier(count: 100)
        try await withServer(
            .http2TLS(sharedAuthority), configuration: configuration,
            handler: { _ in
                await barrier.arrive()
                return .text("ok")
            }
        ) { server, transport in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<100 {
                    group.addTask {
                        try await transport.send(HTTPRequest(url: server.url("/"), timeout: .seconds(20))).status
                    }
                }
                for try await status in group { #expect(status == 200) }
            }
            #expect(server.connectionCount == 1)
        }
    }

    @Test func oneConnectionPerHostQueuesBeyondTheStreamLimit() async throws {
        var configuration = trusting
        configuration.maxConnectionsPerHost = 1
        try await withServer(.http2TLS(sharedAuthority), configuration: configuration, handler: { _ in .text("ok") }) {
            server, transport in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<250 {
                    group.addTask { try await transport.send(HTTPRequest(url: server.url("/"))).status }
                }
                for try await status in group { #expect(status == 200) }
            }
            #expect(server.requests.count == 250)
            #expect(server.connectionCount == 1)
        }
    }

    @Test(arguments: [Data("{\"ok\":true}".utf8), Data()], [false, true])
    func manyRequestsKeepOneConnectionHealthy(body: Data, omitContentLength: Bool) async throws {
        // A connection carries many more requests than NIO's default limit of 200 stream resets in 30 s:
        // libcurl 7.88 resets streams that END_STREAM alone ends, and the fake server must tolerate that.
        try await withServer(
            .http2TLS(sharedAuthority), configuration: trusting,
            handler: { _ in
                ServerResponse(
                    headers: [("content-type", "application/json")], body: body, omitContentLength: omitContentLength)
            }
        ) { server, transport in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<400 {
                    if index >= 50, let status = try await group.next() { #expect(status == 200) }
                    group.addTask { try await transport.send(HTTPRequest(url: server.url("/"))).status }
                }
                for try await status in group { #expect(status == 200) }
            }
            #expect(server.requests.count == 400)
            #expect(server.connectionCount == 1)
        }
    }

    @Test func severalThreadsEachUseTheirOwnConnection() async throws {
        var configuration = trusting
        configuration.threads = 2
        try await withServer(.http2TLS(sharedAuthority), configuration: configuration, handler: { _ in .text("ok") }) {
            server, transport in
            try await withThrowingTaskGroup(of: HTTPVersion.self) { group in
                for _ in 0..<40 {
                    group.addTask { try await transport.send(HTTPRequest(url: server.url("/"))).httpVersion }
                }
                for try await version in group { #expect(version == .http2) }
            }
            #expect(server.requests.count == 40)
            #expect(server.connectionCount <= 2 * configuration.maxConnectionsPerHost)
        }
    }

    @Test func untrustedCertificateIsATLSError() async throws {
        // No caFile: the system bundle does not know the test CA, and verification stays on.
        try await withServer(.http2TLS(sharedAuthority), handler: { _ in .text("must not arrive") }) {
            server, transport in
            let error = await expectFailure(.tls) { () async throws(HTTPError) in
                try await transport.send(HTTPRequest(url: server.url("/")))
            }
            #expect(error?.message.isEmpty == false)
            #expect(server.requests.isEmpty)
        }
    }

    @Test func certificateFromAnotherAuthorityIsATLSError() async throws {
        let other = try TestCertificateAuthority()
        // Trusts a different CA than the one that signed the server certificate.
        let configuration = CurlTransport.Configuration(caFile: other.caFile)
        try await withServer(.http2TLS(sharedAuthority), configuration: configuration, handler: { _ in .text("no") }) {
            server, transport in
            await expectFailure(.tls) { () async throws(HTTPError) in
                try await transport.send(HTTPRequest(url: server.url("/")))
            }
        }
    }

    @Test func resetStreamIsAReset() async throws {
        try await withServer(
            .http2TLS(sharedAuthority), configuration: trusting,
            handler: { request in
                request.path == "/reset" ? .fault(.reset) : .text("ok")
            }
        ) { server, transport in
            await expectFailure(.connectionReset) { () async throws(HTTPError) in
                try await transport.send(HTTPRequest(url: server.url("/reset")))
            }
            // Only the stream was reset: the connection carries the next request.
            let next = try await transport.send(HTTPRequest(url: server.url("/ok")))
            #expect(next.status == 200)
            #expect(server.connectionCount == 1)
        }
    }

    @Test func oversizeBodyOverHTTP2IsRefused() async throws {
        try await withServer(
            .http2TLS(sharedAuthority), configuration: trusting,
            handler: { _ in
                ServerResponse(body: Data(repeating: 0x62, count: 300_000), omitContentLength: true)
            }
        ) { server, transport in
            await expectFailure(.responseTooLarge) { () async throws(HTTPError) in
                try await transport.send(HTTPRequest(url: server.url("/"), maxResponseBytes: 100_000))
            }
        }
    }

    @Test func h2cWithPriorKnowledge() async throws {
        let configuration = CurlTransport.Configuration(http2PriorKnowledge: true)
        try await withServer(.h2c, configuration: configuration, handler: { request in .text(request.bodyText) }) {
            server, transport in
            // Several requests, one after another and at once: libcurl 7.88 needs a connection per h2c request.
            let first = try await transport.send(
                HTTPRequest(method: "POST", url: server.url("/"), body: Data("x".utf8)))
            #expect(first.httpVersion == .http2)
            #expect(String(decoding: first.body, as: UTF8.self) == "x")
            try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<10 {
                    group.addTask {
                        let request = HTTPRequest(method: "POST", url: server.url("/"), body: Data("\(index)".utf8))
                        return String(decoding: try await transport.send(request).body, as: UTF8.self)
                    }
                }
                var bodies: Set<String> = []
                for try await body in group { bodies.insert(body) }
                #expect(bodies == Set((0..<10).map(String.init)))
            }
            #expect(server.requests.count == 11)
            #expect(server.requests.allSatisfy { $0.httpVersion == "HTTP/2" })
        }
    }
}
