public import LiveRelayCore

/// What narrows a personal rule's subscriptions before it is evaluated: its condition read as written. A rule
/// whose condition requires a fact to cross a subscription parameter between the previous poll and this one
/// (`prev.price` below `subscription.parameters.above` and `curr.price` at or above it, or the mirror) fires
/// only for subscriptions whose level lies between the two prices: those are found in a sorted index, and
/// only they are evaluated. Pure; the index only ever narrows to a superset of the subscriptions the rule
/// fires for (each candidate is evaluated in full).
public struct Crossing: Sendable {
    /// The fact (dotted path under `prev` and `curr`) and the parameter (under `subscription.parameters`).
    public var fact: String
    public var parameter: String
    /// The two conjuncts, compiled: they decide alone for a parameter that is not a number.
    let test: JsonLogicExpression
    /// The sides (`prev`, `curr`) whose fact the condition also requires not to be null
    /// (`{"!==": [{"var": "prev.price"}, null]}`): with no previous value (a first sight), nothing can fire.
    public var guarded: Set<String> = []

    /// Names the crossing (its fact and parameter): rules that require the same one share its index.
    public var key: String { fact + "\u{0}" + parameter }

    /// The crossing the condition `when` (as written) requires, or `nil` with the reason it has none.
    public static func of(_ when: JSONValue) -> Result<Crossing, NoCrossing> {
        let conjuncts: [JSONValue]
        if case .object(let members) = when, members.count == 1, let all = members["and"]?.arrayValue {
            conjuncts = all
        } else {
            conjuncts = [when]
        }
        // Each comparison of `prev.F` or `curr.F` with `subscription.parameters.P`, as (side, F, P, op) with the
        // fact on the left.
        var sides: [(side: String, fact: String, parameter: String, op: String, raw: JSONValue)] = []
        for conjunct in conjuncts {
            guard case .object(let members) = conjunct, members.count == 1, let (op, arguments) = members.first,
                ["<", "<=", ">", ">="].contains(op), let pair = arguments.arrayValue, pair.count == 2
            else { continue }
            let mirrored = ["<": ">", "<=": ">=", ">": "<", ">=": "<="]
            if let (side, fact) = factPath(pair[0]), let parameter = parameterPath(pair[1]) {
                sides.append((side, fact, parameter, op, conjunct))
            } else if let parameter = parameterPath(pair[0]), let (side, fact) = factPath(pair[1]) {
                sides.append((side, fact, parameter, mirrored[op]!, conjunct))
            }
        }
        for before in sides where before.side == "prev" {
            for after in sides
            where after.side == "curr" && after.fact == before.fact
                && after.parameter == before.parameter
            {
                let up = before.op.hasPrefix("<") && after.op.hasPrefix(">")
                let down = before.op.hasPrefix(">") && after.op.hasPrefix("<")
                guard up || down,
                    let test = try? JsonLogicExpression.compile(.object(["and": [before.raw, after.raw]]))
                else { continue }
                var crossing = Crossing(fact: before.fact, parameter: before.parameter, test: test)
                crossing.guarded = Set(
                    ["prev", "curr"].filter { side in
                        conjuncts.contains { conjunct in
                            guard case .object(let members) = conjunct, members.count == 1,
                                let (op, arguments) = members.first, op == "!==" || op == "!=",
                                let pair = arguments.arrayValue, pair.count == 2
                            else { return false }
                            let fact: JSONValue = ["var": .string("\(side).\(before.fact)")]
                            return (pair[0] == fact && pair[1] == .null) || (pair[1] == fact && pair[0] == .null)
                        }
                    })
                return .success(crossing)
            }
        }
        return .failure(
            NoCrossing(
                reason: sides.isEmpty
                    ? "its condition compares no fact with a subscription parameter"
                    : "its condition compares \(sides[0].side).\(sides[0].fact) with subscription.parameters.\(sides[0].parameter), but not the same fact before and after"
            ))
    }

    /// Why a rule has no crossing.
    public struct NoCrossing: Error, Sendable, Hashable {
        public var reason: String
    }

    /// `{"var": "prev.F"}` or `{"var": "curr.F"}` without a default: (`prev`/`curr`, F).
    private static func factPath(_ raw: JSONValue) -> (String, String)? {
        guard let path = plainVar(raw) else { return nil }
        for side in ["prev", "curr"] where path.hasPrefix(side + ".") {
            return (side, String(path.dropFirst(side.count + 1)))
        }
        return nil
    }

