import Feeds
import Foundation
import LiveRelayCore
import Testing

/// Inputs the fuzz targets in `Fuzz/` found (see the Fuzzing section of docs/reliability.md), reduced.
@Suite struct FeedsFuzzRegressionTests {
    /// fuzz-feeds: a CoinGecko `last_updated_at` of 1355692233720368547758077 (beyond 64 bits even as
    /// milliseconds) trapped converting the number to `Int`, so one body crashed the worker. It is now a
    /// shape error of that body, as any other value that is no time.
    @Test func aTimeBeyondSixtyFourBitsIsRefusedNotACrash() throws {
        for time in ["1355692233720368547758077", "1e22", "-1e19", "-1e20"] {
            let body = Data(#"{"bitcoin": {"usd": 34402.5, "last_updated_at": \#(time)}}"#.utf8)
            #expect(throws: NormalizationFailure.self, "\(time)") { try CoinGeckoPriceNormalizer().normalize(body) }
        }
        let mapping = try GenericNormalizer(
            GenericMapping(entities: "/events", id: "/id", fields: ["start": FieldMapping(pointer: "/t", type: .time)]))
        #expect(throws: NormalizationFailure.self) {
            try mapping.normalize(Data(#"{"events": [{"id": "1", "t": -1e19}]}"#.utf8))
        }
        // Seconds and milliseconds in range still read, fractions dropped.
        let facts = try mapping.normalize(Data(#"{"events": [{"id": "1", "t": 1711356420123.9}]}"#.utf8))
        #expect(facts["1"]?.value == ["start": 1_711_356_420])
        let seconds = try mapping.normalize(Data(#"{"events": [{"id": "1", "t": 1711356420.5}]}"#.utf8))
        #expect(seconds["1"]?.value == ["start": 1_711_356_420])
    }
}
