public import Foundation
public import LiveRelayCore

/// Reads rule files: JSON parsed with positions, checked against `Rules/rules.schema.json`, every expression
/// compiled. Each problem becomes a `file:line:column: rule <id>: message` diagnostic, and the rules without
/// problems load all the same.
public struct RuleLoader: Sendable {
    /// Feed ids the config defines; a rule naming another feed is an error. `nil` skips the check.
    public var knownFeeds: Set<String>?
    /// The fact paths each feed gives (`home.score`), by feed id: a rule reading `curr.<fact>` that none of
    /// its feeds gives is an error. Feeds left out are not checked.
    public var knownFacts: [String: Set<String>]
    /// Facts that feeds other than a rule's give (every preset's): reading one is a warning, not an error.
    public var otherFacts: Set<String>
    /// The content-state schema (as written) of each attributes type a contract describes: a rule reading
    /// `activity.state.…` is checked against its type's.
    public var stateSchemas: [String: JSONValue] = [:]

    public init(
        knownFeeds: Set<String>? = nil, knownFacts: [String: Set<String>] = [:], otherFacts: Set<String> = []
    ) {
        self.knownFeeds = knownFeeds
        self.knownFacts = knownFacts
        self.otherFacts = otherFacts
    }

    /// Loads files and directories (every `*.json` in a directory except `*.schema.json`, in name order).
    /// Paths are reported as given.
    public func load(paths: [String]) -> RuleSet {
        var set = RuleSet()
        var constants: [String: (value: JSONValue, file: String)] = [:]
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                set.diagnostics.append(Diagnostic(file: path, location: nil, message: "no such rule file or directory"))
                continue
            }
            let files: [String]
            if isDirectory.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
                files = names.filter { $0.hasSuffix(".json") && !$0.hasSuffix(".schema.json") }.sorted()
                    .map { path.hasSuffix("/") ? path + $0 : path + "/" + $0 }
                // An empty folder is a mistake (a deploy that emptied it), not a wish for no rules.
                if files.isEmpty {
                    set.diagnostics.append(
                        Diagnostic(file: path, location: nil, message: "no rule files (*.json) in this directory"))
                }
            } else {
                files = [path]
            }
            for file in files {
                let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
                if size > Self.maxFileBytes {
                    set.diagnostics.append(Diagnostic(file: file, location: nil, message: Self.tooLarge(size)))
                    continue
                }
                guard let data = FileManager.default.contents(atPath: file) else {
                    set.diagnostics.append(Diagnostic(file: file, location: nil, message: "cannot read the file"))
                    continue
                }
                var (rules, diagnostics) = load(file: file, data: data)
                // Every rule reads one set of constants: a name another file gave another value is an error,
                // and this file's rules stay out (they would read the other file's value).
                let clashes = (rules.first?.constants ?? [:]).keys.sorted().filter { name in
                    guard let defined = constants[name] else { return false }
                    return defined.value != rules.first?.constants[name]
                }
                for name in clashes {
                    diagnostics.append(
                        Diagnostic(
                            file: file, location: nil,
                            message:
                                "constant \"\(name)\" is also defined in \(constants[name]!.file) with another value: every rule file shares one set of constants, so its rules are left out"
                        ))
                }
                if clashes.isEmpty {
                    for (name, value) in rules.first?.constants ?? [:] where constants[name] == nil {
                        constants[name] = (value, file)
                    }
                } else {
                    rules = []
                }
                set.rules += rules
                set.diagnostics += diagnostics
                set.files.append(file)
            }
        }
        set.diagnostics += duplicateIDs(set.rules)
        set.diagnostics += KeyReach.unreachable(set.rules)
        return set
    }

    /// Loads one rule file's bytes.
    public func load(file: String, data: Data) -> ([Rule], [Diagnostic]) {
        guard data.count <= Self.maxFileBytes else {
            return ([], [Diagnostic(file: file, location: nil, message: Self.tooLarge(data.count))])
        }
        let document: JSONValue
        let map: SourceMap
        do {
            (document, map) = try JSONParser.parseWithSourceMap(data, numbers: .decimal, maxValues: Self.maxValues)
        } catch {
            let message =
                error.pastLimit
                ? "the file has \(error.message) here; a rule file holds at most that many (split its rules over several files)"
                : "invalid JSON: \(error.message)"
            return ([], [Diagnostic(file: file, location: error.location, message: message)])
        }
        var diagnostics: [Diagnostic] = []
        let context = RuleContext(file: file, document: document, map: map)
        var badRules = Set<Int>()
        for violation in RuleFileSchema.schema.validate(document) {
            let index = RuleContext.ruleIndex(violation.pointer)
            if let index { badRules.insert(index) }
            diagnostics.append(context.diagnostic(at: violation.pointer, atKey: violation.atKey, violation.message))
        }
        var numberFormat: NumberFormat?
        if case .string(let identifier)? = document["locale"], !diagnostics.contains(where: \.isError) {
            numberFormat = NumberFormat(locale: identifier)
            if numberFormat == nil {
                diagnostics.append(
                    context.diagnostic(
                        at: "/locale", atKey: false,
                        "unknown locale \"\(identifier)\": write a language and region such as \"de-DE\", \"fr-FR\" or \"en-US\""
                    ))
            }
        }
        var subscription: SubscriptionParameters?
        if let written = document["subscription"], !diagnostics.contains(where: \.isError) {
            do {
                subscription = SubscriptionParameters(file: file, schema: try JSONSchema(written), written: written)
            } catch {
                diagnostics.append(
                    context.diagnostic(
                        at: "/subscription" + error.pointer, atKey: false,
                        "subscription: \(error.message)"))
            }
        }
        var rules: [Rule] = []
        for (index, raw) in (document["rules"]?.arrayValue ?? []).enumerated() where !badRules.contains(index) {
            var compiler = RuleCompiler(context: context, index: index, knownFeeds: knownFeeds, knownFacts: knownFacts)
            compiler.otherFacts = otherFacts
            compiler.stateSchemas = stateSchemas
            compiler.numberFormat = numberFormat
            compiler.constants = document["constants"]?.objectValue ?? [:]
            compiler.lateJoin = document["late-join"]?.stringValue != "none"
            compiler.subscription = subscription
            switch compiler.compile(raw) {
            case .success(let rule) where ReservedRuleID.all.contains(rule.id):
                diagnostics.append(
                    Diagnostic(
                        file: rule.source.file, location: rule.source.location,
                        message: "rule \(rule.id): the id is LiveRelay's own (the pushes it decides without a rule "
                            + "carry it); choose another"))
            case .success(let rule): rules.append(rule)
            case .failure(let problems): diagnostics += problems.items
            }
            diagnostics += compiler.warnings
        }
        diagnostics.sort {
            ($0.location ?? SourceLocation(line: 0, column: 0)) < ($1.location ?? SourceLocation(line: 0, column: 0))
        }
        if diagnostics.count > Self.maxDiagnosticsPerFile {
            let left = diagnostics.count - Self.maxDiagnosticsPerFile
            let errors = diagnostics[Self.maxDiagnosticsPerFile...].contains(where: \.isError)
            diagnostics.removeLast(left)
            diagnostics.append(
                Diagnostic(
                    file: file, location: nil,
                    message: "\(left) more problems in this file (the first \(Self.maxDiagnosticsPerFile) are shown)",
                    severity: errors ? .error : .warning))
        }
        return (rules, diagnostics)
    }

    /// The largest rule file loaded: 16 MiB holds some 16,000 rules written out; a larger file is a
    /// diagnostic, never a load that takes the memory and minutes it would need.
    public static let maxFileBytes = 16 << 20
    /// The most JSON values in one rule file: a rule written out is some 30 to 100 values, so 1,000,000 hold
    /// over 10,000 rules; past it a file is a diagnostic at the value that passed it, in bounded memory (the
    /// place of every value is kept for diagnostics: about 250 bytes each).
    public static let maxValues = 1_000_000
    /// The diagnostics said for one file; the rest are counted in one more.
    public static let maxDiagnosticsPerFile = 100

    private static func tooLarge(_ size: Int) -> String {
        "the file is \(megabytes(size)); a rule file is at most \(megabytes(maxFileBytes)) (split its rules over several files)"
    }

    private static func megabytes(_ bytes: Int) -> String {
        bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : String(format: "%.1f MiB", Double(bytes) / Double(1 << 20))
    }

    private func duplicateIDs(_ rules: [Rule]) -> [Diagnostic] {
        var seen: [String: RuleSource] = [:]
        var out: [Diagnostic] = []
        for rule in rules {
            if let first = seen[rule.id] {
                out.append(
                    Diagnostic(
                        file: rule.source.file, location: rule.source.location,
                        message: "rule \(rule.id): duplicate rule id (first defined at \(first))"))
            } else {
                seen[rule.id] = rule.source
            }
        }
        return out
    }
}

