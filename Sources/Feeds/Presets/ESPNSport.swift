/// The sport of an ESPN scoreboard as its body tells it: each league's `uid` starts with the sport's id
/// (`"uid": "s:600~l:606"` is league 606 of sport 600, soccer).
///
/// The sport decides which way `clock.seconds` runs, so the preset reads it from the body when the config
/// does not say it, and refuses a configured sport the body contradicts.
enum ESPNSport {
    /// ESPN's sport ids and the sport each is, by the name ESPN's URLs give it (`…/sports/soccer/…`). Ids
    /// not listed are sports the preset cannot tell from the body; it then needs the `sport` option.
    static let names: [Int: String] = [
        1: "baseball",
        20: "football",
        40: "basketball",
        70: "hockey",
        300: "rugby",
        600: "soccer",
    ]

    /// One entry of the body's `leagues`, as far as the sport goes.
    struct League: Sendable {
        /// The JSON Pointer of its `uid`.
        let place: String
        /// Its `uid` (`s:600~l:606`).
        let uid: String
        /// Its `slug` (`fifa.world`), if it has one.
        let slug: String?
        /// The sport id its `uid` names (`600`), if it names one.
        let sportID: Int?

        /// The sport its `uid` names, when the id is a known one.
        var sport: String? { sportID.flatMap { ESPNSport.names[$0] } }

        /// `league fifa.world (/leagues/0/uid "s:600~l:606")`, for messages.
        var label: String { "league \(slug ?? "without a slug") (\(place) \"\(uid)\")" }
    }

    /// The leagues of a scoreboard that carry a `uid`; none when the body has no `leagues`.
    static func leagues(of root: BodyNode) throws(NormalizationFailure) -> [League] {
        guard let list = root.optional("leagues") else { return [] }
        var out: [League] = []
        for league in try list.elements() {
            guard let uidNode = league.optional("uid") else { continue }
            let uid = try uidNode.string()
            out.append(
                League(
                    place: uidNode.place, uid: uid, slug: try league.optional("slug")?.string(),
                    sportID: sportID(inUID: uid)))
        }
        return out
    }

    /// The sport id at the start of an ESPN uid: `s:600~l:606` → 600.
    static func sportID(inUID uid: String) -> Int? {
        guard let first = uid.split(separator: "~").first, first.hasPrefix("s:") else { return nil }
        return Int(first.dropFirst(2))
    }

    /// Whether a configured sport is the one a body names. ESPN files rugby league under its rugby sport id,
    /// so `rugby-league` is rugby too.
    static func same(_ configured: String, _ inBody: String) -> Bool {
        family(configured) == family(inBody)
    }

    private static func family(_ sport: String) -> String {
        let name = sport.lowercased()
        return name == "rugby-league" ? "rugby" : name
    }
}
