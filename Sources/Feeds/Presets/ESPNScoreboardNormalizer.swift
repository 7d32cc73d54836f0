public import Foundation
public import LiveRelayCore

/// ESPN's site API scoreboard, `/apis/site/v2/sports/{sport}/{league}/scoreboard`, for any head-to-head
/// sport and league: one entity per event, keyed by the event id.
///
/// Scores arrive as strings and become integers; `status.period` is absent before the start, and so is the
/// `period` fact; `shootoutScore` appears only after a shoot-out (`home.shootout`, `away.shootout`). ESPN's
/// wording of the status (`status.type.detail`, `shortDetail`) is `statusText` and `statusShortText`; a
/// final's `winner` is the competitor ESPN flags, else the score's (``ESPNResult``). The clock is ESPN's
/// `status.clock` in whole seconds: elapsed for soccer and rugby, remaining in the period for the other
/// sports (`clock.direction` says which).
public struct ESPNScoreboardNormalizer: FeedNormalizer {
    /// Which way the clock of this feed's sport runs.
    public let clockDirection: ClockDirection

    /// A normaliser for a sport, by ESPN's name for it (`soccer`, `basketball`, …); `clockDirection`
    /// overrides the direction the sport implies.
    public init(sport: String, clockDirection: ClockDirection? = nil) {
        self.clockDirection = clockDirection ?? Self.clockDirection(ofSport: sport)
    }

    /// Soccer and rugby clocks count the time played; the others count down the time left in the period.
    public static func clockDirection(ofSport sport: String) -> ClockDirection {
        ["soccer", "rugby", "rugby-league"].contains(sport.lowercased()) ? .up : .down
    }

    /// What this normaliser reads of a scoreboard (a few hundred bytes of each event's several kilobytes of
    /// logos, links and broadcasts); nothing else of a body is built.
    static let selection: JSONSelection = {
        var selection = JSONSelection()
        selection.includeMemberNames(at: [])  // for "no events at the document root (it has …)"
        let event: [JSONSelection.Step] = [.key("events"), .any]
        for path in [["id"], ["date"], ["status"], ["competitions", "*", "status"]] {
            selection.include(event + path.map { $0 == "*" ? .any : .key($0) })
        }
        let competitor = event + [.key("competitions"), .any, .key("competitors"), .any]
        for path in [
            ["homeAway"], ["team", "displayName"], ["team", "abbreviation"], ["score"], ["shootoutScore"], ["winner"],
        ] {
            selection.include(competitor + path.map(JSONSelection.Step.key))
        }
        return selection
    }()

    /// The facts of every entity in `body`; any problem fails the whole body.
    public func normalize(_ body: Data) throws(NormalizationFailure) -> [String: Facts] {
        let root = try BodyNode.parse(body, selecting: Self.selection)
        var out: [String: Facts] = [:]
        for event in try root.member("events", of: "an ESPN scoreboard").elements() {
            let id = try Self.id(of: event)
            guard out[id] == nil else { throw .shape("\(event.place): duplicate event id \"\(id)\"") }
            do {
                out[id] = try facts(of: event)
            } catch {
                throw error.about("event \"\(id)\"")
            }
        }
        return out
    }

    private static func id(of event: BodyNode) throws(NormalizationFailure) -> String {
        let node = try event.member("id")
        switch node.value {
        case .string(let s) where !s.isEmpty: return s
        case .int(let i): return String(i)
        default: throw node.mismatch("a non-empty string or an integer")
        }
    }

    private func facts(of event: BodyNode) throws(NormalizationFailure) -> Facts {
        guard let competition = try event.member("competitions").elements().first else {
            throw .shape("\(event.place)/competitions is empty")
        }
        // The event's status, or the competition's (the same object in every recording).
        let status: BodyNode
        if let own = event.optional("status") { status = own } else { status = try competition.member("status") }
        let type = try status.member("type")
        let name = try type.member("name").string()
        let phase = try type.optional("state")?.string()
        guard let state = ESPNStatus.state(name: name, phase: phase) else {
            throw .shape("\(type.place): unknown status \"\(name)\" without a known state (pre, in or post)")
        }
        var facts = Facts()
        facts.set("state", .string(state.rawValue))
        facts.set("status", .string(name))
        for (fact, key) in [("statusText", "detail"), ("statusShortText", "shortDetail")] {
            if case .string(let text)? = try type.optional(key)?.fact(.string), !text.isEmpty {
                facts.set(fact, .string(text))
            }
        }
        facts.set("start", try event.member("date").fact(.time))
        if let period = try status.optional("period")?.int(), period > 0 {
            facts.set("period", .int(period))
        }
        if let clock = try status.optional("clock")?.decimal() {
            facts.set("clock.seconds", .int(wholeSeconds(clock)))
            facts.set("clock.direction", .string(clockDirection.rawValue))
        }
        if let display = status.optional("displayClock") {
            facts.set("clock.display", try display.fact(.string))
        }
        let sides = try Self.sides(of: competition)
        var scores: [String: Int] = [:]
        var shootouts: [String: Int] = [:]
        for (side, competitor) in [("home", sides.home), ("away", sides.away)] {
            let team = try competitor.member("team")
            facts.set("\(side).name", .string(try team.member("displayName").string()))
            if let abbreviation = team.optional("abbreviation") {
                facts.set("\(side).abbr", .string(try abbreviation.string()))
            }
            // ESPN writes "0" before the start; there is no score until the match begins.
            if state != .scheduled, let score = competitor.optional("score") {
                scores[side] = try score.int()
                facts.set("\(side).score", .int(scores[side]!))
            }
            if let shootout = competitor.optional("shootoutScore") {
                shootouts[side] = try shootout.int()
                facts.set("\(side).shootout", .int(shootouts[side]!))
            }
        }
        if state == .final {
            let flagged = try ESPNResult.flagged(home: sides.home, away: sides.away)
            let forfeit = name.hasPrefix("STATUS_FORFEIT")
            if let winner = flagged ?? (forfeit ? nil : ESPNResult.fromScores(scores, shootouts: shootouts)) {
                facts.set("winner", .string(winner))
            }
        }
        return facts
    }

    /// The home and the away competitor; anything else is not a head-to-head event.
    private static func sides(of competition: BodyNode) throws(NormalizationFailure) -> (home: BodyNode, away: BodyNode)
    {
        let competitors = try competition.member("competitors").elements()
        var home: [BodyNode] = []
        var away: [BodyNode] = []
        for competitor in competitors {
            switch try competitor.optional("homeAway")?.string() {
            case "home": home.append(competitor)
            case "away": away.append(competitor)
            default: continue
            }
        }
        guard home.count == 1, away.count == 1 else {
            throw .shape(
                "\(competition.place)/competitors has \(home.count) home and \(away.count) away competitors, expected one of each"
            )
        }
        return (home[0], away[0])
    }

    /// ESPN's clock can carry tenths in the last minute of a period: an elapsed clock rounds down, a
    /// remaining one rounds up, as the clock on screen does.
    private func wholeSeconds(_ value: Decimal) -> Int {
        var input = value
        var rounded = Decimal()
        NSDecimalRound(&rounded, &input, 0, clockDirection == .up ? .down : .up)
        return NSDecimalNumber(decimal: rounded).intValue
    }
}