/// The separators `format` uses in a rule file when a call does not write them: its `locale`'s.
struct NumberFormat: Sendable, Hashable {
    var grouping: String
    var decimal: String

    /// The conventions of a locale the system knows (`de-DE`, `fr_FR`), or `nil`.
    init?(locale identifier: String) {
        let canonical = identifier.replacingOccurrences(of: "-", with: "_")
        guard Locale.availableIdentifiers.contains(where: { $0.caseInsensitiveCompare(canonical) == .orderedSame })
        else { return nil }
        let locale = Locale(identifier: canonical)
        guard let grouping = locale.groupingSeparator, let decimal = locale.decimalSeparator else { return nil }
        self.grouping = grouping
        self.decimal = decimal
    }

    /// `raw` with every `format` call given the separators it leaves out.
    func applied(to raw: JSONValue) -> JSONValue {
        switch raw {
        case .array(let items):
            return .array(items.map(applied))
        case .object(let members) where members.count == 1 && members["format"] != nil:
            var arguments = (members["format"]!.arrayValue ?? [members["format"]!]).map(applied)
            guard !arguments.isEmpty else { return raw }
            if arguments.count < 2 { arguments.append(0) }
            if arguments.count < 3 { arguments.append(.string(grouping)) }
            if arguments.count < 4 { arguments.append(.string(decimal)) }
            return ["format": .array(arguments)]
        case .object(let members):
            return .object(members.mapValues(applied))
        default:
            return raw
        }
    }
}

/// Where a rule file's problems are reported.
struct RuleContext {
    var file: String
    var document: JSONValue
    var map: SourceMap

    /// The index of the rule a pointer is inside, if any.
    static func ruleIndex(_ pointer: String) -> Int? {
        let parts = pointer.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[1] == "rules" else { return nil }
        return Int(parts[2])
    }

    /// How a rule is named in messages: its id when it has a usable one, else its position.
    func ruleName(_ index: Int) -> String {
        if case .string(let id)? = document["rules"]?.arrayValue?[safe: index]?["id"], !id.isEmpty { return id }
        return "#\(index + 1)"
    }

    func diagnostic(at pointer: String, atKey: Bool, _ message: String, severity: Diagnostic.Severity = .error)
        -> Diagnostic
    {
        let location = map.location(pointer, preferKey: atKey)
        if let index = RuleContext.ruleIndex(pointer) {
            return Diagnostic(
                file: file, location: location, message: "rule \(ruleName(index)): \(message)", severity: severity)
        }
        return Diagnostic(file: file, location: location, message: message, severity: severity)
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
