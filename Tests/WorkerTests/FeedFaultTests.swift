import Feeds
import Foundation
import LiveRelayCore
import LiveRelayTesting
import Store
import Testing
import Worker

/// Every fault a feed can have, injected by the loopback feed server between two good polls: the fault is a
/// feed error with a clear message, no change is emitted, no push results, the previous facts stay, the
/// other feed goes on, and the next good body is read as if nothing had happened.
@Suite struct FeedFaultTests {
    static let faults: [(FeedServer.Fault, FeedError.Kind, String)] = [
        (.hang, .transport, "timed out"),
        (.reset, .transport, ""),
        (.status(500), .httpStatus, #"HTTP 500: "{"error":"HTTP 500"}""#),
        (.status(503, retryAfter: "30"), .httpStatus, "HTTP 503, Retry-After 30"),
        (.htmlErrorPage(status: 200), .invalidJSON, #"it starts with "<html><head><title>502 Bad Gateway"#),
        (.htmlErrorPage(status: 502), .httpStatus, "HTTP 502"),
        (.empty, .invalidJSON, "the body is empty"),
        (.truncated, .invalidJSON, "body is not valid JSON"),
        (.wrongShape, .shape, "/0/symbol is missing"),
        (.oversize(bytes: 1 << 20), .tooLarge, "exceeds the limit of 524288 bytes"),
        (.invalidUTF8, .invalidJSON, "invalid UTF-8 in a string"),
        (.invalidUTF8Key, .invalidJSON, "invalid UTF-8 in a string"),
        (.duplicateKey, .invalidJSON, "duplicate key \"symbol\""),
    ]

    @Test(arguments: faults)
    func aFaultEmitsNoChangeAndTheOtherFeedGoesOn(fault: FeedServer.Fault, kind: FeedError.Kind, words: String)
        async throws
    {
        let bed = try await FeedTestBed()
        let feeds = [bed.feed("markets"), bed.feed("scores")]
        // Two good polls: the symbols are first seen, then BTCUSDT falls past -5 % and its activity starts.
        _ = try await bed.tick(feeds, at: FeedTestBed.start)
        let second = try await bed.tick(feeds, at: FeedTestBed.start + 64)
        #expect(!second.failed)
        #expect(bed.recorder.of("price-").map(\.event) == [.start])
        let factsBefore = try await bed.store.facts(feed: "markets")

        bed.markets.inject(fault)
        var impatient = feeds
        impatient[0].timeout = 1  // so that the hanging server is given up on after a second
        let faulty = try await bed.tick(impatient, at: FeedTestBed.start + 154)
        let error = try #require(faulty.feeds[0].error)
        #expect(error.kind == kind)
        #expect(error.description.hasPrefix("feed markets (\(bed.markets.url)): "), "\(error)")
        #expect(words.isEmpty || error.message.contains(words), "\(error.message)")
        #expect(faulty.feeds[0].changes == 0)
        #expect(try await bed.store.facts(feed: "markets") == factsBefore, "the previous facts stay")
        #expect(bed.recorder.of("price-").map(\.event) == [.start], "no push from a fault (no \"symbol gone\" end)")
        // The other feed was not held up: its match went on (Egypt score at 44').
        #expect(faulty.feeds[1].error == nil)
        #expect(faulty.feeds[1].changes == 1)
        #expect(bed.recorder.of("match-").map(\.event) == [.start, .update, .update])

        // The feed heals: the body that was due is read, BNBUSDT's drop starts its activity.
        let healed = try await bed.tick(feeds, at: FeedTestBed.start + 200)
        #expect(healed.feeds[0].error == nil)
        #expect(healed.feeds[0].changes == 2)
        // Sends to different activities go out concurrently: compare the pushes of each activity.
        #expect(bed.recorder.of("price-BTCUSDT").map(\.event) == [.start, .update])
        #expect(bed.recorder.of("price-BNBUSDT").map(\.event) == [.start])
        await bed.stop()
    }
}
