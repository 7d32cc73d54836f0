import Foundation
import HTTP
import LiveRelayTesting
import Synchronization
import Testing

@Suite("HTTP2Lane: pushes over nghttp2")
struct HTTP2LaneTests {
    @Test func negotiatesHTTP2OverVerifiedTLSAndCarriesHeadersAndBodies() async throws {
        try await withLane(handler: { request in
            ServerResponse(
                status: request.path == "/missing" ? 404 : 200,
                headers: [
                    ("apns-id", "A-1"), ("x-seen", request.headers.first { $0.name == "apns-topic" }?.value ?? ""),
                ],
                body: Data("\(request.method) \(request.path) \(String(decoding: request.body, as: UTF8.self))".utf8))
        }) { server, lane in
            let response = try await lane.send(
                HTTPRequest(
                    method: "POST", url: server.url("/3/device/abc?x=1"),
                    headers: [HTTPHeader("Apns-Topic", "com.example"), HTTPHeader("content-type", "application/json")],
                    body: Data(#"{"aps":{}}"#.utf8)))
            #expect(response.status == 200)
            #expect(response.httpVersion == .http2)
            #expect(response.header("apns-id") == "A-1")
            #expect(response.header("x-seen") == "com.example")
            #expect(String(decoding: response.body, as: UTF8.self) == #"POST /3/device/abc?x=1 {"aps":{}}"#)
            let seen = try #require(server.requests.first)
            #expect(seen.httpVersion == "HTTP/2")
            #expect(seen.headers.contains { $0.0 == "user-agent" && $0.1 == "LiveRelay" })
            #expect(seen.headers.contains { $0.0 == "content-length" && $0.1 == "10" })
            // A status is a response, not an error.
            let missing = try await lane.send(HTTPRequest(url: server.url("/missing")))
            #expect(missing.status == 404)
            // `localhost` matches the certificate as well as the address does.
            let byName = try await lane.send(HTTPRequest(url: "https://localhost:\(server.port)/name"))
            #expect(byName.status == 200)
        }
    }

    @Test func refusesAServerItCannotVerify() async throws {
        let stranger = try TestCertificateAuthority()
        try await withLane(caFile: stranger.caFile, handler: { _ in .text("never") }) { server, lane in
            let error = await expectFailure(.tls) { () async throws(HTTPError) in
                try await lane.send(HTTPRequest(url: server.url("/")))
            }
            #expect(error?.message.contains("certificate verify failed") == true, "\(String(describing: error))")
            #expect(server.requests.isEmpty)
        }
        // The system's CAs do not know the test CA either.
        try await withLane(caFile: nil, handler: { _ in .text("never") }) { server, lane in
            await expectFailure(.tls) { () async throws(HTTPError) in
                try await lane.send(HTTPRequest(url: server.url("/")))
            }
        }
    }

    @Test func aGoAwayMidFanOutFinishesTheAcceptedStreamsAndSendsTheRestOnANewConnection() async throws {
        try await withLane(handler: LaneFaults.goAwayOnce(at: "/n/100")) { server, lane in
            let results = await fanOut(lane, server, count: 300)
            let paths = answered(results)
            // Every push answered exactly once.
            #expect(paths.count == 300, "\(failures(results))")
            #expect(Set(paths).count == 300)
            #expect(server.connectionCount == 2)
            // The streams below the GOAWAY finished on the first connection; only the rest went again.
            let again = server.requests.filter { $0.connectionID == 2 }.count
            #expect(again > 0 && again < 300, "\(again) requests on the second connection")
        }
    }

    @Test func aRefusedStreamGoesAgainAndAResetStreamFails() async throws {
        let refused = Atomic<Int>(0)
        try await withLane(handler: { request in
            switch request.path {
            case "/refuse-once":
                return refused.add(1, ordering: .relaxed).newValue == 1 ? .fault(.refuse) : .text("second time")
            case "/reset":
                return .fault(.reset)
            default:
                return .text(request.path)
            }
        }) { server, lane in
            let response = try await lane.send(HTTPRequest(url: server.url("/refuse-once")))
            #expect(String(decoding: response.body, as: UTF8.self) == "second time")
            await expectFailure(.connectionReset) { () async throws(HTTPError) in
                try await lane.send(HTTPRequest(url: server.url("/reset")))
            }
            // The connection survives a stream's reset.
            #expect(try await lane.send(HTTPRequest(url: server.url("/after"))).status == 200)
            #expect(server.connectionCount == 1)
        }
    }

    @Test func aDroppedConnectionSendsItsStreamsOnceMoreOnANewOne() async throws {
        try await withLane(handler: LaneFaults.dropOnce(at: "/n/20")) { server, lane in
            let results = await fanOut(lane, server, count: 60)
            #expect(Set(answered(results)) == Set((0..<60).map { "/n/\($0)" }))
            #expect(server.connectionCount == 2)
            // Sent twice: only what the first connection held when it dropped.
            let again = Set(server.requests.filter { $0.connectionID == 2 }.map(\.path))
            #expect(again.count <= 60)
        }
        // A request whose second connection drops too fails.
        try await withLane(handler: { _ in .fault(.closeConnection) }) { server, lane in
            await expectFailure(.connectionReset) { () async throws(HTTPError) in
                try await lane.send(HTTPRequest(url: server.url("/always")))
            }
            #expect(server.requests.count == 2)
        }
    }

    /// A worker whose claims lapsed while it was frozen must not send its pushes again: the lane asks the
    /// caller's fence before a resend, and a closed fence fails the request instead.
    @Test func aClosedFenceKeepsADroppedConnectionsStreamsFromGoingAgain() async throws {
        let open = Atomic<Bool>(true)
        let fence = SendFence { open.load(ordering: .relaxed) }
        try await withLane(handler: { request in
            switch request.path {
            case "/drop":
                open.store(false, ordering: .relaxed)
                return .fault(.closeConnection)
            case "/refuse":
                open.store(false, ordering: .relaxed)
                return .fault(.refuse)
            default:
                return .text(request.path)
            }
        }) { server, lane in
            for path in ["/drop", "/refuse"] {
                open.store(true, ordering: .relaxed)
                let error = await SendFence.$current.withValue(fence) { () async -> HTTPError? in
                    do throws(HTTPError) {
                        _ = try await lane.send(HTTPRequest(url: server.url(path)))
                        return nil
                    } catch {
                        return error
                    }
                }
                #expect(error?.code == .connectionReset, "\(path)")
                #expect(error?.message.contains("fence") == true, "\(String(describing: error))")
                #expect(server.requests.filter { $0.path == path }.count == 1, "\(path) went out once")
            }
            // Without a fence (or with an open one) the same faults are sent again.
            let response = try await lane.send(HTTPRequest(url: server.url("/after")))
            #expect(response.status == 200)
        }
    }

    @Test func timesOutCancelsAndShutsDownWithTheirOwnCodes() async throws {
        // The server says when a hanging request has reached it: the cancel and the shutdown come then.
        // Each hanging request has a path of its own: one that timed out may reach the server late, or never.
        let cancelHang = Arrivals()
        let shutdownHang = Arrivals()
        try await withLane(handler: { request in
            switch request.path {
            case "/hang": return .fault(.hang)
            case "/hang-cancel": cancelHang.arrived()
            case "/hang-shutdown": shutdownHang.arrived()
            default: return .text("ok")
            }
            return .fault(.hang)
        }) { server, lane in
            await expectFailure(.timeout) { () async throws(HTTPError) in
                try await lane.send(HTTPRequest(url: server.url("/hang"), timeout: .milliseconds(300)))
            }
            // The connection still works.
            let ok = try await lane.send(HTTPRequest(url: server.url("/ok")))
            #expect(ok.status == 200)
            let task = Task { () async throws(HTTPError) -> HTTPResponse in
                try await lane.send(HTTPRequest(url: server.url("/hang-cancel")))
            }
            #expect(await cancelHang.wait(for: 1))
            task.cancel()
            do {
                _ = try await task.value
                Issue.record("a cancelled request got a response")
            } catch {
                #expect((error as? HTTPError)?.code == .cancelled, "\(error)")
            }
            let running = Task { () async throws(HTTPError) -> HTTPResponse in
                try await lane.send(HTTPRequest(url: server.url("/hang-shutdown")))
            }
            #expect(await shutdownHang.wait(for: 1))
            lane.shutdown()
            do {
                _ = try await running.value
                Issue.record("a request got a response after shutdown")
            } catch {
                #expect((error as? HTTPError)?.code == .shutdown, "\(error)")
            }
            await expectFailure(.shutdown) { () async throws(HTTPError) in
                try await lane.send(HTTPRequest(url: server.url("/late")))
            }
        }
    }

    @Test func refusesWhatItCannotCarry() async throws {
        try await withLane(handler: { _ in .text(String(repeating: "x", count: 5000)) }) { server, lane in
            await expectFailure(.responseTooLarge) { () async throws(HTTPError) in
                try await lane.send(HTTPRequest(url: server.url("/big"), maxResponseBytes: 1000))
            }
            await expectFailure(.invalidURL) { () async throws(HTTPError) in
                try await lane.send(HTTPRequest(url: "file:///etc/hostname"))
            }
            // The origin the last request named is kept, and a URL of it is still read whole: a fragment is
            // refused there as anywhere, and a query right after the authority is a path.
            await expectFailure(.invalidURL) { () async throws(HTTPError) in
                try await lane.send(HTTPRequest(url: server.url("/big#part")))
            }
            await expectFailure(.responseTooLarge) { () async throws(HTTPError) in
                try await lane.send(HTTPRequest(url: server.url("?again"), maxResponseBytes: 1000))
            }
            // Nothing listens on port 1.
            await expectFailure(.connectionFailed) { () async throws(HTTPError) in
                try await lane.send(HTTPRequest(url: "https://127.0.0.1:1/"))
            }
        }
    }
}
