/// The one lifecycle every sports preset reports as the `state` fact, whatever the provider calls it.
///
/// `scheduled → live ⇄ break → final`, or `postponed` / `cancelled` instead. The provider's own status
/// stays available as the `status` fact.
public enum SportState: String, Sendable, Hashable, CaseIterable {
    /// Not started yet (ESPN `pre`, football-data `TIMED`/`SCHEDULED`); a delay before the start too.
    case scheduled
    /// In play: a half, a quarter, extra time, a penalty shoot-out.
    case live
    /// Play has stopped and will resume: half-time, the end of a period, a break before extra time.
    case `break`
    /// Over, with a result (full time, after extra time, after penalties, awarded, forfeit).
    case final
    /// Will be played (or finished) another time: postponed or suspended.
    case postponed
    /// Will not be played: cancelled or abandoned.
    case cancelled
}

/// Which way a sport's clock runs, reported as the `clock.direction` fact next to `clock.seconds`.
public enum ClockDirection: String, Sendable, Hashable, CaseIterable {
    /// `clock.seconds` counts the time played (soccer, rugby).
    case up
    /// `clock.seconds` counts the time left in the period (basketball, American football, hockey).
    case down
}
