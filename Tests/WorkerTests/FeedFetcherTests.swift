import Feeds
import Foundation
import HTTP
import LiveRelayTesting
import Testing
import Worker

/// What the fetcher tells the schedule and the log about a response.
@Suite struct FeedFetcherTests {
    @Test func anErrorStatusKeepsTheSteeringHeadersAndNeverEchoesTheToken() async throws {
        let server = try await LoopbackHTTPServer.start { request in
            ServerResponse(
                status: 429, headers: [("retry-after", "60"), ("cache-control", "no-store")],
                body: Data(#"{"message": "Too many requests for token \#(request.header("X-Auth-Token") ?? "")"}"#.utf8)
            )
        }
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        let feed = FeedRuntime(
            id: "pl", url: server.url("/v4/competitions/PL/matches?season=2025"), normalizer: FootballDataNormalizer(),
            headers: [("X-Auth-Token", "s3cr3t-t0ken")], timeout: 60)
        let response = await FeedFetcher(transport: transport).response(feed, validators: nil)
        #expect(response.status == 429, "\(response.result)")
        #expect(response.retryAfter == "60")
        #expect(response.cacheControl == "no-store")
        guard case .failure(let error) = response.result else {
            Issue.record("expected a feed error")
            return
        }
        #expect(error.kind == .httpStatus, "\(error)")
        #expect(
            error.description
                == #"feed pl (\#(server.url("/v4/competitions/PL/matches?season=…"))): HTTP 429, Retry-After 60: "{"message": "Too many requests for token …"}""#
        )
        try await server.stop()
    }
}