    /// `{"var": "subscription.parameters.P"}` without a default: P.
    private static func parameterPath(_ raw: JSONValue) -> String? {
        guard let path = plainVar(raw), path.hasPrefix("subscription.parameters."), path.count > 24 else { return nil }
        return String(path.dropFirst(24))
    }

    private static func plainVar(_ raw: JSONValue) -> String? {
        guard case .object(let members) = raw, members.count == 1 else { return nil }
        switch members["var"] {
        case .string(let path)?: return path
        case .array(let items)? where items.count == 1: return items[0].stringValue
        default: return nil
        }
    }
}

/// One crossing's subscriptions by level: the numeric levels sorted, the others grouped by value. Built from a
/// list of subscriptions; answers with positions in that list.
public struct CrossingIndex: Sendable {
    public let crossing: Crossing
    /// (level, position), by level.
    private let levels: [(Double, Int32)]
    /// Positions by a level that is not a number (`null` for a parameter left out).
    private let others: [JSONValue: [Int32]]

    public init(_ crossing: Crossing, subscriptions: [Subscription]) {
        self.crossing = crossing
        var levels: [(Double, Int32)] = []
        levels.reserveCapacity(subscriptions.count)
        var others: [JSONValue: [Int32]] = [:]
        let path = crossing.parameter.split(separator: ".").map(String.init)
        for (i, subscription) in subscriptions.enumerated() {
            let value = path.reduce(subscription.parameters as JSONValue?) { $0?[$1] } ?? .null
            if let level = value.doubleValue, value.isNumber, level.isFinite {
                levels.append((level, Int32(i)))
            } else {
                others[value, default: []].append(Int32(i))
            }
        }
        levels.sort { $0.0 < $1.0 }
        self.levels = levels
        self.others = others
    }

    /// The positions of the subscriptions the crossing may hold for, from `previous` to `current` facts, in
    /// list order; `nil` when it cannot narrow them (a fact that is not a number on either side).
    public func candidates(previous: Facts?, current: Facts?) -> [Int]? {
        // A condition that requires a value fires for no one while it is missing (absent or null).
        if crossing.guarded.contains("prev"), (previous?[crossing.fact] ?? .null) == .null { return [] }
        if crossing.guarded.contains("curr"), (current?[crossing.fact] ?? .null) == .null { return [] }
        guard let before = previous?[crossing.fact], let after = current?[crossing.fact],
            before.isNumber, after.isNumber, let a = before.doubleValue, let b = after.doubleValue, a.isFinite,
            b.isFinite
        else { return nil }
        // Widened by a step either side: doubles only approximate the decimals compared, and a candidate too
        // many is evaluated, never one too few left out.
        let low = min(a, b).nextDown
        let high = max(a, b).nextUp
        let start = levels.partitioningIndex { $0.0 >= low }
        let end = levels[start...].partitioningIndex { $0.0 > high }
        var positions = levels[start..<end].map { Int($0.1) }
        // A level that is not a number decides the same for every subscription holding it: tried once.
        for (value, holders) in others {
            var parameters = JSONValue.emptyObject
            parameters = Self.setting(
                crossing.parameter.split(separator: ".").map(String.init), to: value, in: parameters)
            let data = JSONValue.object([
                "prev": previous?.value ?? .null, "curr": current?.value ?? .null,
                "subscription": .object(["parameters": parameters]),
            ])
            if (try? crossing.test.evaluate(data).isTruthy) != false { positions += holders.map(Int.init) }
        }
        return positions.sorted()
    }

    private static func setting(_ path: [String], to value: JSONValue, in object: JSONValue) -> JSONValue {
        guard let first = path.first else { return value }
        var members = object.objectValue ?? [:]
        members[first] = setting(Array(path.dropFirst()), to: value, in: members[first] ?? .emptyObject)
        return .object(members)
    }
}

/// Whether a personal rule's condition holds only for an activity that runs: one of its conjuncts requires
/// `activity.phase` to be `pending` or `active` (`{"in": [{"var": "activity.phase"}, ["pending", "active"]]}`,
/// `{"==": [{"var": "activity.phase"}, "active"]}`). Such a rule is evaluated only for the subscriptions that
/// own a running activity. Read from the condition as written; pure.
public enum LiveOnly {
    public static func of(_ when: JSONValue) -> Bool {
        let conjuncts: [JSONValue]
        if case .object(let members) = when, members.count == 1, let all = members["and"]?.arrayValue {
            conjuncts = all
        } else {
            conjuncts = [when]
        }
        let live: Set<String> = ["pending", "active"]
        return conjuncts.contains { conjunct in
            guard case .object(let members) = conjunct, members.count == 1, let (op, arguments) = members.first,
                let pair = arguments.arrayValue, pair.count == 2
            else { return false }
            let phase: JSONValue = ["var": "activity.phase"]
            switch op {
            case "in":
                guard pair[0] == phase, let names = pair[1].arrayValue, !names.isEmpty else { return false }
                return names.allSatisfy { $0.stringValue.map(live.contains) ?? false }
            case "==", "===":
                let other = pair[0] == phase ? pair[1] : pair[1] == phase ? pair[0] : nil
                return other?.stringValue.map(live.contains) ?? false
            default:
                return false
            }
        }
    }
}

