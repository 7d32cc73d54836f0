public import LiveRelayCore

/// What `check` can tell about rules and contracts without a feed body: every field a rule writes is one the
/// contract knows (where it closes its objects), of a type it allows (as far as the expression's type can
/// be known: literals, facts of a typed feed, operators that always give one type), dates come from
/// moments, a required field is never removed (`null`), and a start's patch carries every required field.
/// Pure; the run-time check (``ContentContract/conformState(_:)``) still validates every state sent.
public enum ContractCheck {
    /// A fact a feed provides, as the check needs it.
    public struct Fact: Sendable, Hashable {
        public enum Kind: String, Sendable, Hashable {
            case int, decimal, string, bool, time
        }
        public var kind: Kind
        public var optional: Bool

        public init(kind: Kind, optional: Bool) {
            self.kind = kind
            self.optional = optional
        }
    }

    /// Checks `set`'s rules under `contracts` (by attributes type): adds the problems to its diagnostics and
    /// takes every rule with an error out of its rules, so what runs is what `check` calls loaded and a
    /// rule announced as skipped is skipped. No contracts, no check.
    public static func apply(
        to set: inout RuleSet, contracts: [String: ContentContract], facts: [String: [String: Fact]]
    ) {
        guard !contracts.isEmpty else { return }
        let found = problems(rules: set.rules, contracts: contracts, facts: facts)
        set.diagnostics += found.map(\.diagnostic)
        let broken = Set(found.filter(\.diagnostic.isError).map(\.rule))
        set.rules.removeAll { broken.contains($0.id) }
    }

    /// The problems of `rules` under `contracts` (by attributes type), each with the id of its rule; `facts`
    /// gives each typed feed's facts. A rule whose attributes type has no contract, among rules that have
    /// contracts, is a warning: none of its pushes would be checked.
    public static func problems(
        rules: [Rule], contracts: [String: ContentContract], facts: [String: [String: Fact]]
    ) -> [(rule: String, diagnostic: Diagnostic)] {
        var out: [(rule: String, diagnostic: Diagnostic)] = []
        var unknownTypes = Set<String>()
        for rule in rules {
            guard let contract = contracts[rule.attributesType] else {
                guard !contracts.isEmpty, unknownTypes.insert(rule.attributesType).inserted else { continue }
                let hint =
                    Suggestion.closest(to: rule.attributesType, among: contracts.keys).map { " (did you mean \($0)?)" }
                    ?? ""
                out.append(
                    (
                        rule.id,
                        Diagnostic(
                            file: rule.source.file, location: rule.source.location,
                            message:
                                "rule \(rule.id): no contract describes attributes type \(rule.attributesType)\(hint), so its pushes are not checked; contracts describe \(contracts.keys.sorted().joined(separator: ", "))",
                            severity: .warning)
                    ))
                continue
            }
            // A rule on several feeds must fit the contract with the facts of each; a problem is said once.
            var said = Set<String>()
            for feed in rule.feeds {
                let typer = StaticTyper(facts: facts[feed])
                func report(_ field: FieldExpression?, _ message: String) {
                    let diagnostic = Diagnostic(
                        file: rule.source.file, location: field?.location ?? rule.source.location,
                        message: "rule \(rule.id): \(message) (contract \(contract.file))")
                    if said.insert(diagnostic.description).inserted { out.append((rule.id, diagnostic)) }
                }
                check(
                    rule.contentState, part: contract.contentState, name: "content-state", typer: typer,
                    contract: contract, report: report)
                if rule.event == .start, let attributes = contract.attributes {
                    check(
                        rule.attributes, part: attributes, name: "attributes", typer: typer, contract: contract,
                        report: report)
                }
                if rule.event == .start {
                    let parts: [(String, [FieldExpression], ContentContract.Part?)] = [
                        ("content-state", rule.contentState, contract.contentState),
                        ("attributes", rule.attributes, contract.attributes),
                    ]
                    for (name, fields, part) in parts {
                        guard let part else { continue }
                        let set = Set(fields.compactMap(\.path.first))
                        let missing = required(part.written).filter { !set.contains($0) }
                        if !missing.isEmpty {
                            report(
                                nil,
                                "the start's \(name) lacks required \(missing.count == 1 ? "field" : "fields") \(missing.map { "\"\($0)\"" }.joined(separator: ", ")): an activity starts from the start's patch alone"
                            )
                        }
                    }
                }
            }
        }
        return out
    }

    private static func check(
        _ fields: [FieldExpression], part: ContentContract.Part, name: String, typer: StaticTyper,
        contract: ContentContract, report: (FieldExpression?, String) -> Void
    ) {
        for field in fields {
            let dotted = field.path.joined(separator: ".")
            var schema = part.written
            var known = true
            var requiredHere = false
            for (depth, member) in field.path.enumerated() {
                let properties = schema["properties"]?.objectValue ?? [:]
                if let sub = properties[member] {
                    requiredHere = required(schema).contains(member)
                    schema = sub
                    continue
                }
                if schema["additionalProperties"] == .bool(false) {
                    var message =
                        "\(name) field \"\(field.path[...depth].joined(separator: "."))\" is not in the contract"
                    if let guess = Suggestion.closest(to: member, among: properties.keys) {
                        message += " (did you mean \"\(field.path[..<depth].map { $0 + "." }.joined())\(guess)\"?)"
                    }
                    report(field, message)
                }
                known = false
                break
            }
            guard known else { continue }
            let value = typer.type(of: field.written)
            let isDate = part.dates.contains(field.path)
            if field.written == .null {
                if requiredHere {
                    report(field, "\(name) field \"\(dotted)\" is required by the contract: null would remove it")
                }
                continue
            }
            if isDate {
                if let types = value.types, types.isDisjoint(with: ["integer", "number"]) {
                    report(
                        field,
                        "\(name) field \"\(dotted)\" is a date: give it a moment in UNIX seconds (a time fact, now), not \(value.what)"
                    )
                } else if let fact = value.fact, fact.kind != .time {
                    report(
                        field,
                        "\(name) field \"\(dotted)\" is a date: give it a moment in UNIX seconds (a time fact, now), not \(value.what)"
                    )
                }
                continue
            }
            guard let declared = ContractLoader.declaredTypes(schema), let types = value.types else { continue }
            var allowed = declared
            if allowed.contains("number") { allowed.insert("integer") }
            if allowed.contains("integer") { allowed.insert("number") }
            let nonNull = types.subtracting(["null"])
            if !nonNull.isEmpty, nonNull.isDisjoint(with: allowed) {
                report(
                    field,
                    "\(name) field \"\(dotted)\" is \(declared.sorted().joined(separator: " or ")) in the contract, but the rule gives it \(value.what)"
                )
            } else if types.contains("null"), !allowed.contains("null"), requiredHere {
                report(
                    field,
                    "\(name) field \"\(dotted)\" is required by the contract, but \(value.what) may be null, which removes it"
                )
            }
            if let literal = value.literal, let options = schema["enum"]?.arrayValue, !options.contains(literal) {
                report(
                    field,
                    "\(name) field \"\(dotted)\" is one of \(options.map { $0.jsonString() }.joined(separator: ", ")) in the contract, not \(literal.jsonString())"
                )
            }
        }
    }

    static func required(_ schema: JSONValue) -> [String] {
        (schema["required"]?.arrayValue ?? []).compactMap(\.stringValue)
    }
}

