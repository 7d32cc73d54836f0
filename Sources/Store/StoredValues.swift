import Foundation
public import LiveRelayCore

/// How both stores write and read the values they keep as JSON text (an activity's state, facts and timer
/// looks), so a record reads back the same from either.
public enum StoredValues {
    /// A record from its columns; a column that does not parse is reported as the activity being corrupt.
    public static func record(
        key: String, attributesType: String, phase: String, state: String, lastTimestamp: Int, entityFeed: String?,
        entityID: String?, startedAt: Int?, facts: String?, sentAt: Int?, timers: String?, changedAt: Int?,
        deliveredState: String?, deliveredTimestamp: Int?, start: String? = nil, location: String,
        memo: ParsedText? = nil
    ) throws(StoreFailure) -> ActivityRecord {
        let corrupt = StoreFailure(path: location, message: "activity \(key) is corrupt")
        guard let phase = ActivityPhase(rawValue: phase), let state = try? (memo ?? ParsedText()).state(state)
        else { throw corrupt }
        var parsedFacts: JSONValue?
        if let facts {
            guard let parsed = try? (memo ?? ParsedText()).facts(facts) else { throw corrupt }
            parsedFacts = parsed
        }
        var looks: [String: Int] = [:]
        if let timers {
            guard case .object(let members)? = try? JSONParser.parse(timers) else { throw corrupt }
            for (rule, value) in members {
                guard case .int(let at) = value else { throw corrupt }
                looks[rule] = at
            }
        }
        var delivered: DeliveredState?
        if let deliveredState, let deliveredTimestamp {
            // The same state as the record's (the last push got through) is not parsed twice.
            guard
                let parsed = deliveredTimestamp == lastTimestamp
                    ? state : try? JSONParser.parse(deliveredState, numbers: .decimal)
            else { throw corrupt }
            delivered = DeliveredState(timestamp: deliveredTimestamp, state: parsed)
        }
        var parsedStart: ActivityStart?
        if let start {
            guard let parsed = try? JSONParser.parse(start, numbers: .decimal), let decoded = Self.start(parsed)
            else { throw corrupt }
            parsedStart = decoded
        }
        return ActivityRecord(
            key: ActivityKey(key), attributesType: attributesType, phase: phase, state: state,
            lastTimestamp: lastTimestamp,
            entity: entityFeed.flatMap { f in entityID.map { EntityKey(feed: f, id: $0) } }, startedAt: startedAt,
            facts: parsedFacts, sentAt: sentAt, timers: looks, changedAt: changedAt, delivered: delivered,
            start: parsedStart)
    }

    /// What an activity's start carried, as stored (`nil` for none): the JSON object of its `Codable` form,
    /// written (and read, ``start(_:)-(JSONValue)``) without Foundation's coders, as a record is read on
    /// every poll that looks at its activity.
    public static func start(_ start: ActivityStart?) -> String? {
        guard let start else { return nil }
        // Written member by member in sorted key order: the text a tree of these members gave (tested), without
        // building the tree for every record a poll writes.
        var out = JSONBytes(capacity: 256)
        out.byte(UInt8(ascii: "{"))
        if let alert = start.alert {
            out.key("alert")
            out.byte(UInt8(ascii: "{"))
            var first = true
            func member(_ name: StaticString) {
                if !first { out.byte(UInt8(ascii: ",")) }
                first = false
                out.key(name)
            }
            func text(_ name: StaticString, _ value: String?) {
                guard let value else { return }
                member(name)
                out.string(value)
            }
            func texts(_ name: StaticString, _ values: [String]?) {
                guard let values else { return }
                member(name)
                out.byte(UInt8(ascii: "["))
                for (i, value) in values.enumerated() {
                    if i > 0 { out.byte(UInt8(ascii: ",")) }
                    out.string(value)
                }
                out.byte(UInt8(ascii: "]"))
            }
            text("body", alert.body)
            texts("loc-args", alert.locArgs)
            text("loc-key", alert.locKey)
            text("sound", alert.sound)
            text("title", alert.title)
            texts("title-loc-args", alert.titleLocArgs)
            text("title-loc-key", alert.titleLocKey)
            out.byte(UInt8(ascii: "}"))
            out.byte(UInt8(ascii: ","))
        }
        out.key("attributes")
        out.write(start.attributes)
        out.byte(UInt8(ascii: ","))
        out.key("late-join")
        start.lateJoin ? out.raw("true") : out.raw("false")
        if let owner = start.subscription {
            out.byte(UInt8(ascii: ","))
            out.key("subscription")
            out.byte(UInt8(ascii: "{"))
            out.key("created-at")
            out.int(owner.createdAt)
            out.byte(UInt8(ascii: ","))
            out.key("device")
            out.string(owner.device)
            out.byte(UInt8(ascii: ","))
            out.key("id")
            out.string(owner.id)
            out.byte(UInt8(ascii: "}"))
        }
        out.byte(UInt8(ascii: "}"))
        return String(decoding: out.bytes, as: UTF8.self)
    }

