import LiveRelayCore

/// Which parts of the data an expression may read, judged from the expression as written. It errs on the
/// side of "may": a path computed at run time, or the whole data, may be anything.
enum DataReads {
    /// True when `raw` may read the root `name` (`activity`): a string literal `name` or `name.…` anywhere
    /// (a `var`, `val`, `missing` or `exists` argument, or text that merely looks like one), or a `var`/`val`
    /// whose path is computed or is the whole data.
    static func mayRead(_ name: String, in raw: JSONValue) -> Bool {
        switch raw {
        case .string(let text):
            return text == name || text.hasPrefix(name + ".")
        case .array(let items):
            return items.contains { mayRead(name, in: $0) }
        case .object(let members):
            if members.count == 1, let (op, argument) = members.first, op == "var" || op == "val",
                readsAnything(argument)
            {
                return true
            }
            return members.values.contains { mayRead(name, in: $0) }
        default:
            return false
        }
    }

    /// True when `raw` may read the member `path` (`entity.changed-at`): a string literal that is the path,
    /// its last name or one of its roots (a `val` path is written `["entity", "changed-at"]`), or a `var`/`val`
    /// whose path is computed or is the whole data.
    static func mayReadTime(_ path: String, in raw: JSONValue) -> Bool {
        switch raw {
        case .string(let text):
            let steps = path.split(separator: ".").map(String.init)
            return text == path || steps.contains(text) || text.hasPrefix(path + ".")
        case .array(let items):
            return items.contains { mayReadTime(path, in: $0) }
        case .object(let members):
            if members.count == 1, let (op, argument) = members.first, op == "var" || op == "val",
                readsAnything(argument)
            {
                return true
            }
            return members.values.contains { mayReadTime(path, in: $0) }
        default:
            return false
        }
    }

    /// True for `var`/`val` arguments that name the whole data or a path only known at run time.
    private static func readsAnything(_ argument: JSONValue) -> Bool {
        switch argument {
        case .null, .string(""): return true
        case .object: return true
        case .array(let items):
            guard let first = items.first else { return true }
            return readsAnything(first)
        default: return false
        }
    }

    /// The members of `activity` a timer pass reads with the due times (no record, facts or budget).
    static let activityTimes: Set<String> = [
        "activity.phase", "activity.started-at", "activity.pushed-at", "activity.changed-at", "activity.sent-at",
    ]

    /// True when `raw` may read more than `now`, `entity` and the activity's phase and times: the facts
    /// (`prev`, `curr`, `changed`), the `subscription`, or the activity's state, facts, budget or the whole
    /// `activity`.
    static func mayReadBeyondTimes(_ raw: JSONValue) -> Bool {
        // (A subscription is read from the store only for a full evaluation.)
        if ["prev", "curr", "changed", "subscription"].contains(where: { mayRead($0, in: raw) }) { return true }
        return mayReadActivityBeyondTimes(raw)
    }

    private static func mayReadActivityBeyondTimes(_ raw: JSONValue) -> Bool {
        switch raw {
        case .string(let text):
            guard text == "activity" || text.hasPrefix("activity.") else { return false }
            return !activityTimes.contains(text)
        case .array(let items):
            return items.contains { mayReadActivityBeyondTimes($0) }
        case .object(let members):
            if members.count == 1, let (op, argument) = members.first, op == "var" || op == "val",
                readsAnything(argument)
            {
                return true
            }
            return members.values.contains { mayReadActivityBeyondTimes($0) }
        default:
            return false
        }
    }
}

extension Rule {
    /// The first content-state field that may read `subscription`: in a file whose personal activities share
    /// their entity's channel, a broadcast carries one content-state to every alert, so it may not be
    /// personal. `nil` when none may.
    public var personalContentField: FieldExpression? {
        contentState.first { DataReads.mayRead("subscription", in: $0.written) }
    }
}
