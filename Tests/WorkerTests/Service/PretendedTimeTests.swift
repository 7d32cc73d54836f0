import Foundation
import LiveRelayTesting
import Testing

/// `tick --now` pretends a time for feeds, rules, timers and timestamps, never for credentials: the fake
/// APNs (as Apple) checks a provider token's `iat` on its own, real clock.
@Suite("Pretended time", .serialized)
struct PretendedTimeTests {
    /// A kick-off replayed three days in the past still gets its start through: the provider token is
    /// signed with the real time. (Signed with the pretended time, APNs answers `ExpiredProviderToken`.)
    @Test func tickNowSignsCredentialsWithTheRealClock() async throws {
        try await KillPointTests.withBed(devices: 2) { bed in
            let kickOff = KillPointTests.realNow - 3 * 86_400
            bed.feed.advance(to: 0)
            #expect(try await bed.tick(at: kickOff - 60).status == 0)
            bed.feed.advance(to: 1)
            let tick = try await bed.tick(at: kickOff)
            #expect(tick.status == 0, "\(tick.standardError)")
            #expect(bed.fake.rejections.isEmpty, "\(bed.fake.rejections)")
            #expect(bed.fake.accepted.count == 2, "one start per device")
        }
    }
}
