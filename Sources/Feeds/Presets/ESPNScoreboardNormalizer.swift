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
/// sports (`clock.direction` says which). The sport comes from the config (the `sport` option, else the
/// URL), or else from the body's leagues (``ESPNSport``); a configured sport the body's league contradicts
/// fails the body, since the clock would run the wrong way.
public struct ESPNScoreboardNormalizer: FeedNormalizer {
    /// Where a configured sport came from, so that an error about it names what to fix.
    public enum SportOrigin: String, Sendable, Hashable {
        /// The preset's `sport` option.
        case option
        /// The feed URL's `…/sports/{sport}/…`.
        case url
    }

    /// The configured sport, lower-cased; `nil` when each body's leagues tell it.
    public let sport: String?
    /// Where ``sport`` came from.
    public let sportOrigin: SportOrigin
    /// The `clock-direction` option, which overrides the sport's.
    public let clockOverride: ClockDirection?

    /// Which way the clock runs when that is known without a body (the override, else the configured
    /// sport's); `nil` when it depends on the sport each body names.
    public var clockDirection: ClockDirection? {
        clockOverride ?? sport.map(Self.clockDirection(ofSport:))
    }

    /// A normaliser for a sport, by ESPN's name for it (`soccer`, `basketball`, …), or for whatever sport
    /// each body's leagues name when `sport` is `nil`; `clockDirection` overrides the direction the sport
    /// implies.
    public init(sport: String? = nil, origin: SportOrigin = .option, clockDirection: ClockDirection? = nil) {
        self.sport = sport?.lowercased()
        self.sportOrigin = origin
        self.clockOverride = clockDirection
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
        for key in ["uid", "slug"] { selection.include([.key("leagues"), .any, .key(key)]) }
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
        let events = try root.member("events", of: "an ESPN scoreboard").elements()
        // A day without events needs no clock, and so no sport.
        guard !events.isEmpty else { return [:] }
        let direction = try clockDirection(of: root)
        var out: [String: Facts] = [:]
        for event in events {
            let id = try Self.id(of: event)
            guard out[id] == nil else { throw .shape("\(event.place): duplicate event id \"\(id)\"") }
            do {
                out[id] = try Self.facts(of: event, clock: direction)
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

    /// Which way the clock of this body runs: the override, else the configured sport's, checked against
    /// the body's leagues, else the sport the leagues name.
    func clockDirection(of root: BodyNode) throws(NormalizationFailure) -> ClockDirection {
        let leagues = try ESPNSport.leagues(of: root)
        if let sport {
            if let league = leagues.first(where: { $0.sport.map { !ESPNSport.same(sport, $0) } ?? false }) {
                throw .shape(contradiction(league))
            }
            return clockOverride ?? Self.clockDirection(ofSport: sport)
        }
        if let clockOverride { return clockOverride }
        let sports = Set(leagues.compactMap(\.sport))
        guard sports.count <= 1 else {
            throw .shape(
                "the body's leagues are of several sports (\(sports.sorted().joined(separator: ", "))), whose clocks may run different ways: follow one sport per feed"
            )
        }
        guard let inferred = sports.first else { throw .shape(Self.unknownSport(leagues)) }
        return Self.clockDirection(ofSport: inferred)
    }

    /// The message for a configured sport the body's league contradicts.
    private func contradiction(_ league: ESPNSport.League) -> String {
        let named =
            switch sportOrigin {
            case .option: "the \"sport\" option says \(sport!)"
            case .url: "the feed URL names the sport \(sport!) (…/sports/\(sport!)/…)"
            }
        let fix =
            switch sportOrigin {
            case .option: "correct \"sport\" or leave it out (the league tells the sport)"
            case .url: "point the URL at the body's sport"
            }
        return "\(named), but the body's \(league.label) is \(league.sport!): \(fix)"
    }

    /// The message for a body whose sport nothing tells.
    private static func unknownSport(_ leagues: [ESPNSport.League]) -> String {
        let why: String
        if let league = leagues.first(where: { $0.sportID != nil }) {
            why = "its \(league.label) is of ESPN sport \(league.sportID!), which this preset does not know"
        } else if let league = leagues.first {
            why = "its \(league.label) names no sport"
        } else {
            why = "the body has no leagues[].uid"
        }
        return
            "the ESPN preset needs \"sport\" (soccer, basketball, …) when neither the URL (…/sports/{sport}/{league}/scoreboard) nor the body names it: \(why)"
    }

    /// The facts of one event, its clock running `direction`.
    private static func facts(of event: BodyNode, clock direction: ClockDirection) throws(NormalizationFailure)
        -> Facts
    {
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
            facts.set("clock.seconds", .int(wholeSeconds(clock, direction)))
            facts.set("clock.direction", .string(direction.rawValue))
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
    private static func wholeSeconds(_ value: Decimal, _ direction: ClockDirection) -> Int {
        var input = value
        var rounded = Decimal()
        NSDecimalRound(&rounded, &input, 0, direction == .up ? .down : .up)
        return NSDecimalNumber(decimal: rounded).intValue
    }
}
