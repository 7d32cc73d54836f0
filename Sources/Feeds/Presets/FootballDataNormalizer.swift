public import Foundation
public import LiveRelayCore

/// football-data.org v4 matches (`/v4/competitions/{code}/matches`, `/v4/matches`, or one
/// `/v4/matches/{id}`): one entity per match, keyed by the match id.
///
/// The lifecycle is `TIMED`/`SCHEDULED → IN_PLAY ⇄ PAUSED → FINISHED`. During play `score.fullTime` is the
/// running score and `score.winner` is provisional, so `winner` is only reported once the match is final.
/// After a shoot-out the score is the goals of regular and extra time, and the shoot-out is
/// `home.shootout`/`away.shootout`, as ESPN reports them. The free tier sends no minute: `clock.*` facts
/// appear only when the match carries `minute`; football-data has no period.
public struct FootballDataNormalizer: FeedNormalizer {
    /// football-data statuses and the lifecycle state each one means.
    public static let states: [String: SportState] = [
        "SCHEDULED": .scheduled,
        "TIMED": .scheduled,
        "IN_PLAY": .live,
        "LIVE": .live,
        "EXTRA_TIME": .live,
        "PENALTY_SHOOTOUT": .live,
        "PAUSED": .break,
        "FINISHED": .final,
        "AWARDED": .final,
        "POSTPONED": .postponed,
        "SUSPENDED": .postponed,
        "CANCELLED": .cancelled,
    ]

    /// Creates the normaliser; it has no options.
    public init() {}

    /// The facts of every entity in `body`; any problem fails the whole body.
    public func normalize(_ body: Data) throws(NormalizationFailure) -> [String: Facts] {
        let root = try BodyNode.parse(body)
        // `/v4/matches/{id}` answers with the match itself.
        let single = root.value["matches"] == nil && root.value["id"] != nil
        let matches = single ? [root] : try root.member("matches", of: "a football-data match list").elements()
        var out: [String: Facts] = [:]
        for match in matches {
            let idNode = try match.member("id")
            let id: String
            switch idNode.value {
            case .int(let i): id = String(i)
            case .string(let s) where !s.isEmpty: id = s
            default: throw idNode.mismatch("an integer")
            }
            guard out[id] == nil else { throw .shape("\(match.place): duplicate match id \(id)") }
            do {
                out[id] = try facts(of: match)
            } catch {
                throw error.about("match \(id)")
            }
        }
        return out
    }

    private func facts(of match: BodyNode) throws(NormalizationFailure) -> Facts {
        let statusNode = try match.member("status")
        let status = try statusNode.string()
        guard let state = Self.states[status] else {
            throw .shape(
                "\(statusNode.place) is the unknown status \"\(status)\" (known: \(Self.states.keys.sorted().joined(separator: ", ")))"
            )
        }
        var facts = Facts()
        facts.set("state", .string(state.rawValue))
        facts.set("status", .string(status))
        facts.set("start", try match.member("utcDate").fact(.time))
        let score = try match.member("score")
        let duration = try score.optional("duration")?.string()
        for (side, teamKey) in [("home", "homeTeam"), ("away", "awayTeam")] {
            let team = try match.member(teamKey)
            // A knockout fixture whose teams are not known yet has null names.
            if let name = team.optional("shortName") ?? team.optional("name") {
                facts.set("\(side).name", .string(try name.string()))
            }
            if let tla = team.optional("tla") { facts.set("\(side).abbr", .string(try tla.string())) }
            if let goals = try Self.goals(score, side: side, duration: duration) {
                facts.set("\(side).score", .int(goals))
            }
            if duration == "PENALTY_SHOOTOUT", let penalties = try score.optional("penalties")?.optional(side)?.int() {
                facts.set("\(side).shootout", .int(penalties))
            }
        }
        if let minute = try match.optional("minute")?.int() {
            let injury = try match.optional("injuryTime")?.int() ?? 0
            facts.set("clock.seconds", .int((minute + injury) * 60))
            facts.set("clock.direction", .string(ClockDirection.up.rawValue))
            facts.set("clock.display", .string(injury > 0 ? "\(minute)'+\(injury)'" : "\(minute)'"))
        }
        if state == .final, let winner = try score.optional("winner")?.string() {
            switch winner {
            case "HOME_TEAM": facts.set("winner", "home")
            case "AWAY_TEAM": facts.set("winner", "away")
            case "DRAW": facts.set("winner", "draw")
            default: throw .shape("\(score.place)/winner is the unknown value \"\(winner)\"")
            }
        }
        return facts
    }

    /// The goals of one side: the running `fullTime` score, except after a shoot-out, where `fullTime` may
    /// count the shoot-out too and the goals are those of regular and extra time.
    private static func goals(_ score: BodyNode, side: String, duration: String?) throws(NormalizationFailure)
        -> Int?
    {
        if duration == "PENALTY_SHOOTOUT", let regular = try score.optional("regularTime")?.optional(side)?.int(),
            let extra = try score.optional("extraTime")?.optional(side)?.int()
        {
            return regular + extra
        }
        return try score.optional("fullTime")?.optional(side)?.int()
    }
}
