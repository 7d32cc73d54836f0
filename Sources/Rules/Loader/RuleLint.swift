import LiveRelayCore

/// Mistakes that compile but run wrong, found in a rule as written: names no rule sees (`cur.price`), facts
/// no feed of the rule gives, an object with two operators (data, so always true), an operator short of an
/// argument, a condition written as a plain string, `in` with its arguments swapped, an activity key the
/// token API would refuse. What may be intended is a warning; the rest are errors.
struct RuleLint {
    /// A problem at a JSON pointer inside the rule.
    struct Finding {
        var pointer: String
        var atKey: Bool
        var message: String
        var severity: Diagnostic.Severity
    }

    /// The fact paths each feed of the rule can give (`home.score`); `nil` when unknown (no config), so facts
    /// are not checked.
    var facts: [Set<String>]?
    /// Facts other feeds give (every preset's catalogue): reading one of them on a feed that does not give it
    /// may be meant (one rule set for several presets, reading `null` where a fact is missing), so it is a
    /// warning; a name no feed gives at all is an error.
    var otherFacts: Set<String> = []
    /// The content-state schema (as written) of the contract for the rule's attributes type, when there is
    /// one: `activity.state.…` paths are checked against it where it closes its objects.
    var stateSchema: JSONValue?
    /// The rule file's named constants: `constants.…` paths are checked against them.
    var constants: [String: JSONValue] = [:]
    /// The parameters schema (as written) the rule file declares as `subscription`; `nil` when it declares
    /// none, and its rules see no `subscription`.
    var subscription: JSONValue?
    private(set) var findings: [Finding] = []
    /// Facts already warned about in this rule (one warning per fact, not per use).
    var warned = Set<String>()

    /// The names a rule's data has, and the members of those that are objects.
    static let roots: Set<String> = [
        "prev", "curr", "changed", "now", "entity", "activity", "constants", "subscription",
    ]
    static let entityMembers: Set<String> = ["feed", "id", "changed-at"]
    static let activityMembers: Set<String> = [
        "phase", "state", "facts", "started-at", "pushed-at", "changed-at", "sent-at", "delivered-state", "budget",
    ]
    static let subscriptionMembers: Set<String> = ["id", "device", "parameters", "created-at", "earlier-alerts"]
    static let budgetMembers: Set<String> = ["size", "period", "used", "remaining", "refill-at", "held"]

    /// Fewest and most arguments of operators whose extra arguments are ignored or whose missing ones make the
    /// result meaningless (comparisons and arithmetic take any number from two; the compiler checks those).
    static let arity: [String: ClosedRange<Int>] = [
        "in": 2...2, "!": 1...1, "!!": 1...1, "substr": 2...3, "missing_some": 2...2, "map": 2...2,
        "filter": 2...2, "all": 2...2, "none": 2...2, "some": 2...2, "reduce": 2...3, "round": 1...2,
        "format": 1...4,
    ]
    /// Operators whose later arguments read each item, not the rule's data.
    static let iterating: Set<String> = ["map", "filter", "all", "none", "some", "reduce"]

    init(facts: [Set<String>]?, otherFacts: Set<String> = []) {
        self.facts = facts
        self.otherFacts = otherFacts
    }

    /// Checks one rule document.
    mutating func check(_ rule: JSONValue) {
        for (i, name) in (rule["on"]?["facts"]?.arrayValue ?? []).enumerated() {
            if let name = name.stringValue { fact(name, path: name, at: "/on/facts/\(i)") }
        }
        if let when = rule["when"] { condition(when, at: "/when") }
        if let key = rule["activity"]?["key"] {
            walk(key, at: "/activity/key")
            activityKey(key, at: "/activity/key")
            if subscription != nil, !DataReads.mayRead("subscription.id", in: key) {
                add(
                    "/activity/key",
                    "the file declares \"subscription\", so the activity key must read subscription.id (e.g. {\"cat\": [\"alert-\", {\"var\": \"subscription.id\"}]}): each subscription's activity is its own"
                )
            }
        }
        for section in ["content-state", "activity/attributes"] {
            let value = section.split(separator: "/").reduce(rule as JSONValue?) { $0?[String($1)] }
            for (name, expression) in value?.objectValue ?? [:] {
                walk(expression, at: "/\(section)/\(JSONPointer.escape(name))")
            }
        }
        for name in ["relevance-score", "priority", "stale-after", "dismissal-after"] {
            if let expression = rule[name] { walk(expression, at: "/\(name)") }
        }
        for name in ["title", "body"] {
            if let expression = rule["alert"]?[name] { walk(expression, at: "/alert/\(name)") }
        }
    }

    mutating func add(_ pointer: String, _ message: String, atKey: Bool = false, warning: Bool = false) {
        findings.append(
            Finding(pointer: pointer, atKey: atKey, message: message, severity: warning ? .warning : .error))
    }

    /// A condition: besides what every expression is checked for, one that is not an expression at all.
    private mutating func condition(_ raw: JSONValue, at pointer: String) {
        switch raw {
        case .string(let text):
            add(
                pointer,
                "when is the plain string \"\(text.prefix(40))\", which is always true (a string is not evaluated): write the condition as JsonLogic, e.g. {\">\": [{\"var\": \"curr.price\"}, 100]}"
            )
            return
        case .bool(false):
            add(pointer, "when is false: the rule never fires", warning: true)
        case .int, .double, .decimal, .array:
            add(
                pointer, "when is a constant (\(raw.jsonString().prefix(40))): the rule fires on every change or never",
                warning: true)
        default:
            break
        }
        walk(raw, at: pointer)
    }

