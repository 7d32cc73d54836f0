public import Foundation
public import LiveRelayCore

/// How both stores write and read the values they keep as JSON text (an activity's state, facts and timer
/// looks), so a record reads back the same from either.
public enum StoredValues {
    /// A record from its columns; a column that does not parse is reported as the activity being corrupt.
    public static func record(
        key: String, attributesType: String, phase: String, state: String, lastTimestamp: Int, entityFeed: String?,
        entityID: String?, startedAt: Int?, facts: String?, sentAt: Int?, timers: String?, changedAt: Int?,
        deliveredState: String?, deliveredTimestamp: Int?, start: String? = nil, location: String
    ) throws(StoreFailure) -> ActivityRecord {
        let corrupt = StoreFailure(path: location, message: "activity \(key) is corrupt")
        guard let phase = ActivityPhase(rawValue: phase), let state = try? JSONParser.parse(state, numbers: .decimal)
        else { throw corrupt }
        var parsedFacts: JSONValue?
        if let facts {
            guard let parsed = try? JSONParser.parse(facts, numbers: .decimal) else { throw corrupt }
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
            guard let decoded = try? JSONDecoder().decode(ActivityStart.self, from: Data(start.utf8)) else {
                throw corrupt
            }
            parsedStart = decoded
        }
        return ActivityRecord(
            key: ActivityKey(key), attributesType: attributesType, phase: phase, state: state,
            lastTimestamp: lastTimestamp,
            entity: entityFeed.flatMap { f in entityID.map { EntityKey(feed: f, id: $0) } }, startedAt: startedAt,
            facts: parsedFacts, sentAt: sentAt, timers: looks, changedAt: changedAt, delivered: delivered,
            start: parsedStart)
    }

    /// What an activity's start carried, as stored (`nil` for none).
    public static func start(_ start: ActivityStart?) -> String? {
        start.flatMap { try? $0.canonicalJSON() }.map { String(decoding: $0, as: UTF8.self) }
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
