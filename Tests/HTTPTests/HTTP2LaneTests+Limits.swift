import Foundation
import HTTP
import LiveRelayTesting
import Synchronization
import Testing

/// The lane within the server's limits: streams per connection, connections per origin, flow-control windows.
extension HTTP2LaneTests {
    @Test func multiplexesAFanOutOverOneConnectionWithinTheServersStreamLimit() async throws {
        let count = InFlightCount()
        try await withLane(maxConcurrentStreams: 8, handler: count.handler(delay: .milliseconds(2))) { server, lane in
            let results = await fanOut(lane, server, count: 300)
            #expect(answered(results).count == 300, "\(failures(results))")
            #expect(Set(answered(results)) == Set((0..<300).map { "/n/\($0)" }))
            #expect(server.connectionCount == 1)
            #expect(count.most <= 8)
            #expect(count.most > 1)
        }
    }

    /// One more connection is made beside the lane's thread: while the server takes a second over setting up
    /// the second connection, the first goes on carrying requests (made on the thread, its set-up would
    /// stop the first's answers from being read, and no request could go on it until the second was up).
    @Test func theFirstConnectionCarriesOnWhileAnotherIsMade() async throws {
        let seen = SetUpWatch()
        try await withLane(
            connectionsPerOrigin: 2, maxConcurrentStreams: 4, slowSetUpAfterFirst: .seconds(1),
            handler: { request in
                seen.arrived(on: request.connectionID)
                try? await Task.sleep(for: .milliseconds(10))
                return .text(request.path)
            }
        ) { server, lane in
            seen.server = server
            let results = await fanOut(lane, server, count: 300)
            #expect(answered(results).count == 300, "\(failures(results))")
            #expect(server.connectionCount == 2)
            #expect(
                seen.duringSecondSetUp > 0,
                "requests reached the first connection while the second was being set up: \(seen.duringSecondSetUp)")
        }
    }

    /// A second origin's first connection is made beside the lane's thread too: while the far server takes two
    /// seconds over its set-up, the near one's requests go on being answered; and when it cannot be made in
    /// time, the requests that waited for it fail with the set-up's error, and the near one is untouched.
    @Test func aSecondOriginsFirstConnectionDoesNotStopTheFirst() async throws {
        let near = InFlightCount()
        let far = try await LoopbackHTTPServer.start(
            mode: .http2TLS(sharedAuthority), slowSetUp: .seconds(2), handler: { request in .text(request.path) })
        defer { Task { try? await far.stop() } }
        try await withLane(connectTimeout: .seconds(4), handler: near.handler(delay: .milliseconds(5))) {
            server, lane in
            // The near origin's connection is up and busy.
            #expect(answered(await fanOut(lane, server, count: 10)).count == 10)
            let farAnswer = Task {
                try await lane.send(HTTPRequest(method: "POST", url: far.url("/far"), body: Data("far".utf8)))
            }
            // The far connection's set-up has begun (the server holds it two seconds before its handshake).
            #expect(await far.wait(until: { far.connectionCount > 0 }))
            #expect(answered(await fanOut(lane, server, count: 200)).count == 200)
            #expect(far.requests.isEmpty, "the near requests were answered while the far connection was set up")
            let answer = try await farAnswer.value
            #expect(String(decoding: answer.body, as: UTF8.self) == "/far")
        }
        // A far server slower than the connect timeout: its request fails with the set-up's error.
        let farther = try await LoopbackHTTPServer.start(
            mode: .http2TLS(sharedAuthority), slowSetUp: .seconds(3), handler: { request in .text(request.path) })
        defer { Task { try? await farther.stop() } }
        try await withLane(connectTimeout: .milliseconds(500), handler: near.handler(delay: .milliseconds(1))) {
            server, lane in
            #expect(answered(await fanOut(lane, server, count: 10)).count == 10)
            do throws(HTTPError) {
                _ = try await lane.send(
                    HTTPRequest(method: "POST", url: farther.url("/far"), body: Data(), timeout: .seconds(10)))
                Issue.record("a request to a server that cannot be reached in time was answered")
            } catch {
                #expect("\(error)".contains("TLS handshake"), "the set-up's error, not the request's timeout: \(error)")
            }
            #expect(answered(await fanOut(lane, server, count: 10)).count == 10)
        }
    }

    /// One more connection that cannot be made in time (the server takes 5 s to set it up, the lane waits
    /// 2 s) leaves the requests on the connection there is, tried again a second later: every request is
    /// answered, all of them on the first connection.
    @Test func aConnectionThatCannotBeMadeLeavesTheRequestsOnTheFirst() async throws {
        try await withLane(
            connectionsPerOrigin: 2, maxConcurrentStreams: 4, slowSetUpAfterFirst: .seconds(5),
            connectTimeout: .seconds(2), handler: InFlightCount().handler(delay: .milliseconds(10))
        ) { server, lane in
            // 2,400 at 4 × 10 ms take six seconds: time for the first try to fail (at 2 s) and the next to
            // begin (a second later).
            let results = await fanOut(lane, server, count: 2400, timeout: .seconds(30))
            #expect(answered(results).count == 2400, "\(failures(results))")
            #expect(server.connectionCount >= 3, "another connection was tried, and tried again")
            #expect(server.requests.allSatisfy { $0.connectionID == 1 })
        }
    }

    /// A server of 4 streams per connection that takes 40 ms per answer, however many it has (a far one): a
    /// fan-out of 800 would wait on one connection's four streams, so the thread opens more in steps (a
    /// second, then two more), each once the connections before it are full, have answered, and carried
    /// their share, up to its limit of 4; every request is answered once.
    @Test func opensMoreConnectionsWhenEveryStreamIsTaken() async throws {
        let count = InFlightCount()
        try await withLane(
            connectionsPerOrigin: 4, maxConcurrentStreams: 4, handler: count.handler(delay: .milliseconds(40))
        ) { server, lane in
            let results = await fanOut(lane, server, count: 800, timeout: .seconds(30))
            #expect(answered(results).count == 800, "\(failures(results))")
            #expect(Set(answered(results)) == Set((0..<800).map { "/n/\($0)" }))
            // The step to four opens two at once; a loaded machine's slow set-up may leave it at three.
            #expect(server.connectionCount >= 3)
            #expect(server.connectionCount <= 4)
            #expect(server.requests.count == 800)
            #expect(count.most > 8)
            #expect(count.most <= 16)
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

    /// A server that answers one request at a time, 5 ms each, however many connections bring them (a near
    /// one its own CPU limits): a second connection is tried, carries nothing more, is closed again once its
    /// streams finish, and no third is opened.
    /// (200 answers a second, far below what one connection to the loopback server carries on a loaded
    /// machine; 32 streams a connection keep 160 ms of work queued at the server, so a late client does not
    /// leave it idle and make a second connection look worth it.)
    @Test func aServerItsOwnCPULimitsGetsNoThirdConnection() async throws {
        let queue = OneAtATime(each: .milliseconds(5))
        try await withLane(connectionsPerOrigin: 4, maxConcurrentStreams: 32, handler: queue.handler()) {
            server, lane in
            let results = await fanOut(lane, server, count: 400, timeout: .seconds(30))
            #expect(answered(results).count == 400, "\(failures(results))")
            #expect(server.connectionCount == 2)
            #expect(
                await server.wait(until: { server.openConnectionCount == 1 }, timeout: .seconds(10)),
                "\(server.openConnectionCount) connections still open")
            #expect(server.goAwaysReceived == 1, "the lane said it was leaving")
        }
    }

    @Test func followsAServerThatLowersItsStreamLimitMidConnection() async throws {
        let lowering = LoweringServer()
        try await withLane(handler: lowering.handler()) { server, lane in
            _ = try await lane.send(HTTPRequest(url: server.url("/lower")))
            // The SETTINGS frame came before the response that carried it; requests sent from now on are held
            // to three at a time.
            lowering.lowered()
            let results = await fanOut(lane, server, count: 200)
            #expect(answered(results).count == 200, "\(failures(results))")
            #expect(Set(answered(results)) == Set((0..<200).map { "/n/\($0)" }))
            #expect(lowering.most <= 3)
            #expect(server.connectionCount == 1)
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
            let answers = await bodies(lane, count: 24) { index in
                var body = Data(repeating: UInt8(index), count: 300_000)
                body[body.count - 1] = UInt8(index + 100)
                return HTTPRequest(method: "POST", url: server.url("/big/\(index)"), body: body)
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
            @Sendable func body(_ index: Int) -> Data {
                Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) })
            }
            let answers = await bodies(lane, count: 60) { index in
                HTTPRequest(method: "POST", url: server.url("/w/\(index)"), body: body(index))
            }
            let expected = (0..<60).map { index in
                "/w/\(index) 3000 \(body(index).reduce(0) { ($0 &* 31 &+ Int($1)) & 0xFFFF_FFFF })"
            }
            #expect(Set(answers) == Set(expected))
            #expect(server.requests.count == 60)
        }
    }

    /// A request that finds every stream taken and no connection it may open is held by the lane, not sent:
    /// past its timeout it fails with `timeout`, a cancelled one with `cancelled`, at shutdown with `shutdown`,
    /// and the server never sees any of them.
    @Test func aHeldRequestTimesOutIsCancelledAndShutDownWithoutBeingSent() async throws {
        let (hangs, hanging) = AsyncStream<Void>.makeStream()
        try await withLane(
            connectionsPerOrigin: 1, maxConcurrentStreams: 1,
            handler: { request in
                guard request.path == "/hang" else { return .text("ok") }
                hanging.yield()
                return .fault(.hang)
            }
        ) { server, lane in
            // The one stream, taken for good once the connection has answered.
            #expect(try await lane.send(HTTPRequest(url: server.url("/first"))).status == 200)
            let hanging = Task { () async throws(HTTPError) -> HTTPResponse in
                try await lane.send(HTTPRequest(url: server.url("/hang"), timeout: .seconds(30)))
            }
            for await _ in hangs { break }
            #expect(server.requests.contains { $0.path == "/hang" })
            await expectFailure(.timeout) { () async throws(HTTPError) in
                try await lane.send(HTTPRequest(url: server.url("/held-timeout"), timeout: .milliseconds(300)))
            }
            let cancelled = Task { () async throws(HTTPError) -> HTTPResponse in
                try await lane.send(HTTPRequest(url: server.url("/held-cancelled"), timeout: .seconds(30)))
            }
            // Held inside the lane, which announces nothing: a moment for it to get there (cancelled before,
            // it would fail with the same code).
            try await Task.sleep(for: .milliseconds(100))
            cancelled.cancel()
            do {
                _ = try await cancelled.value
                Issue.record("a cancelled request got a response")
            } catch {
                #expect((error as? HTTPError)?.code == .cancelled, "\(error)")
            }
            let atShutdown = Task { () async throws(HTTPError) -> HTTPResponse in
                try await lane.send(HTTPRequest(url: server.url("/held-shutdown"), timeout: .seconds(30)))
            }
            try await Task.sleep(for: .milliseconds(100))  // held, as above
            lane.shutdown()
            for task in [atShutdown, hanging] {
                do {
                    _ = try await task.value
                    Issue.record("a request got a response after shutdown")
                } catch {
                    #expect((error as? HTTPError)?.code == .shutdown, "\(error)")
                }
            }
            #expect(!server.requests.contains { $0.path.hasPrefix("/held") })
            #expect(server.connectionCount == 1)
        }
    }
}
