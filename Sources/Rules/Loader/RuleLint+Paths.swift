import LiveRelayCore

/// The paths a rule reads (`var`, `val`) against what its data has: the roots a rule sees, the facts its
/// feeds give, the names `changed` can hold, and the file's constants.
extension RuleLint {
    /// The dotted path a `var` (or `val`) argument names, when it is written out.
    static func path(of argument: JSONValue) -> String? {
        switch argument {
        case .string(let path): return path
        case .array(let items):
            if case .string(let path)? = items.first { return path }
            return nil
        case .object(let members) where members.count == 1:
            if let inner = members["var"] { return path(of: inner) }
            return nil
        default: return nil
        }
    }

    /// A path against the names the rule's data has, and the facts its feeds give.
    mutating func path(_ path: String, at pointer: String) {
        guard !path.isEmpty else { return }
        let steps = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let root = steps[0]
        guard Self.roots.contains(root) else {
            let hint = Suggestion.closest(to: root, among: Self.roots).map { " (did you mean \($0)?)" } ?? ""
            add(
                pointer,
                "\"\(path)\" reads \(root), which a rule does not see\(hint): it sees \(Self.roots.sorted().joined(separator: ", "))",
                atKey: true)
            return
        }
        guard steps.count > 1 else { return }
        func member(_ name: String, of what: String, among members: Set<String>) {
            guard !members.contains(name) else { return }
            let hint = Suggestion.closest(to: name, among: members).map { " (did you mean \($0)?)" } ?? ""
            add(
                pointer,
                "\"\(path)\": \(what) has no \(name)\(hint); it has \(members.sorted().joined(separator: ", "))",
                atKey: true)
        }
        switch root {
        case "now":
            add(pointer, "\"\(path)\": now is a number of seconds, it has no members", atKey: true)
        case "constants":
            constant(Array(steps.dropFirst()), path: path, at: pointer)
        case "changed":
            if Int(steps[1]) == nil {
                add(
                    pointer,
                    "\"\(path)\": changed is a list of fact names; test one with {\"in\": [name, {\"var\": \"changed\"}]}",
                    atKey: true)
            }
        case "entity":
            member(steps[1], of: "entity", among: Self.entityMembers)
        case "subscription":
            guard let subscription else {
                add(
                    pointer,
                    "\"\(path)\": this rule file declares no \"subscription\" parameters, so its rules see no subscription",
                    atKey: true)
                return
            }
            member(steps[1], of: "subscription", among: Self.subscriptionMembers)
            if steps[1] == "parameters", steps.count > 2 {
                parameterPath(Array(steps.dropFirst(2)), in: subscription, path: path, at: pointer)
            }
        case "activity":
            member(steps[1], of: "activity", among: Self.activityMembers)
            if steps[1] == "budget", steps.count > 2 {
                member(steps[2], of: "activity.budget", among: Self.budgetMembers)
            }
            if ["state", "delivered-state"].contains(steps[1]), steps.count > 2, let stateSchema {
                statePath(
                    Array(steps.dropFirst(2)), in: stateSchema, root: "activity.\(steps[1])", path: path, at: pointer)
            }
        default:
            fact(steps.dropFirst().joined(separator: "."), path: path, at: pointer)
        }
    }

    /// A fact the rule reads (`curr.…`, `prev.…`) or a quiet rule names, against what its feeds give.
    mutating func fact(_ fact: String, path: String, at pointer: String) {
        guard let facts else { return }
        let known = facts.contains { feed in feed.contains(fact) || feed.contains { $0.hasPrefix(fact + ".") } }
        guard !known else { return }
        if otherFacts.contains(fact) || otherFacts.contains(where: { $0.hasPrefix(fact + ".") }) {
            guard warned.insert(fact).inserted else { return }
            add(
                pointer,
                "\"\(path)\": the feeds of this rule do not give \(fact) (other feeds do): it reads null here",
                atKey: true, warning: true)
            return
        }
        let all = facts.reduce(into: Set<String>()) { $0.formUnion($1) }
        let hint = Suggestion.closest(to: fact, among: all).map { " (did you mean \($0)?)" } ?? ""
        add(pointer, "\"\(path)\": no feed of this rule gives a fact \(fact)\(hint)", atKey: true)
    }

    /// A name tested with `{"in": [name, {"var": "changed"}]}`: `changed` lists the changed facts by their
    /// full dotted names, so a name no feed of the rule gives, or an object's name (`home` for
    /// `home.score`), is never in it.
    mutating func changedName(_ name: String, at pointer: String) {
        guard let facts else { return }
        if facts.contains(where: { $0.contains(name) }) { return }
        let members = facts.reduce(into: Set<String>()) { all, feed in
            all.formUnion(feed.filter { $0.hasPrefix(name + ".") })
        }
        if !members.isEmpty {
            add(
                pointer,
                "\"\(name)\" is an object, and changed lists the facts that changed by their full names (\(members.sorted().prefix(3).joined(separator: ", "))): this never matches; test one of them, or use {\"some\": [{\"var\": \"changed\"}, …]}",
                atKey: false)
            return
        }
        if otherFacts.contains(name) {
            guard warned.insert(name).inserted else { return }
            add(
                pointer,
                "\"\(name)\": the feeds of this rule do not give \(name) (other feeds do): it never changes here",
                atKey: false, warning: true)
            return
        }
        let all = facts.reduce(into: Set<String>()) { $0.formUnion($1) }
        let hint = Suggestion.closest(to: name, among: all).map { " (did you mean \($0)?)" } ?? ""
        add(
            pointer, "\"\(name)\": no feed of this rule gives a fact \(name)\(hint), so it is never in changed",
            atKey: false)
    }

    /// A path into the rule file's constants: a name the file does not define, or a member its value does
    /// not have, always reads null.
    mutating func constant(_ steps: [String], path: String, at pointer: String) {
        var value: JSONValue = .object(constants)
        var at = "constants"
        for name in steps {
            switch value {
            case .object(let members):
                guard let next = members[name] else {
                    let hint =
                        Suggestion.closest(to: name, among: members.keys).map { " (did you mean \(at).\($0)?)" } ?? ""
                    let known = members.keys.sorted().prefix(8).joined(separator: ", ")
                    add(
                        pointer,
                        at == "constants"
                            ? "\"\(path)\": the file defines no constant \(name)\(hint); \(members.isEmpty ? "it has no \"constants\"" : "it defines \(known)")"
                            : "\"\(path)\": \(at) has no \(name)\(hint); it has \(known)",
                        atKey: true)
                    return
                }
                value = next
            case .array(let items):
                guard let index = Int(name), items.indices.contains(index) else {
                    add(pointer, "\"\(path)\": \(at) is a list of \(items.count); it has no \(name)", atKey: true)
                    return
                }
                value = items[index]
            default:
                add(pointer, "\"\(path)\": \(at) is \(value.jsonString().prefix(40)), it has no members", atKey: true)
                return
            }
            at += "." + name
        }
    }
}
