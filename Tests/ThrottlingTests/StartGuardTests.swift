import Testing
import Throttling

/// One start per device and activity, decided from when the start went and when the app reported the token.
@Suite struct StartGuardTests {
    @Test func aDeviceGetsOneStartUnlessRestartAfterPassesWithoutAToken() {
        #expect(StartGuard.decide(startedAt: nil, tokenAt: nil, now: 100, restartAfter: nil) == .send)
        #expect(
            StartGuard.decide(startedAt: 100, tokenAt: nil, now: 10_000, restartAfter: nil)
                == .skip(reason: "the activity was started on the device already"))
        #expect(
            StartGuard.decide(startedAt: 100, tokenAt: nil, now: 699, restartAfter: 600)
                == .skip(reason: "the activity was started on the device already"))
        #expect(StartGuard.decide(startedAt: 100, tokenAt: nil, now: 700, restartAfter: 600) == .send)
    }

    @Test func aDeviceThatReportedTheTokenNeverGetsAStart() {
        let runs = StartGuard.Verdict.skip(reason: "the device runs the activity already (it reported its token)")
        #expect(StartGuard.decide(startedAt: nil, tokenAt: 50, now: 100, restartAfter: nil) == runs)
        #expect(StartGuard.decide(startedAt: 10, tokenAt: 50, now: 100_000, restartAfter: 600) == runs)
    }
}