/// The subscriptions of one entity as personal rules read them: in id order, with the indexes of the
/// crossings the rules require built once, which subscriptions own a running activity (`nil` when not
/// known: every subscription may), and how many of each one's alerts are behind it.
public struct SubscriptionSet: Sendable {
    public let subscriptions: [Subscription]
    /// By ``Crossing/key``.
    let indexes: [String: CrossingIndex]
    /// The positions of the subscriptions that own a running activity, in order.
    public private(set) var live: [Int]?
    /// By position, how many of a subscription's alerts are behind it (absent: none): the activities made
    /// under its id that have ended, or that an earlier subscription of the same id made (they end at the
    /// feed's next poll). Its rules read it as `subscription.earlier-alerts`.
    private var earlier: [Int: Int] = [:]

    /// `subscriptions` (put in id order, as the store gives them); an index for each of `crossings`; which
    /// own a running activity and how many alerts are behind each, from `alerts` (the entity's activities
    /// counted by owner, ``SubscriptionAlerts/tally(_:)``), or unknown.
    public init(_ subscriptions: [Subscription], crossings: [Crossing] = [], alerts: [SubscriptionAlerts]? = nil) {
        let ordered = zip(subscriptions, subscriptions.dropFirst()).allSatisfy { $0.id < $1.id }
        let subscriptions = ordered ? subscriptions : subscriptions.sorted { $0.id < $1.id }
        self.subscriptions = subscriptions
        var indexes: [String: CrossingIndex] = [:]
        for crossing in crossings where indexes[crossing.key] == nil {
            indexes[crossing.key] = CrossingIndex(crossing, subscriptions: subscriptions)
        }
        self.indexes = indexes
        guard let alerts else { return }
        var live: Set<Int> = []
        for count in alerts {
            guard let position = position(of: count.owner.id) else { continue }
            // An earlier subscription of the same id: its alerts, running or not, are behind this one.
            let current = count.owner == subscriptions[position].owner
            let behind = count.ended + (current ? 0 : count.running)
            if behind > 0 { earlier[position, default: 0] += behind }
            if current, count.running > 0 { live.insert(position) }
        }
        self.live = live.sorted()
    }

    /// What the rules read as `subscription` for the subscription at `position`.
    public func view(_ position: Int) -> JSONValue {
        subscriptions[position].view(earlierAlerts: earlier[position] ?? 0)
    }

    /// The subscription `id` with how many of its alerts are behind it.
    public func subscription(_ id: String) -> (Subscription, earlierAlerts: Int)? {
        position(of: id).map { (subscriptions[$0], earlier[$0] ?? 0) }
    }

    /// The position of the subscription `id` (ids are ASCII, so their order is their bytes').
    public func position(of id: String) -> Int? {
        let at = subscriptions.partitioningIndex { $0.id >= id }
        return at < subscriptions.endIndex && subscriptions[at].id == id ? at : nil
    }

    /// Takes in what happened to an activity of the subscription `owner`: it runs, or it ended (one more
    /// alert behind the subscription). `ended` is said once per activity, when it ends.
    public mutating func note(_ owner: SubscriptionOwner, running: Bool, ended: Bool) {
        guard let position = position(of: owner.id), subscriptions[position].owner == owner else { return }
        if ended { earlier[position, default: 0] += 1 }
        guard var live else { return }
        let at = live.partitioningIndex { $0 >= position }
        let present = at < live.endIndex && live[at] == position
        if running, !present { live.insert(position, at: at) }
        if !running, present { live.remove(at: at) }
        self.live = live
    }
}

extension RandomAccessCollection {
    /// The first index whose element satisfies `belongs`, which holds for a suffix of the collection (its
    /// end when none does): a binary search.
    func partitioningIndex(where belongs: (Element) -> Bool) -> Index {
        var lo = startIndex
        var count = self.count
        while count > 0 {
            let half = count / 2
            let mid = index(lo, offsetBy: half)
            if belongs(self[mid]) {
                count = half
            } else {
                lo = index(after: mid)
                count -= half + 1
            }
        }
        return lo
    }
}
