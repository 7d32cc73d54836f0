import ServiceLifecycle

/// A clock whose sleeps end, throwing `CancellationError`, when a graceful shutdown begins (at once when
/// one has begun). The worker's loops sleep on it: a shutdown cuts their waits short without cancelling a
/// poll or a delivery under way.
struct GracefulShutdownClock<Base: Clock<Duration>>: Clock {
    typealias Instant = Base.Instant

    let base: Base

    var now: Instant { base.now }
    var minimumResolution: Duration { base.minimumResolution }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try await cancellingOnGracefulShutdown { [base] in try await base.sleep(until: deadline, tolerance: tolerance) }
    }
}

/// `clock`, its sleeps ending on graceful shutdown.
func endingOnGracefulShutdown(_ clock: any Clock<Duration>) -> any Clock<Duration> {
    func wrap<C: Clock<Duration>>(_ clock: C) -> any Clock<Duration> { GracefulShutdownClock(base: clock) }
    return wrap(clock)
}