/// The type an expression can have, read from the expression as written.
struct StaticType {
    /// The JSON Schema type names it may have; `nil`: not known.
    var types: Set<String>?
    /// How to name it in a message.
    var what: String
    /// The fact it reads, when it is one.
    var fact: ContractCheck.Fact?
    /// The value, when it is a literal.
    var literal: JSONValue?

    static let unknown = StaticType(types: nil, what: "an expression")
}

/// Infers expression types from the operators and a feed's typed facts.
struct StaticTyper {
    var facts: [String: ContractCheck.Fact]?

    func type(of written: JSONValue) -> StaticType {
        switch written {
        case .object(let members) where members.count == 1:
            let (op, argument) = members.first!
            return call(op, argument)
        case .array:
            return StaticType(types: ["array"], what: "an array", literal: written)
        default:
            return StaticType(types: [SchemaType.of(written).rawValue], what: written.jsonString(), literal: written)
        }
    }

    private func call(_ op: String, _ argument: JSONValue) -> StaticType {
        let arguments = argument.arrayValue ?? [argument]
        switch op {
        case "var":
            return variable(arguments)
        case "cat", "substr", "format":
            return StaticType(types: ["string"], what: "text (\(op))")
        case "+", "-", "*", "/", "%", "min", "max", "round":
            return StaticType(types: ["number"], what: "a number (\(op))")
        case "==", "!=", "===", "!==", "<", ">", "<=", ">=", "!", "!!", "in", "some", "all", "none", "exists":
            return StaticType(types: ["boolean"], what: "a boolean (\(op))")
        case "merge", "map", "filter":
            return StaticType(types: ["array"], what: "an array (\(op))")
        case "if", "?:":
            // Branches: then, else-if pairs, and the final else (absent: null).
            var branches: [JSONValue] = []
            var i = 1
            while i < arguments.count {
                branches.append(arguments[i])
                i += 2
            }
            if arguments.count % 2 == 1, let last = arguments.last {
                branches.append(last)
            } else {
                branches.append(.null)
            }
            return union(branches.map(type(of:)), op)
        case "and", "or", "??":
            return union(arguments.map(type(of:)), op)
        default:
            return .unknown
        }
    }

    private func union(_ types: [StaticType], _ op: String) -> StaticType {
        var all = Set<String>()
        for t in types {
            guard let some = t.types else { return .unknown }
            all.formUnion(some)
        }
        return StaticType(types: all, what: "\(all.sorted().joined(separator: " or ")) (\(op))")
    }

    private func variable(_ arguments: [JSONValue]) -> StaticType {
        guard case .string(let path)? = arguments.first else { return .unknown }
        let fallback = arguments.count > 1 ? type(of: arguments[1]) : nil
        var found: StaticType
        if path == "now" {
            found = StaticType(types: ["integer"], what: "now", fact: .init(kind: .time, optional: false))
        } else if path == "entity.id" || path == "entity.feed" {
            found = StaticType(types: ["string"], what: path)
        } else if let facts, path.hasPrefix("curr.") || path.hasPrefix("prev."),
            let fact = facts[String(path.dropFirst(5))]
        {
            var types: Set<String> =
                switch fact.kind {
                case .int, .time: ["integer"]
                case .decimal: ["number"]
                case .string: ["string"]
                case .bool: ["boolean"]
                }
            // A previous poll may not exist, an optional fact may be absent.
            if fact.optional || path.hasPrefix("prev.") { types.insert("null") }
            found = StaticType(
                types: types, what: "\(path) (a\(fact.kind == .int ? "n" : "") \(fact.kind.rawValue) fact)", fact: fact)
        } else {
            return .unknown
        }
        if let fallback, var types = found.types, let more = fallback.types {
            types.remove("null")
            found.types = types.union(more)
        }
        return found
    }
}
