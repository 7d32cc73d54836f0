import LiveRelayCore

/// Who won a final ESPN event: the competitors' `winner` flags when one is set, else the final score.
///
/// ESPN sets `"winner": true` on the winner of most finals, but not on every one (some leagues and some
/// recordings carry no flags, or `false` on both sides): the score then decides, so 108–105 is a home
/// win, not a draw.
enum ESPNResult {
    /// `home` or `away` when exactly one competitor's `winner` flag is `true`; `nil` when neither is (or
    /// both are, or the flags are missing).
    static func flagged(home: BodyNode, away: BodyNode) throws(NormalizationFailure) -> String? {
        let homeWon = try home.optional("winner")?.fact(.bool) == .bool(true)
        let awayWon = try away.optional("winner")?.fact(.bool) == .bool(true)
        switch (homeWon, awayWon) {
        case (true, false): return "home"
        case (false, true): return "away"
        default: return nil
        }
    }

    /// From the final score (`home`, `away`): the higher score wins; level scores go to the shoot-out when
    /// there was one, and are a draw otherwise. `nil` when a score is missing: nothing tells the result.
    static func fromScores(_ scores: [String: Int], shootouts: [String: Int]) -> String? {
        guard let home = scores["home"], let away = scores["away"] else { return nil }
        if home != away { return home > away ? "home" : "away" }
        if let homeShootout = shootouts["home"], let awayShootout = shootouts["away"], homeShootout != awayShootout {
            return homeShootout > awayShootout ? "home" : "away"
        }
        return "draw"
    }
}
