import Foundation
import HTTP
import LiveRelayTesting
import Synchronization
import Testing

/// Starts an HTTP/2 + TLS loopback server and a lane trusting its CA, runs `body`, and stops both.
@discardableResult
private func withLane<T>(
    connections: Int = 1, connectionsPerOrigin: Int = 1, maxConcurrentStreams: Int? = nil,
    initialWindowSize: Int? = nil, caFile: String? = sharedAuthority.caFile,
    handler: @escaping LoopbackHTTPServer.Handler,
    _ body: (LoopbackHTTPServer, HTTP2Lane) async throws -> T
) async throws -> T {
    let server = try await LoopbackHTTPServer.start(
        mode: .http2TLS(sharedAuthority), maxConcurrentStreams: maxConcurrentStreams,
        initialWindowSize: initialWindowSize, handler: handler)
    let lane = try HTTP2Lane(
        configuration: HTTP2Lane.Configuration(
            caFile: caFile, connections: connections, connectionsPerOrigin: connectionsPerOrigin))
    do {
        let result = try await body(server, lane)
        lane.shutdown()
        try await server.stop()
        return result
    } catch {
        lane.shutdown()
        try? await server.stop()
        throw error
    }
}

/// Sends `count` requests to `/n/<i>` at once; the results by index.
private func fanOut(
    _ lane: HTTP2Lane, _ server: LoopbackHTTPServer, count: Int, timeout: Duration = .seconds(10)
) async -> [Result<HTTPResponse, HTTPError>] {
    await withTaskGroup(of: (Int, Result<HTTPResponse, HTTPError>).self) { group in
        for index in 0..<count {
            group.addTask {
                let request = HTTPRequest(
                    method: "POST", url: server.url("/n/\(index)"), body: Data("push \(index)".utf8), timeout: timeout)
                do throws(HTTPError) {
                    return (index, .success(try await lane.send(request)))
                } catch {
                    return (index, .failure(error))
                }
            }
        }
        var results = [Result<HTTPResponse, HTTPError>?](repeating: nil, count: count)
        for await (index, result) in group { results[index] = result }
        return results.map { $0! }
    }
}

/// The request bodies the server answered with 200, by path (the handler echoes its path).
private func answered(_ results: [Result<HTTPResponse, HTTPError>]) -> [String] {
    results.compactMap { result in
        guard case .success(let response) = result, response.status == 200 else { return nil }
        return String(decoding: response.body, as: UTF8.self)
    }
}

