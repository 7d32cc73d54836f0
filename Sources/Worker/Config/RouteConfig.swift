public import Delivery

/// One entry of `routes`: pushes of an attributes type, or made by the rules of a rule file, go to the
/// provider with this id. The first matching route wins; unmatched pushes go to the default provider.
///
/// ```json
/// "routes": [{"attributes-type": "PriceAttributes", "provider": "pw"}, {"rule-file": "rules/soccer.rules.json", "provider": "fcm"}]
/// ```
public struct RouteConfig: Sendable, Decodable {
    /// Matches pushes of this `attributes-type`.
    public var attributesType: String?
    /// Matches pushes made by rules of this file (relative to the config's folder).
    public var ruleFile: String?
    /// The `id` of an entry of `providers`.
    public var provider: String

    enum CodingKeys: String, CodingKey {
        case provider
        case attributesType = "attributes-type"
        case ruleFile = "rule-file"
    }
}

/// One entry of `activity-modes`: activities of an attributes type, or whose pushes the rules of a rule file
/// make, reach devices by tokens, a broadcast channel, or both. The first matching entry wins; other
/// activities go by tokens.
///
/// ```json
/// "activity-modes": [{"attributes-type": "MatchAttributes", "mode": "both"}]
/// ```
public struct ActivityModeConfig: Sendable, Decodable {
    /// Matches activities of this `attributes-type`.
    public var attributesType: String?
    /// Matches pushes made by rules of this file (relative to the config's folder).
    public var ruleFile: String?
    /// `token`, `channel` or `both`.
    public var mode: ActivityMode

    enum CodingKeys: String, CodingKey {
        case mode
        case attributesType = "attributes-type"
        case ruleFile = "rule-file"
    }
}