    /// An activity key written as a constant, or as `cat` of constants and names, must give what the token
    /// API accepts (`A-Z a-z 0-9 . _ : -`, at most 200 characters), or no app can register for it.
    private mutating func activityKey(_ raw: JSONValue, at pointer: String) {
        func allowed(_ text: String) -> Bool {
            text.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                    || ".:_-".unicodeScalars.contains($0)
            }
        }
        switch raw {
        case .string(let key) where !allowed(key) || key.isEmpty || key.count > 200:
            add(
                pointer,
                "the activity key \"\(key.prefix(40))\" is not one the token API accepts (1 to 200 of A-Z a-z 0-9 . _ : -)"
            )
        case .object(let members) where members.count == 1:
            guard let parts = members["cat"]?.arrayValue else { return }
            for (i, part) in parts.enumerated() {
                if case .string(let text) = part, !allowed(text) {
                    add(
                        "\(pointer)/cat/\(i)",
                        "the activity key part \"\(text.prefix(40))\" has characters the token API refuses (it accepts A-Z a-z 0-9 . _ : -)"
                    )
                }
            }
        default:
            break
        }
    }

    /// Checks an expression and everything in it. `item` is true inside the body of `map`, `filter`, …,
    /// where `var` reads the item, not the rule's data.
    private mutating func walk(_ raw: JSONValue, at pointer: String, item: Bool = false) {
        switch raw {
        case .array(let items):
            for (i, value) in items.enumerated() { walk(value, at: "\(pointer)/\(i)", item: item) }
        case .object(let members) where members.count > 1:
            let operators = members.keys.filter { JsonLogicExpression.knownOperators.contains($0) }.sorted()
            if !operators.isEmpty {
                add(
                    pointer,
                    "this object has \(members.count) keys (\(members.keys.sorted().joined(separator: ", "))), so it is data, not the operator \(operators[0]): it is always true; write one operator per object"
                )
            }
            for (name, value) in members { walk(value, at: "\(pointer)/\(JSONPointer.escape(name))", item: item) }
        case .object(let members):
            guard let (op, argument) = members.first else { return }
            let here = "\(pointer)/\(JSONPointer.escape(op))"
            let arguments = argument.arrayValue ?? [argument]
            if let range = Self.arity[op], !(op == "!" || op == "!!") || argument.arrayValue != nil {
                if arguments.count < range.lowerBound {
                    add(
                        here,
                        "\(op) needs \(range.lowerBound) argument\(range.lowerBound == 1 ? "" : "s"), it has \(arguments.count)",
                        atKey: true)
                } else if arguments.count > range.upperBound {
                    add(
                        here, "\(op) uses \(range.upperBound) arguments; the rest are ignored", atKey: true,
                        warning: true)
                }
            }
            if op == "in", arguments.count == 2, Self.path(of: arguments[0]) == "changed" {
                add(
                    here,
                    "in looks for its first argument in its second: write {\"in\": [\"home.score\", {\"var\": \"changed\"}]}",
                    atKey: true)
            }
            if op == "in", arguments.count == 2, Self.path(of: arguments[1]) == "changed",
                case .string(let name) = arguments[0]
            {
                changedName(name, at: "\(here)/0")
            }
            if op == "format" { formatSeparators(arguments, at: here) }
            if op == "==" || op == "!=", arguments.count == 2 { looseEquality(op, arguments, at: here) }
            if op == "var" || op == "val", !item, let path = Self.path(of: argument) {
                self.path(path, at: here)
            }
            if Self.iterating.contains(op), let list = argument.arrayValue {
                for (i, value) in list.enumerated() {
                    walk(value, at: "\(here)/\(i)", item: item || i > 0)
                }
            } else {
                walk(argument, at: here, item: item)
            }
        default:
            break
        }
    }

    /// `==` and `!=` against a written `null`, array or object: loosely, `null` equals 0 and `false` (a score
    /// of 0 would read as missing), and an array or object is never compared (it raises `NaN`).
    private mutating func looseEquality(_ op: String, _ arguments: [JSONValue], at pointer: String) {
        let strict = op == "==" ? "===" : "!=="
        if arguments.contains(.null) {
            add(
                pointer,
                "\(op) with null is also \(op == "==" ? "true" : "false") for 0 and false, so a fact of 0 reads as missing: write {\"\(strict)\": [fact, null]} (or exists, ??)",
                atKey: true, warning: true)
        }
        if arguments.contains(where: { $0.arrayValue != nil || ($0.objectValue.map { $0.count != 1 } ?? false) }) {
            add(
                pointer,
                "\(op) never compares an array or an object (it raises NaN): write \(strict) to compare them by value",
                atKey: true)
        }
    }

    /// `format`'s separators as written: a grouping separator that is also the decimal separator makes
    /// `1.234.567.89`, a number nobody can read.
    private mutating func formatSeparators(_ arguments: [JSONValue], at pointer: String) {
        guard arguments.count > 2, case .string(let grouping) = arguments[2] else { return }
        let decimal: String
        if arguments.count > 3 {
            guard case .string(let written) = arguments[3] else { return }
            decimal = written
            if written.isEmpty {
                add("\(pointer)/3", "format's decimal separator is empty: the decimals would run into the whole part")
                return
            }
        } else {
            decimal = JsonLogicNode.decimalSeparator(forGrouping: grouping)
        }
        if !grouping.isEmpty, grouping == decimal {
            add(
                "\(pointer)/2",
                "format groups thousands with \"\(grouping)\", its decimal separator too: write the decimal separator as the fourth argument ({\"format\": [x, 2, \"\(grouping)\", \"\(grouping == "," ? "." : ",")\"]})"
            )
        }
    }
}
