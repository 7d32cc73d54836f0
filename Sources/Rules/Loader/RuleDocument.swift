import LiveRelayCore

/// The JSON shape of one rule, as decoded after the schema accepted it. Expressions are still raw JSON.
struct RuleDocument: Decodable {
    var id: String
    var description: String?
    /// One feed id, or several.
    var feed: JSONValue
    /// Required for rules on changes; a timer rule without it acts whenever it comes due.
    var when: JSONValue?
    /// `"change"` (or absent), `{"every": n}` or `{"quiet": n}`; the schema has checked the shape.
    var on: JSONValue?
    var activity: Activity
    var event: String
    var contentState: [String: JSONValue]?
    var relevanceScore: JSONValue?
    var priority: JSONValue?
    var whenBudgetSpent: BudgetExhaustion?
    var alert: Alert?
    var staleAfter: JSONValue?
    var dismissalAfter: JSONValue?

    struct Activity: Decodable {
        var key: JSONValue
        var attributesType: String
        var attributes: [String: JSONValue]?

        enum CodingKeys: String, CodingKey {
            case key, attributes
            case attributesType = "attributes-type"
        }
    }

    struct Alert: Decodable {
        var title: JSONValue
        var body: JSONValue
        var sound: String?
    }

    enum CodingKeys: String, CodingKey {
        case id, description, feed, when, on, activity, event, priority, alert
        case contentState = "content-state"
        case relevanceScore = "relevance-score"
        case whenBudgetSpent = "when-budget-spent"
        case staleAfter = "stale-after"
        case dismissalAfter = "dismissal-after"
    }

    /// Every expression of the rule except the key, as one array (for what they may read).
    var readExpressions: JSONValue {
        var all: [JSONValue] = [when ?? .null, relevanceScore ?? .null, priority ?? .null]
        all += [staleAfter ?? .null, dismissalAfter ?? .null, alert?.title ?? .null, alert?.body ?? .null]
        all += (contentState ?? [:]).values.map { $0 }
        all += (activity.attributes ?? [:]).values.map { $0 }
        return .array(all)
    }
}
