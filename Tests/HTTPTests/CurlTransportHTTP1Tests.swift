import Foundation
import HTTP
import LiveRelayTesting
import Testing

@Suite("CurlTransport over HTTP/1.1")
struct CurlTransportHTTP1Tests {
    @Test func getReturnsStatusHeadersAndBody() async throws {
        try await withServer(handler: { request in
            ServerResponse(status: 200, headers: [("x-path", request.path)], body: Data("hello".utf8))
        }) { server, transport in
            let response = try await transport.send(HTTPRequest(url: server.url("/feed?id=3")))
            #expect(response.status == 200)
            #expect(response.httpVersion == .http1_1)
            #expect(String(decoding: response.body, as: UTF8.self) == "hello")
            #expect(response.header("X-Path") == "/feed?id=3")
            #expect(server.requests.map(\.method) == ["GET"])
            #expect(server.requests.first?.httpVersion == "HTTP/1.1")
        }
    }

    /// libcurl refuses a header line over 100 KB with "Out of memory": the error says what happened.
    @Test func anOversizedResponseHeaderIsNamedAsSuch() async throws {
        let huge = String(repeating: "a", count: 200 << 10)
        try await withServer(handler: { _ in ServerResponse(status: 200, headers: [("x-huge", huge)]) }) {
            server, transport in
            let error = await #expect(throws: HTTPError.self) {
                try await transport.send(HTTPRequest(url: server.url("/")))
            }
            #expect(error?.code == .protocolError)
            #expect(
                error?.message.contains("the response headers are too large") == true, "\(String(describing: error))")
        }
    }

    @Test func postSendsBodyAndHeadersIntact() async throws {
        let body = Data((0..<(2 << 20) + 1).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try await withServer(handler: { _ in ServerResponse(status: 201) }) { server, transport in
            let request = HTTPRequest(
                method: "POST", url: server.url("/push"),
                headers: [
                    HTTPHeader("Content-Type", "application/octet-stream"),
                    HTTPHeader("Authorization", "Bearer abc.def"),
                    HTTPHeader("apns-topic", "com.example.app.push-type.liveactivity"),
                ],
                body: body)
            let response = try await transport.send(request)
            #expect(response.status == 201)
            let received = try #require(server.requests.first)
            #expect(received.method == "POST")
            #expect(received.path == "/push")
            #expect(received.body == body)
            #expect(received.header("content-type") == "application/octet-stream")
            #expect(received.header("authorization") == "Bearer abc.def")
            #expect(received.header("apns-topic") == "com.example.app.push-type.liveactivity")
            #expect(received.header("content-length") == String(body.count))
            #expect(received.header("expect") == nil)
        }
    }

    @Test func postWithoutContentTypeDoesNotInventOne() async throws {
        try await withServer(handler: { _ in ServerResponse() }) { server, transport in
            _ = try await transport.send(HTTPRequest(method: "POST", url: server.url("/"), body: Data("{}".utf8)))
            let received = try #require(server.requests.first)
            #expect(received.header("content-type") == nil)
            #expect(received.bodyText == "{}")
        }
    }

    @Test(arguments: ["PUT", "DELETE", "PATCH"])
    func otherMethodsAreSentAsIs(method: String) async throws {
        try await withServer(handler: { _ in ServerResponse(status: 204) }) { server, transport in
            let response = try await transport.send(HTTPRequest(method: method, url: server.url("/x")))
            #expect(response.status == 204)
            #expect(server.requests.first?.method == method)
        }
    }

    /// Easy handles keep their shared options between transfers and are never reset: nothing of one request
    /// (method, body, headers, a HEAD's no-body) may leak into the next on the same handle.
    @Test func oneHandleCarriesRequestsOfEveryKindInTurn() async throws {
        try await withServer(handler: { request in
            ServerResponse(status: 200, headers: [("x-method", request.method)], body: Data("body".utf8))
        }) { server, transport in
            let requests = [
                HTTPRequest(method: "HEAD", url: server.url("/1")),
                HTTPRequest(url: server.url("/2"), headers: [HTTPHeader("x-only", "two")]),
                HTTPRequest(method: "POST", url: server.url("/3"), body: Data("three".utf8)),
                HTTPRequest(method: "PUT", url: server.url("/4"), body: Data("four".utf8)),
                HTTPRequest(method: "DELETE", url: server.url("/5")),
                HTTPRequest(url: server.url("/6")),
                HTTPRequest(method: "POST", url: server.url("/7")),
            ]
            for request in requests {
                let response = try await transport.send(request)
                #expect(response.header("x-method") == request.method)
                #expect(response.body == (request.method == "HEAD" ? Data() : Data("body".utf8)))
            }
            let received = server.requests
            #expect(received.map(\.method) == requests.map(\.method))
            #expect(received.map(\.path) == ["/1", "/2", "/3", "/4", "/5", "/6", "/7"])
            #expect(received.map(\.bodyText) == ["", "", "three", "four", "", "", ""])
            #expect(received.map { $0.header("x-only") } == [nil, "two", nil, nil, nil, nil, nil])
        }
    }

    @Test func acceptEncodingIsSentAndGzipBodiesAreDecoded() async throws {
        let text = String(repeating: "score 2-1, minute 77; ", count: 5_000)
        try await withServer(handler: { _ in ServerResponse(body: Data(text.utf8), gzip: true) }) { server, transport in
            let response = try await transport.send(HTTPRequest(url: server.url("/gz")))
            #expect(response.header("content-encoding") == "gzip")
            #expect(String(decoding: response.body, as: UTF8.self) == text)
            let acceptEncoding = try #require(server.requests.first?.header("accept-encoding"))
            #expect(acceptEncoding.contains("gzip"))
            #expect(acceptEncoding.contains("br"))
        }
    }

    @Test func conditionalGetSurfaces304() async throws {
        let etag = "\"v1\""
        let lastModified = "Wed, 21 Oct 2025 07:28:00 GMT"
        try await withServer(handler: { request in
            if request.header("if-none-match") == etag {
                return ServerResponse(status: 304, headers: [("etag", etag)])
            }
            return ServerResponse(headers: [("etag", etag), ("last-modified", lastModified)], body: Data("{}".utf8))
        }) { server, transport in
            let first = try await transport.send(HTTPRequest(url: server.url("/scores")))
            #expect(first.status == 200)
            #expect(first.validators == CacheValidators(etag: etag, lastModified: lastModified))

            let second = try await transport.send(HTTPRequest(url: server.url("/scores"), validators: first.validators))
            #expect(second.status == 304)
            #expect(second.body.isEmpty)
            let conditional = try #require(server.requests.last)
            #expect(conditional.header("if-none-match") == etag)
            #expect(conditional.header("if-modified-since") == lastModified)
            #expect(server.requests.first?.header("if-none-match") == nil)
        }
    }

    @Test func serverDelayBeyondTheTimeoutIsATimeout() async throws {
        try await withServer(handler: { _ in ServerResponse(delay: .seconds(5)) }) { server, transport in
            let error = await expectFailure(.timeout) { () async throws(HTTPError) in
                try await transport.send(HTTPRequest(url: server.url("/slow"), timeout: .milliseconds(200)))
            }
            #expect(error?.message.contains("timed out") == true)
        }
    }

    @Test func closedConnectionWithoutResponseIsAReset() async throws {
        try await withServer(handler: { _ in .fault(.reset) }) { server, transport in
            await expectFailure(.connectionReset) { () async throws(HTTPError) in
                try await transport.send(HTTPRequest(url: server.url("/reset")))
            }
        }
    }

    @Test(arguments: [false, true])
    func oversizeBodyIsRefused(omitContentLength: Bool) async throws {
        let big = Data(repeating: 0x61, count: 256 * 1024)
        try await withServer(handler: { _ in
            ServerResponse(body: big, omitContentLength: omitContentLength)
        }) { server, transport in
            let error = await expectFailure(.responseTooLarge) { () async throws(HTTPError) in
                try await transport.send(HTTPRequest(url: server.url("/big"), maxResponseBytes: 64 * 1024))
            }
            #expect(error?.message.contains("65536 bytes") == true)
            // A body exactly at the cap is accepted.
            let exact = try await transport.send(HTTPRequest(url: server.url("/big"), maxResponseBytes: big.count))
            #expect(exact.body.count == big.count)
        }
    }

    @Test func refusedConnectionIsAConnectionFailure() async throws {
        let server = try await LoopbackHTTPServer.start { _ in ServerResponse() }
        let url = server.url("/gone")
        try await server.stop()
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        await expectFailure(.connectionFailed) { () async throws(HTTPError) in
            try await transport.send(HTTPRequest(url: url))
        }
    }
}
