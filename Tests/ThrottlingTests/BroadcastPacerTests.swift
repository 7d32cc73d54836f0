import Testing
import Throttling

@Suite("Broadcast pacing per channel")
struct BroadcastPacerTests {
    @Test func atMostLimitInAnyWindowPerChannel() {
        var pacer = BroadcastPacer()
        #expect(pacer.admit(channel: "a", limit: 2, window: 60, now: 100) == .allow)
        #expect(pacer.admit(channel: "a", limit: 2, window: 60, now: 110) == .allow)
        // The third waits until the first leaves the window; another channel is not affected.
        #expect(pacer.admit(channel: "a", limit: 2, window: 60, now: 120) == .deferUntil(160))
        #expect(pacer.admit(channel: "b", limit: 2, window: 60, now: 120) == .allow)
        // A deferred broadcast spent nothing: at its time it goes.
        #expect(pacer.admit(channel: "a", limit: 2, window: 60, now: 160) == .allow)
        #expect(pacer.admit(channel: "a", limit: 2, window: 60, now: 165) == .deferUntil(170))
    }

    @Test func noLimitPacesNothingAndAForgottenChannelStartsAfresh() {
        var pacer = BroadcastPacer()
        for t in 0..<100 { #expect(pacer.admit(channel: "a", limit: 0, window: 60, now: t) == .allow) }
        #expect(pacer.admit(channel: "b", limit: 1, window: 60, now: 0) == .allow)
        #expect(pacer.admit(channel: "b", limit: 1, window: 60, now: 1) == .deferUntil(60))
        pacer.forget("b")
        #expect(pacer.admit(channel: "b", limit: 1, window: 60, now: 2) == .allow)
    }
}