    /// A start as stored; `nil` when it is not one.
    static func start(_ stored: JSONValue) -> ActivityStart? {
        guard case .object(let members) = stored, let attributes = members["attributes"] else { return nil }
        var alert: LiveActivityAlert?
        switch members["alert"] {
        case nil, .null?: break
        case .object(let fields)?:
            func text(_ name: String) -> String?? {
                switch fields[name] {
                case nil, .null?: return .some(nil)
                case .string(let text)?: return text
                default: return nil
                }
            }
            func texts(_ name: String) -> [String]?? {
                switch fields[name] {
                case nil, .null?: return .some(nil)
                case .array(let items)?:
                    let strings = items.compactMap(\.stringValue)
                    return strings.count == items.count ? strings : nil
                default: return nil
                }
            }
            guard let title = text("title"), let body = text("body"), let sound = text("sound"),
                let titleLocKey = text("title-loc-key"), let locKey = text("loc-key"),
                let titleLocArgs = texts("title-loc-args"), let locArgs = texts("loc-args")
            else { return nil }
            alert = LiveActivityAlert(
                title: title, body: body, sound: sound, titleLocKey: titleLocKey, titleLocArgs: titleLocArgs,
                locKey: locKey, locArgs: locArgs)
        default: return nil
        }
        var owner: SubscriptionOwner?
        switch members["subscription"] {
        case nil, .null?: break
        case .object(let fields)?:
            guard let id = fields["id"]?.stringValue, let device = fields["device"]?.stringValue,
                case .int(let createdAt)? = fields["created-at"]
            else { return nil }
            owner = SubscriptionOwner(id: id, device: device, createdAt: createdAt)
        default: return nil
        }
        let lateJoin: Bool
        switch members["late-join"] {
        case .bool(let value)?: lateJoin = value
        default: return nil
        }
        return ActivityStart(attributes: attributes, alert: alert, lateJoin: lateJoin, subscription: owner)
    }

    /// When each watched fact of an entity last changed, from its stored text (`{"name": time, …}`); entries
    /// that are not times are skipped.
    public static func factChanges(_ text: String?) -> [String: Int] {
        guard let text, case .object(let members)? = try? JSONParser.parse(text) else { return [:] }
        return members.compactMapValues { if case .int(let at) = $0 { at } else { nil } }
    }

    /// Timer looks as stored (`nil` for none).
    public static func timers(_ looks: [String: Int]) -> String? {
        looks.isEmpty ? nil : looksText(looks)
    }

    /// Timer looks as stored, `{}` for none.
    public static func looksText(_ looks: [String: Int]) -> String {
        JSONValue.object(looks.mapValues { .int($0) }).jsonString()
    }

    /// A timer subject's looks from their stored text; entries that are not times are skipped.
    public static func looks(_ text: String?, activity: String, location: String) throws(StoreFailure)
        -> [String: Int]
    {
        guard let text else { return [:] }
        guard case .object(let members)? = try? JSONParser.parse(text) else {
            throw StoreFailure(path: location, message: "activity \(activity) is corrupt")
        }
        var looks: [String: Int] = [:]
        for (rule, value) in members { if case .int(let at) = value { looks[rule] = at } }
        return looks
    }

    /// An entity's facts from their stored text.
    public static func facts(_ text: String, of what: String, location: String) throws(StoreFailure) -> Facts {
        guard case .object(let object) = try? JSONParser.parse(text, numbers: .decimal) else {
            throw StoreFailure(path: location, message: "facts of \(what) are corrupt")
        }
        return Facts(object)
    }

    /// Send times as stored: a JSON array of integers.
    public static func timesText(_ times: [Int]) -> String {
        JSONValue.array(times.map { .int($0) }).jsonString()
    }

    /// Send times from their stored text; anything that is not one is skipped.
    public static func times(_ text: String) -> [Int] {
        guard case .array(let items)? = try? JSONParser.parse(text) else { return [] }
        return items.compactMap { if case .int(let t) = $0 { t } else { nil } }
    }

    /// The due time of an activity no timer rule applies to (until the timer rules change).
    public static let neverDue = 9_000_000_000_000
}

/// The state and facts texts last parsed, with their values: the records of one read mostly share their
/// entity's facts and often their state (a thousand alerts crossed by one price), so each text is parsed
/// once. One per read; not shared between threads.
public final class ParsedText {
    private var lastState: (text: String, value: JSONValue)?
    private var lastFacts: (text: String, value: JSONValue)?

    public init() {}

    func state(_ text: String) throws(JSONParseError) -> JSONValue {
        if let lastState, lastState.text == text { return lastState.value }
        let value = try JSONParser.parse(text, numbers: .decimal)
        lastState = (text, value)
        return value
    }

    func facts(_ text: String) throws(JSONParseError) -> JSONValue {
        if let lastFacts, lastFacts.text == text { return lastFacts.value }
        let value = try JSONParser.parse(text, numbers: .decimal)
        lastFacts = (text, value)
        return value
    }
}
