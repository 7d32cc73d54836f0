import Delivery
import Testing

/// Identical log events: the first written, the rest counted, one more per window with the count.
@Suite struct RepeatedLogTests {
    @Test func theFirstIsWrittenTheRestCountedAndToldOncePerWindow() {
        let start = ContinuousClock.now
        var log = RepeatedLog<ContinuousClock.Instant>(window: .seconds(10))
        #expect(log.record("push not sent", now: start) == 0)
        for i in 1...874 { #expect(log.record("push not sent", now: start + .milliseconds(i)) == nil) }
        #expect(log.record("other", now: start) == 0, "each kind is its own")
        #expect(log.record("push not sent", now: start + .seconds(10)) == 874)
        #expect(log.record("push not sent", now: start + .seconds(11)) == nil)
        #expect(log.drain() == ["push not sent": 1])
        #expect(log.drain().isEmpty)
        #expect(log.record("push not sent", now: start + .seconds(12)) == 0, "drained: the next is written")
    }
}
