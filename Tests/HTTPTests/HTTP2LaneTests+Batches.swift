import Foundation
import HTTP
import LiveRelayTesting
import Synchronization
import Testing

/// A batch: requests that share their fields and body, as one push goes to many tokens.
extension HTTP2LaneTests {
    /// Shared fields, then each request's path and own fields, the body once for all; `count` items to
    /// `/n/<i>`, each with its own `apns-id`.
    static func batch(_ server: LoopbackHTTPServer, count: Int, keepsSuccessHeaders: Bool = false) -> HTTPRequestBatch {
        HTTPRequestBatch(
            shared: HTTPRequest(
                method: "POST", url: server.url(""),
                headers: [HTTPHeader("apns-topic", "com.example"), HTTPHeader("authorization", "bearer T")],
                body: Data(#"{"aps":{}}"#.utf8)),
            items: (0..<count).map {
                HTTPRequestBatch.Item(path: "/n/\($0)", headers: [HTTPHeader("APNs-ID", "id-\($0)")])
            },
            keepsSuccessHeaders: keepsSuccessHeaders)
    }

    @Test func aBatchSendsEachRequestWithTheSharedFieldsAndAnswersInItsOrder() async throws {
        try await withLane(handler: { request in
            if request.path == "/n/7" {
                return ServerResponse(
                    status: 410, headers: [("apns-id", "id-7")], body: Data(#"{"reason":"Unregistered"}"#.utf8))
            }
            return ServerResponse(status: 200, headers: [("apns-id", "echo")], body: Data(request.path.utf8))
        }) { server, lane in
            let results = await lane.send(Self.batch(server, count: 300))
            #expect(results.count == 300)
            for (index, result) in results.enumerated() {
                let response = try result.get()
                if index == 7 {
                    // A refusal keeps what it said.
                    #expect(response.status == 410)
                    #expect(response.header("apns-id") == "id-7")
                    #expect(String(decoding: response.body, as: UTF8.self) == #"{"reason":"Unregistered"}"#)
                } else {
                    #expect(response.status == 200)
                    #expect(String(decoding: response.body, as: UTF8.self) == "/n/\(index)")
                    // A success's header fields are left out unless the batch keeps them.
                    #expect(response.headers.isEmpty)
                }
            }
            #expect(server.requests.count == 300)
            for seen in server.requests {
                let index = try #require(Int(seen.path.dropFirst(3)))
                let fields = Dictionary(seen.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
                #expect(seen.method == "POST")
                #expect(fields["apns-topic"] == "com.example")
                #expect(fields["authorization"] == "bearer T")
                #expect(fields["apns-id"] == "id-\(index)")
                #expect(fields["content-length"] == "10")
                #expect(fields["user-agent"] == "LiveRelay")
                #expect(String(decoding: seen.body, as: UTF8.self) == #"{"aps":{}}"#)
            }
            // Kept when asked.
            let kept = await lane.send(Self.batch(server, count: 2, keepsSuccessHeaders: true))
            #expect(try kept[1].get().header("apns-id") == "echo")
        }
    }

    @Test func aBatchOutlivesAGoAwayAndADroppedConnectionWithNothingLostOrSentTwiceBeyondTheInFlight() async throws {
        try await withLane(handler: LaneFaults.goAwayOnce(at: "/n/100")) { server, lane in
            let results = await lane.send(Self.batch(server, count: 300))
            #expect(answered(results) == (0..<300).map { "/n/\($0)" }, "\(failures(results))")
            #expect(server.connectionCount == 2)
            let again = server.requests.filter { $0.connectionID == 2 }.count
            #expect(again > 0 && again < 300, "\(again) requests on the second connection")
        }
        try await withLane(handler: LaneFaults.dropOnce(at: "/n/20")) { server, lane in
            let results = await lane.send(Self.batch(server, count: 60))
            #expect(answered(results) == (0..<60).map { "/n/\($0)" }, "\(failures(results))")
            #expect(server.connectionCount == 2)
            // Each request went at most twice: once on the connection that dropped, once after.
            let paths = server.requests.map(\.path)
            #expect(Set(paths).count == 60)
            #expect(Dictionary(grouping: paths, by: { $0 }).values.allSatisfy { $0.count <= 2 })
        }
    }

    @Test func aCancelledBatchKeepsItsAnswersAndCancelsTheRest() async throws {
        let hanging = Arrivals()
        try await withLane(handler: { request in
            guard let index = Int(request.path.dropFirst(3)), index % 2 == 1 else { return .text(request.path) }
            hanging.arrived()
            return .fault(.hang)
        }) { server, lane in
            let task = Task { await lane.send(Self.batch(server, count: 10)) }
            #expect(await hanging.wait(for: 5))
            task.cancel()
            let results = await task.value
            // The hanging ones are cancelled; an answered one keeps its answer (one whose answer the lane had
            // not read yet when the cancel came is cancelled too).
            for (index, result) in results.enumerated() {
                switch result {
                case .success(let response): #expect(index % 2 == 0 && response.status == 200)
                case .failure(let error): #expect(error.code == .cancelled, "\(error)")
                }
            }
            #expect(results.enumerated().filter { $0.offset % 2 == 1 }.allSatisfy { (try? $0.element.get()) == nil })
            // The connection goes on.
            let after = try await lane.send(HTTPRequest(url: server.url("/after")))
            #expect(after.status == 200)
        }
    }

    @Test func aBatchWhoseURLHasAPathOrAnotherSchemeIsRefusedWhole() async throws {
        try await withLane(handler: { _ in .text("never") }) { server, lane in
            for base in [server.url("/3"), "file:///tmp", "https://"] {
                var batch = Self.batch(server, count: 3)
                batch.shared.url = base
                let results = await lane.send(batch)
                #expect(results.count == 3)
                for result in results {
                    #expect(throws: HTTPError.self) { try result.get() }
                    if case .failure(let error) = result { #expect(error.code == .invalidURL) }
                }
            }
            #expect(await lane.send(HTTPRequestBatch(shared: HTTPRequest(url: server.url("")), items: [])).isEmpty)
            #expect(server.requests.isEmpty)
        }
    }

    @Test func aBatchFollowsALoweredStreamLimitAndAResetFailsOnlyItsRequest() async throws {
        let lowering = LoweringServer()
        try await withLane(handler: lowering.handler(resetting: "/n/50")) { server, lane in
            _ = try await lane.send(HTTPRequest(url: server.url("/lower")))
            lowering.lowered()
            let results = await lane.send(Self.batch(server, count: 200))
            #expect(answered(results) == (0..<200).filter { $0 != 50 }.map { "/n/\($0)" }, "\(failures(results))")
            if case .failure(let error) = results[50] {
                #expect(error.code == .connectionReset)
            } else {
                Issue.record("the reset request was answered: \(results[50])")
            }
            #expect(lowering.most <= 3)
            #expect(server.requests.count == 201)
            #expect(server.connectionCount == 1)
        }
    }

    /// The slow server of `aServerThatHoldsItsWindowsGetsEveryBodyWholeAndOnce`, 100 bytes of window at a
    /// time: the batch's one body goes out whole to every request, once each.
    @Test func aBatchsBodyGoesWholeToEachRequestThroughAServerThatHoldsItsWindows() async throws {
        let body = Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try await withLane(
            initialWindowSize: 100,
            handler: { request in
                try? await Task.sleep(for: .milliseconds(10))
                return .text(request.body == body ? request.path : "\(request.path) differs")
            }
        ) { server, lane in
            var batch = Self.batch(server, count: 60)
            batch.shared.body = body
            let results = await lane.send(batch)
            #expect(answered(results) == (0..<60).map { "/n/\($0)" }, "\(failures(results))")
            #expect(server.requests.count == 60)
        }
    }
}