/// The first few failures, for a message.
private func failures(_ results: [Result<HTTPResponse, HTTPError>]) -> String {
    results.compactMap { result in
        guard case .failure(let error) = result else { return nil }
        return "\(error)"
    }.prefix(3).joined(separator: "; ")
}

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

    @Test func multiplexesAFanOutOverOneConnectionWithinTheServersStreamLimit() async throws {
        let inFlight = Atomic<Int>(0)
        let most = Atomic<Int>(0)
        try await withLane(
            maxConcurrentStreams: 8,
            handler: { request in
                let now = inFlight.add(1, ordering: .relaxed).newValue
                most.max(now, ordering: .relaxed)
                try? await Task.sleep(for: .milliseconds(2))
                inFlight.subtract(1, ordering: .relaxed)
                return .text(request.path)
            }
        ) { server, lane in
            let results = await fanOut(lane, server, count: 300)
            #expect(answered(results).count == 300, "\(failures(results))")
            #expect(Set(answered(results)) == Set((0..<300).map { "/n/\($0)" }))
            #expect(server.connectionCount == 1)
            #expect(most.load(ordering: .relaxed) <= 8)
            #expect(most.load(ordering: .relaxed) > 1)
        }
    }

    /// A server of 4 streams per connection that takes 20 ms per answer: a fan-out of 200 would wait on one
    /// connection's four streams, so the thread opens more, each once the ones before it are full and have
    /// answered, up to its limit of 4; every request is answered once.
    @Test func opensMoreConnectionsWhenEveryStreamIsTaken() async throws {
        let inFlight = Atomic<Int>(0)
        let most = Atomic<Int>(0)
        try await withLane(
            connectionsPerOrigin: 4, maxConcurrentStreams: 4,
            handler: { request in
                let now = inFlight.add(1, ordering: .relaxed).newValue
                most.max(now, ordering: .relaxed)
                try? await Task.sleep(for: .milliseconds(20))
                inFlight.subtract(1, ordering: .relaxed)
                return .text(request.path)
            }
        ) { server, lane in
            let results = await fanOut(lane, server, count: 200)
            #expect(answered(results).count == 200, "\(failures(results))")
            #expect(Set(answered(results)) == Set((0..<200).map { "/n/\($0)" }))
            #expect(server.connectionCount == 4)
            #expect(server.requests.count == 200)
            #expect(most.load(ordering: .relaxed) > 4)
            #expect(most.load(ordering: .relaxed) <= 16)
        }
        // A few requests at a time fit one connection's streams: no second connection.
        try await withLane(connectionsPerOrigin: 4, maxConcurrentStreams: 4, handler: { .text($0.path) }) {
            server, lane in
            for index in 0..<20 {
                _ = try await lane.send(HTTPRequest(url: server.url("/one/\(index)")))
            }
            #expect(server.connectionCount == 1)
        }
    }

    @Test func followsAServerThatLowersItsStreamLimitMidConnection() async throws {
        let inFlight = Atomic<Int>(0)
        let mostAfter = Atomic<Int>(0)
        let lowered = Atomic<Bool>(false)
        try await withLane(handler: { request in
            if request.path == "/lower" {
                return ServerResponse(status: 200, body: Data("lowered".utf8), fault: .lowerStreamLimit(3))
            }
            let now = inFlight.add(1, ordering: .relaxed).newValue
            if lowered.load(ordering: .relaxed) { mostAfter.max(now, ordering: .relaxed) }
            try? await Task.sleep(for: .milliseconds(2))
            inFlight.subtract(1, ordering: .relaxed)
            return .text(request.path)
        }) { server, lane in
            _ = try await lane.send(HTTPRequest(url: server.url("/lower")))
            // The SETTINGS frame came before the response that carried it; requests sent from now on are held
            // to three at a time.
            lowered.store(true, ordering: .relaxed)
            let results = await fanOut(lane, server, count: 200)
            #expect(answered(results).count == 200, "\(failures(results))")
            #expect(Set(answered(results)) == Set((0..<200).map { "/n/\($0)" }))
            #expect(mostAfter.load(ordering: .relaxed) <= 3)
            #expect(server.connectionCount == 1)
        }
    }

    @Test func aGoAwayMidFanOutFinishesTheAcceptedStreamsAndSendsTheRestOnANewConnection() async throws {
        let sentGoAway = Atomic<Bool>(false)
        try await withLane(handler: { request in
            if request.path == "/n/100", request.connectionID == 1,
                !sentGoAway.exchange(true, ordering: .relaxed)
            {
                return .fault(.goAway)
            }
            try? await Task.sleep(for: .milliseconds(5))
            return .text(request.path)
        }) { server, lane in
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
        let drops = Atomic<Int>(0)
        try await withLane(handler: { request in
            if request.path == "/n/20", drops.add(1, ordering: .relaxed).newValue == 1 {
                try? await Task.sleep(for: .milliseconds(20))
                return .fault(.closeConnection)
            }
            if request.connectionID == 1 { try? await Task.sleep(for: .milliseconds(200)) }
            return .text(request.path)
        }) { server, lane in
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
        try await withLane(handler: { request in
            request.path == "/hang" ? .fault(.hang) : .text("ok")
        }) { server, lane in
            await expectFailure(.timeout) { () async throws(HTTPError) in
                try await lane.send(HTTPRequest(url: server.url("/hang"), timeout: .milliseconds(300)))
            }
            // The connection still works.
            #expect(try await lane.send(HTTPRequest(url: server.url("/ok"))).status == 200)
            let task = Task { () async throws(HTTPError) -> HTTPResponse in
                try await lane.send(HTTPRequest(url: server.url("/hang")))
            }
            try await Task.sleep(for: .milliseconds(100))
            task.cancel()
            do {
                _ = try await task.value
                Issue.record("a cancelled request got a response")
            } catch {
                #expect((error as? HTTPError)?.code == .cancelled, "\(error)")
            }
            let running = Task { () async throws(HTTPError) -> HTTPResponse in
                try await lane.send(HTTPRequest(url: server.url("/hang")))
            }
            try await Task.sleep(for: .milliseconds(100))
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

    @Test func bodiesLargerThanTheFlowControlWindowsGoOutWhole() async throws {
        // 24 bodies of 300 KB: each is several times HTTP/2's initial stream window (64 KB) and together they
        // exceed the connection's, so they go out as the server's WINDOW_UPDATEs allow, and the socket
        // fills up on the way (the lane keeps what it did not take and writes it when it can).
        try await withLane(handler: { request in
            try? await Task.sleep(for: .milliseconds(10))
            return .text("\(request.path) \(request.body.count) \(request.body.last ?? 0)")
        }) { server, lane in
            let answers = await withTaskGroup(of: String.self) { group in
                for index in 0..<24 {
                    group.addTask {
                        var body = Data(repeating: UInt8(index), count: 300_000)
                        body[body.count - 1] = UInt8(index + 100)
                        let request = HTTPRequest(method: "POST", url: server.url("/big/\(index)"), body: body)
                        do throws(HTTPError) {
                            return String(decoding: try await lane.send(request).body, as: UTF8.self)
                        } catch {
                            return "\(error)"
                        }
                    }
                }
                var all: [String] = []
                for await answer in group { all.append(answer) }
                return all
            }
            #expect(Set(answers) == Set((0..<24).map { "/big/\($0) 300000 \($0 + 100)" }))
            #expect(server.connectionCount == 1)
        }
    }

    /// A slow server that lets 100 bytes of a body through per stream before its next WINDOW_UPDATE: 60
    /// bodies of 3,000 bytes each go out in pieces as it grants room, while it takes 10 ms per answer.
    /// Every body arrives whole, in order, once.
    @Test func aServerThatHoldsItsWindowsGetsEveryBodyWholeAndOnce() async throws {
        try await withLane(
            initialWindowSize: 100,
            handler: { request in
                try? await Task.sleep(for: .milliseconds(10))
                let sum = request.body.reduce(0) { ($0 &* 31 &+ Int($1)) & 0xFFFF_FFFF }
                return .text("\(request.path) \(request.body.count) \(sum)")
            }
        ) { server, lane in
            func body(_ index: Int) -> Data { Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) }) }
            let answers = await withTaskGroup(of: String.self) { group in
                for index in 0..<60 {
                    group.addTask {
                        let request = HTTPRequest(method: "POST", url: server.url("/w/\(index)"), body: body(index))
                        do throws(HTTPError) {
                            return String(decoding: try await lane.send(request).body, as: UTF8.self)
                        } catch {
                            return "\(error)"
                        }
                    }
                }
                var all: [String] = []
                for await answer in group { all.append(answer) }
                return all
            }
            let expected = (0..<60).map { index in
                "/w/\(index) 3000 \(body(index).reduce(0) { ($0 &* 31 &+ Int($1)) & 0xFFFF_FFFF })"
            }
            #expect(Set(answers) == Set(expected))
            #expect(server.requests.count == 60)
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
