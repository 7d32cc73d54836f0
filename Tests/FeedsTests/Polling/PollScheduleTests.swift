import Feeds
import Testing

/// The polling schedule, driven with explicit times and random draws.
@Suite struct PollScheduleTests {
    var schedule = PollSchedule(policy: .init(interval: .seconds(30), jitter: 0.1, backoffCap: .seconds(600)))
    let now = 1_766_847_600

    @Test mutating func aHealthyFeedPollsEveryIntervalPlusJitter() {
        #expect(
            schedule.record(PollOutcome(.fresh), now: now, random: 0)
                == PollDecision(delay: .seconds(30), reason: .interval))
        #expect(schedule.record(PollOutcome(.notModified), now: now, random: 0.5).delay == .seconds(31.5))
        #expect(schedule.record(PollOutcome(.fresh), now: now, random: 0.999).delay < .seconds(33))
    }

    @Test mutating func failuresBackOffExponentiallyUpToTheCapAndASuccessRecovers() {
        let failed = PollOutcome(.failed(.transport))
        let delays = (1...8).map { _ in schedule.record(failed, now: now, random: 0).delay }
        #expect(delays == [30, 60, 120, 240, 480, 600, 600, 600].map { .seconds($0) })
        #expect(schedule.consecutiveFailures == 8)
        #expect(
            schedule.record(PollOutcome(.fresh), now: now, random: 0)
                == PollDecision(delay: .seconds(30), reason: .interval))
        #expect(schedule.consecutiveFailures == 0)
        #expect(schedule.record(failed, now: now, random: 0).reason == .backoff(failures: 1))
    }

    @Test mutating func cacheControlMaxAgeIsAFloor() {
        let longer = PollOutcome(.fresh, status: 200, cacheControl: "public, max-age=120")
        #expect(
            schedule.record(longer, now: now, random: 0)
                == PollDecision(delay: .seconds(120), reason: .cacheMaxAge(120)))
        #expect(schedule.record(longer, now: now, random: 1).delay == .seconds(132), "jitter only adds")
        let shorter = PollOutcome(.fresh, status: 200, cacheControl: "public,max-age=1,smaxage=1")
        #expect(schedule.record(shorter, now: now, random: 0).reason == .interval)
        let binance = PollOutcome(.fresh, status: 200, cacheControl: "no-cache, no-store, must-revalidate")
        #expect(schedule.record(binance, now: now, random: 0).reason == .interval)
    }

    @Test mutating func retryAfterOn429And503IsHonoured() {
        let limited = PollOutcome(.failed(.httpStatus), status: 429, retryAfter: "90")
        #expect(
            schedule.record(limited, now: now, random: 0) == PollDecision(delay: .seconds(90), reason: .retryAfter(90)))
        #expect(schedule.notBefore == now + 90)
        // An HTTP date, 5 minutes ahead of `now` (2025-12-27T15:00:00Z).
        let date = PollOutcome(.failed(.httpStatus), status: 503, retryAfter: "Sat, 27 Dec 2025 15:05:00 GMT")
        #expect(
            schedule.record(date, now: now, random: 0) == PollDecision(delay: .seconds(300), reason: .retryAfter(300)))
        // A backoff longer than Retry-After wins; a 503 without it backs off like any failure.
        let short = PollOutcome(.failed(.httpStatus), status: 503, retryAfter: "1")
        #expect(
            schedule.record(short, now: now, random: 0)
                == PollDecision(delay: .seconds(120), reason: .backoff(failures: 3)))
        #expect(
            schedule.record(PollOutcome(.failed(.httpStatus), status: 503), now: now, random: 0).reason
                == .backoff(failures: 4))
    }

    @Test mutating func binance418IsABanUntilItsRetryAfter() {
        let banned = PollOutcome(.failed(.httpStatus), status: 418, retryAfter: "480")
        #expect(
            schedule.record(banned, now: now, random: 0) == PollDecision(delay: .seconds(480), reason: .banned(480)))
        #expect(schedule.notBefore == now + 480)
        let noHeader = PollOutcome(.failed(.httpStatus), status: 418)
        #expect(
            schedule.record(noHeader, now: now, random: 0) == PollDecision(delay: .seconds(600), reason: .banned(600)))
        #expect(schedule.record(PollOutcome(.fresh), now: now, random: 0).reason == .interval)
        #expect(schedule.notBefore == nil)
    }

    /// One answer never silences a live feed: on a 15-s feed a year's `max-age` is cut to 4 intervals, a
    /// `Retry-After` in 2099 and a two-hour ban to 5 minutes (20 intervals, at least 5 minutes), and the
    /// decision says so; a rate limit's `Retry-After: 120` is honoured as asked.
    @Test func whatAServerAsksIsCappedByTheFeedsInterval() {
        var live = PollSchedule(policy: .init(interval: .seconds(15)))
        let year = PollOutcome(.fresh, status: 200, cacheControl: "max-age=31536000")
        #expect(
            live.record(year, now: now, random: 0)
                == PollDecision(delay: .seconds(60), reason: .cacheMaxAge(60), cappedFrom: 31_536_000))
        let later = PollOutcome(.failed(.httpStatus), status: 503, retryAfter: "Thu, 01 Jan 2099 00:00:00 GMT")
        let decision = live.record(later, now: now, random: 0)
        #expect(decision.delay == .seconds(300))
        #expect(decision.reason == .retryAfter(300))
        #expect((decision.cappedFrom ?? 0) > 2_000_000_000 - now)
        #expect(live.notBefore == now + 300)
        #expect(decision.description.hasPrefix("next poll in 300 s (Retry-After 300 s, capped: the server asked for "))
        let limited = PollOutcome(.failed(.httpStatus), status: 429, retryAfter: "120")
        #expect(
            live.record(limited, now: now, random: 0) == PollDecision(delay: .seconds(120), reason: .retryAfter(120)))
        let ban = PollOutcome(.failed(.httpStatus), status: 418, retryAfter: "7200")
        #expect(
            live.record(ban, now: now, random: 0)
                == PollDecision(delay: .seconds(300), reason: .banned(300), cappedFrom: 7200))
        var patient = PollSchedule(policy: .init(interval: .seconds(15), longestWait: .seconds(7200)))
        #expect(
            patient.record(ban, now: now, random: 0) == PollDecision(delay: .seconds(7200), reason: .banned(7200)))
        #expect(
            patient.record(year, now: now, random: 0)
                == PollDecision(delay: .seconds(60), reason: .cacheMaxAge(60), cappedFrom: 31_536_000))
    }

    /// The default caps follow the interval: a minute's feed waits up to 20 minutes for a server, an hour at
    /// most; a feed polled hourly or less often still honours at least its own interval.
    @Test(arguments: [(5, 300, 20), (15, 300, 60), (60, 1200, 240), (600, 3600, 2400), (7200, 7200, 7200)])
    func defaultCapsFollowTheInterval(interval: Int, wait: Int, maxAge: Int) {
        let policy = PollSchedule.Policy(interval: .seconds(interval))
        #expect(policy.longestWait == .seconds(wait))
        #expect(policy.longestMaxAge == .seconds(maxAge))
    }

    @Test func countersCountRequestsNotModifiedAndErrorsByKind() {
        var counters = PollCounters()
        counters.record(PollOutcome(.fresh), now: 10)
        counters.record(PollOutcome(.notModified), now: 20)
        counters.record(PollOutcome(.failed(.shape)), now: 30)
        counters.record(PollOutcome(.failed(.httpStatus)), now: 40)
        counters.record(PollOutcome(.failed(.httpStatus)), now: 50)
        #expect(counters.requests == 5)
        #expect(counters.notModified == 1)
        #expect(counters.errors == ["shape": 1, "http_status": 2])
        #expect(counters.errorCount == 3)
        #expect(counters.lastSuccess == 20)
        #expect(counters.lastFailure == 50)
        #expect(counters.consecutiveFailures == 3)
    }
}
