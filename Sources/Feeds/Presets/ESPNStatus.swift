/// ESPN status names (`status.type.name`) and the lifecycle state each one means.
///
/// Names not listed fall back on ESPN's own coarse `status.type.state`: `pre` → scheduled, `in` → live,
/// `post` → final. Delays follow `status.type.state` too: before the start a delay is still `scheduled`,
/// during play it is a `break`.
enum ESPNStatus {
    static let states: [String: SportState] = [
        "STATUS_SCHEDULED": .scheduled,
        "STATUS_TBD": .scheduled,
        "STATUS_IN_PROGRESS": .live,
        "STATUS_FIRST_HALF": .live,
        "STATUS_SECOND_HALF": .live,
        "STATUS_OVERTIME": .live,
        "STATUS_SHOOTOUT": .live,
        "STATUS_HALFTIME": .break,
        "STATUS_END_PERIOD": .break,
        "STATUS_END_OF_REGULATION": .break,
        "STATUS_HALFTIME_ET": .break,
        "STATUS_END_OF_EXTRATIME": .break,
        "STATUS_FINAL": .final,
        "STATUS_FINAL_OT": .final,
        "STATUS_FULL_TIME": .final,
        "STATUS_FINAL_AET": .final,
        "STATUS_FINAL_PEN": .final,
        "STATUS_FORFEIT": .final,
        "STATUS_FORFEIT_HOME_TEAM": .final,
        "STATUS_FORFEIT_AWAY_TEAM": .final,
        "STATUS_POSTPONED": .postponed,
        "STATUS_SUSPENDED": .postponed,
        "STATUS_CANCELED": .cancelled,
        "STATUS_CANCELLED": .cancelled,
        "STATUS_ABANDONED": .cancelled,
    ]

    /// Statuses whose meaning depends on whether play had started.
    static let delays: Set<String> = ["STATUS_DELAYED", "STATUS_RAIN_DELAY"]

    /// The state of a status name and ESPN's `pre`/`in`/`post`, or `nil` when neither is known.
    static func state(name: String, phase: String?) -> SportState? {
        if delays.contains(name) {
            switch phase {
            case "pre": return .scheduled
            case "in": return .break
            default: break
            }
        }
        if let known = states[name] { return known }
        switch phase {
        case "pre": return .scheduled
        case "in": return .live
        case "post": return .final
        default: return nil
        }
    }
}
