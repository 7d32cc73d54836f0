/// The facts of the two sports presets. They share their names (one rule file serves both); what each
/// one reads them from, and when they are there, differs.
extension ESPNScoreboardNormalizer {
    /// Every fact an ESPN scoreboard event can have.
    public static let catalogue: [FactDescription] = [
        FactDescription("state", .string, "the lifecycle: scheduled, live, break, final, postponed or cancelled"),
        FactDescription("status", .string, "ESPN's status name (`STATUS_FIRST_HALF`, `STATUS_FINAL_OT`)"),
        FactDescription(
            "statusText", .string, "ESPN's status as it words it, `status.type.detail` (`44'`, `HT`, `Final/OT`)",
            condition: "when the status has a detail"),
        FactDescription(
            "statusShortText", .string, "the short wording, `status.type.shortDetail` (`Scheduled`, `7:03 - 3rd`)",
            condition: "when the status has a short detail"),
        FactDescription("start", .time, "the scheduled start (`date`)"),
        FactDescription(
            "period", .int, "the period: halves and extra time (5 is a shoot-out), quarters, overtimes",
            condition: "once play has started (period above 0)"),
        FactDescription(
            "clock.seconds", .int,
            "whole seconds on the clock: elapsed when `clock.direction` is `up`, left in the period when `down`",
            condition: "when the status has a clock"),
        FactDescription(
            "clock.direction", .string,
            "`up` (soccer, rugby) or `down` (the other sports), by the sport, or the `clock-direction` option",
            condition: "with `clock.seconds`"),
        FactDescription(
            "clock.display", .string, "the clock as ESPN shows it (`44'`, `90'+6'`, `7:03`)",
            condition: "when the status has `displayClock`"),
        FactDescription("home.name", .string, "the home team's `displayName`"),
        FactDescription("away.name", .string, "the away team's `displayName`"),
        FactDescription(
            "home.abbr", .string, "the home team's `abbreviation`", condition: "when the team has an abbreviation"),
        FactDescription(
            "away.abbr", .string, "the away team's `abbreviation`", condition: "when the team has an abbreviation"),
        FactDescription(
            "home.score", .int, "the home side's goals or points", condition: "once the event is no longer scheduled"),
        FactDescription(
            "away.score", .int, "the away side's goals or points", condition: "once the event is no longer scheduled"),
        FactDescription(
            "home.shootout", .int, "the home side's penalty shoot-out goals", condition: "after a shoot-out"),
        FactDescription(
            "away.shootout", .int, "the away side's penalty shoot-out goals", condition: "after a shoot-out"),
        FactDescription(
            "winner", .string,
            "`home`, `away` or `draw`: the `winner` flag, else the higher score, else the shoot-out",
            condition: "when `state` is `final` and a flag or both scores tell it (a forfeit: the flag only)"),
    ]

    /// The catalogue of this preset (``catalogue``).
    public var factCatalogue: [FactDescription]? { Self.catalogue }
}

extension FootballDataNormalizer {
    /// Every fact a football-data.org match can have.
    public static let catalogue: [FactDescription] = [
        FactDescription("state", .string, "the lifecycle: scheduled, live, break, final, postponed or cancelled"),
        FactDescription("status", .string, "football-data's status (`TIMED`, `IN_PLAY`, `PAUSED`, `FINISHED`)"),
        FactDescription("start", .time, "the scheduled start (`utcDate`)"),
        FactDescription(
            "clock.seconds", .int, "the minute played (`minute` plus `injuryTime`) in seconds",
            condition: "when the match has `minute` (not on the free tier)"),
        FactDescription("clock.direction", .string, "always `up`", condition: "with `clock.seconds`"),
        FactDescription(
            "clock.display", .string, "the minute as shown (`67'`, `90'+3'`)", condition: "with `clock.seconds`"),
        FactDescription(
            "home.name", .string, "the home team's `shortName`, else its `name`",
            condition: "once the team is known (a knockout fixture may not know it yet)"),
        FactDescription(
            "away.name", .string, "the away team's `shortName`, else its `name`",
            condition: "once the team is known (a knockout fixture may not know it yet)"),
        FactDescription("home.abbr", .string, "the home team's `tla`", condition: "when the team has a `tla`"),
        FactDescription("away.abbr", .string, "the away team's `tla`", condition: "when the team has a `tla`"),
        FactDescription(
            "home.score", .int, "the home side's goals (`score.fullTime`; after a shoot-out, regular plus extra time)",
            condition: "once the match has a score"),
        FactDescription(
            "away.score", .int, "the away side's goals (`score.fullTime`; after a shoot-out, regular plus extra time)",
            condition: "once the match has a score"),
        FactDescription(
            "home.shootout", .int, "the home side's penalty shoot-out goals", condition: "after a shoot-out"),
        FactDescription(
            "away.shootout", .int, "the away side's penalty shoot-out goals", condition: "after a shoot-out"),
        FactDescription(
            "winner", .string, "`home`, `away` or `draw`, from `score.winner`",
            condition: "when `state` is `final` and `score.winner` is set"),
    ]

    /// The catalogue of this preset (``catalogue``).
    public var factCatalogue: [FactDescription]? { Self.catalogue }
}
