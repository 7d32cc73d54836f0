import Foundation
import HTTP
import LiveRelayTesting
import Testing

@Suite("CurlTransport cancellation and shutdown")
struct CurlTransportLifecycleTests {
    /// A server that hangs on `/hang` (announcing each arrival) and answers everything else.
    private static func hangingServer(
        _ arrival: AsyncStream<Void>.Continuation
    ) -> LoopbackHTTPServer.Handler {
        { request in
            guard request.path == "/hang" else { return .text("ok") }
            arrival.yield()
            return .fault(.hang)
        }
    }

    private static func sendCapturingResult(
        _ transport: CurlTransport, _ url: String
    ) async -> Result<HTTPResponse, HTTPError> {
        do throws(HTTPError) {
            return .success(try await transport.send(HTTPRequest(url: url)))
        } catch {
            return .failure(error)
        }
    }

    @Test func cancellingTheTaskCancelsTheTransfer() async throws {
        let (arrived, arrival) = AsyncStream.makeStream(of: Void.self)
        try await withServer(handler: Self.hangingServer(arrival)) { server, transport in
            let task = Task { await Self.sendCapturingResult(transport, server.url("/hang")) }
            for await _ in arrived { break }
            task.cancel()
            await expectFailure(.cancelled) { () async throws(HTTPError) in try await task.value.get() }
            // The transport still works afterwards.
            let next = try await transport.send(HTTPRequest(url: server.url("/ok")))
            #expect(next.status == 200)
        }
    }

    @Test func cancellingManyHTTP2StreamsKeepsTheConnectionUsable() async throws {
        let (arrived, arrival) = AsyncStream.makeStream(of: Void.self)
        let configuration = CurlTransport.Configuration(caFile: sharedAuthority.caFile)
        try await withServer(
            .http2TLS(sharedAuthority), configuration: configuration, handler: Self.hangingServer(arrival)
        ) {
            server, transport in
            let codes = await withTaskGroup(of: HTTPError.Code?.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        if case .failure(let error) = await Self.sendCapturingResult(transport, server.url("/hang")) {
                            return error.code
                        }
                        return nil
                    }
                }
                var seen = 0
                for await _ in arrived {
                    seen += 1
                    if seen == 50 { break }
                }
                group.cancelAll()
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(codes.count == 50)
            #expect(codes.allSatisfy { $0 == .cancelled })
            let next = try await transport.send(HTTPRequest(url: server.url("/ok")))
            #expect(next.httpVersion == .http2)
            #expect(server.connectionCount == 1)
        }
    }

    @Test func alreadyCancelledTaskFailsWithoutSending() async throws {
        try await withServer(handler: { _ in .text("ok") }) { server, transport in
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return await Self.sendCapturingResult(transport, server.url("/never"))
            }
            await expectFailure(.cancelled) { () async throws(HTTPError) in try await task.value.get() }
            #expect(server.requests.isEmpty)
        }
    }

    @Test func shutdownFailsTransfersInFlightAndLaterOnes() async throws {
        let (arrived, arrival) = AsyncStream.makeStream(of: Void.self)
        try await withServer(handler: Self.hangingServer(arrival)) { server, transport in
            let task = Task { await Self.sendCapturingResult(transport, server.url("/hang")) }
            for await _ in arrived { break }
            transport.shutdown()
            await expectFailure(.shutdown) { () async throws(HTTPError) in try await task.value.get() }
            await expectFailure(.shutdown) { () async throws(HTTPError) in
                try await transport.send(HTTPRequest(url: server.url("/ok")))
            }
        }
    }

    @Test func transportsComeAndGo() async throws {
        // Transports created and released one after another each start and stop their own threads.
        try await withServer(handler: { _ in .text("ok") }) { server, _ in
            for _ in 0..<20 {
                let transport = try CurlTransport(configuration: .init(threads: 2))
                let response = try await transport.send(HTTPRequest(url: server.url("/")))
                #expect(response.status == 200)
            }
        }
    }
}
