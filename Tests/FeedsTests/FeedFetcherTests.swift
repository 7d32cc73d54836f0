import Feeds
import Foundation
import HTTP
import LiveRelayTesting
import Testing

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
            id: "pl", url: server.url("/v4/competitions/PL/matches?season=2025"), timeout: 60,
            headers: [("X-Auth-Token", "s3cr3t-t0ken")], normalizer: FootballDataNormalizer())
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

    /// A redirect is not followed; the error says so and where it pointed (redacted like any URL).
    @Test func aRedirectSaysItIsNotFollowedAndWhereItPoints() async throws {
        let server = try await LoopbackHTTPServer.start { _ in
            ServerResponse(
                status: 302, headers: [("location", "https://feeds.example/v5/matches?key=s3cr3t")], body: Data())
        }
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        let feed = FeedRuntime(
            id: "pl", url: server.url("/v4/matches"), timeout: 60, normalizer: FootballDataNormalizer())
        let response = await FeedFetcher(transport: transport).response(feed, validators: nil)
        guard case .failure(let error) = response.result else {
            Issue.record("expected a feed error")
            return
        }
        #expect(
            error.description
                == "feed pl (\(server.url("/v4/matches"))): HTTP 302, a redirect to https://feeds.example/v5/matches?key=…, which is not followed: give the feed its new URL"
        )
        try await server.stop()
    }
}
