import LiveRelayCore

/// Turns one schema-valid rule into a compiled `Rule`, collecting every problem instead of stopping at the
/// first, so a rule author fixes a file in one pass.
struct RuleCompiler {
    var context: RuleContext
    var index: Int
    var knownFeeds: Set<String>?
    /// The fact paths each feed gives, by feed id; a feed left out is not checked.
    var knownFacts: [String: Set<String>]
    /// Facts other feeds give (see ``RuleLint/otherFacts``).
    var otherFacts: Set<String> = []
    /// Each contract's content-state schema, by attributes type (see ``RuleLoader/stateSchemas``).
    var stateSchemas: [String: JSONValue] = [:]
    /// The separators of the file's `locale`, given to each `format` that does not write its own.
    var numberFormat: NumberFormat?
    /// The file's named constants.
    var constants: [String: JSONValue] = [:]
    /// The file's `late-join`: whether its start rules start devices that subscribe while the activity runs.
    var lateJoin = true
    /// The file's `subscription` parameters: its rules are personal.
    var subscription: SubscriptionParameters?
    private var problems: [Diagnostic] = []
    /// What may be intended: reported, and the rule loads all the same.
    private(set) var warnings: [Diagnostic] = []

    init(context: RuleContext, index: Int, knownFeeds: Set<String>?, knownFacts: [String: Set<String>] = [:]) {
        self.context = context
        self.index = index
        self.knownFeeds = knownFeeds
        self.knownFacts = knownFacts
    }

    private var base: String { "/rules/\(index)" }

    mutating func compile(_ raw: JSONValue) -> Result<Rule, Diagnostics> {
        let doc: RuleDocument
        do {
            doc = try JSONValueDecoder().decode(RuleDocument.self, from: raw)
        } catch {
            return .failure(
                Diagnostics([context.diagnostic(at: base + error.pointer.description, atKey: true, error.message)]))
        }
        // The schema allows a feed id or a list of them.
        let feeds: [String]
        switch doc.feed {
        case .string(let id): feeds = [id]
        case .array(let ids): feeds = ids.compactMap(\.stringValue)
        default: feeds = []
        }
        if let knownFeeds {
            for (i, feed) in feeds.enumerated() where !knownFeeds.contains(feed) {
                let known = knownFeeds.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
                report(
                    doc.feed.arrayValue == nil ? "/feed" : "/feed/\(i)", atKey: false,
                    "unknown feed \"\(feed)\" (the config defines \(known.isEmpty ? "no feeds" : known))")
            }
        }
        // Facts are checked only when every feed of the rule publishes what it gives.
        let catalogues = feeds.compactMap { knownFacts[$0] }
        var lint = RuleLint(
            facts: catalogues.count == feeds.count && !feeds.isEmpty ? catalogues : nil, otherFacts: otherFacts)
        lint.stateSchema = stateSchemas[doc.activity.attributesType]
        lint.constants = constants
        lint.subscription = subscription?.written
        lint.check(raw)
        for finding in lint.findings {
            let diagnostic = context.diagnostic(
                at: base + finding.pointer, atKey: finding.atKey, finding.message, severity: finding.severity)
            if finding.severity == .error { problems.append(diagnostic) } else { warnings.append(diagnostic) }
        }
        let trigger = self.trigger(doc.on)
        let event = PushEvent(rawValue: doc.event)
        var when: JsonLogicExpression?
        if let raw = doc.when {
            when = expression(raw, at: "/when")
        } else if trigger.isTimer {
            when = JsonLogicExpression.always
        } else {
            report(
                "", atKey: false,
                "the rule has no \"when\": a rule on changes needs its condition (only a timer rule, with \"on\", may leave it out)"
            )
        }
        if trigger.isTimer, event == .start {
            report(
                "/event", atKey: false,
                "a timer rule acts on live activities only: its event is \"update\" or \"end\", not \"start\"")
        }
        let key = expression(doc.activity.key, at: "/activity/key")
        if DataReads.mayRead("activity", in: doc.activity.key) {
            report(
                "/activity/key", atKey: false,
                "activity.key cannot read \"activity\": the key is what finds the activity (use entity and the facts)")
        }
        let attributes = fields(doc.activity.attributes ?? [:], at: "/activity/attributes")
        let contentState = fields(doc.contentState ?? [:], at: "/content-state")
        let relevance = doc.relevanceScore.flatMap { expression($0, at: "/relevance-score") }
        var priority = PriorityPolicy.auto
        var priorityExpression: JsonLogicExpression?
        switch doc.priority {
        case nil:
            break
        case .string(let text)?:
            // The schema allows only the three names here.
            priority = PriorityPolicy(rawValue: text) ?? .auto
        case let raw?:
            priorityExpression = expression(raw, at: "/priority")
            if let constant = priorityExpression, constant.isConstant {
                // A constant must be one of the three names, as a written one is.
                switch try? constant.evaluate(.null) {
                case .string(let text)? where PriorityPolicy(rawValue: text) != nil:
                    priority = PriorityPolicy(rawValue: text)!
                    priorityExpression = nil
                case .null?:
                    priorityExpression = nil
                case let value:
                    report(
                        "/priority", atKey: false,
                        "priority is always \(value?.jsonString().prefix(40) ?? "?"), not \"high\", \"low\" or \"auto\""
                    )
                }
            }
        }
        let (staleAfter, staleAfterExpression) = seconds(doc.staleAfter, at: "/stale-after")
        let (dismissalAfter, dismissalAfterExpression) = seconds(doc.dismissalAfter, at: "/dismissal-after")
        var alert: AlertTemplate?
        if let a = doc.alert, let title = expression(a.title, at: "/alert/title"),
            let body = expression(a.body, at: "/alert/body")
        {
            alert = AlertTemplate(title: title, body: body, sound: a.sound)
        }
        guard problems.isEmpty, let when, let key, let attributes, let contentState else {
            return .failure(Diagnostics(problems))
        }
        var rule = Rule(
            id: doc.id, description: doc.description, feeds: feeds, trigger: trigger, when: when,
            readsActivity: DataReads.mayRead("activity", in: doc.readExpressions), activityKey: key,
            attributesType: doc.activity.attributesType, attributes: attributes,
            event: event,
            contentState: contentState, relevance: relevance, priority: priority,
            priorityExpression: priorityExpression,
            whenBudgetSpent: doc.whenBudgetSpent ?? .downgrade, alert: alert,
            staleAfter: staleAfter, dismissalAfter: dismissalAfter, staleAfterExpression: staleAfterExpression,
            dismissalAfterExpression: dismissalAfterExpression,
            source: RuleSource(file: context.file, location: context.map.location(base, preferKey: false)))
        rule.constants = constants
        rule.lateJoin = lateJoin
        rule.subscription = subscription
        // (A timer rule looks at each live activity with its subscription: nothing to narrow.)
        if subscription != nil, !trigger.isTimer {
            rule.crossing = Crossing.of(doc.when ?? .null)
            rule.liveOnly = LiveOnly.of(doc.when ?? .null)
        }
        rule.writtenKey = doc.activity.key
        rule.keyLocation = context.map.location(base + "/activity/key", preferKey: false)
        rule.decidedByTimes =
            trigger.isTimer && !DataReads.mayReadBeyondTimes(doc.when ?? .null)
            && !DataReads.mayReadBeyondTimes(doc.activity.key)
        if rule.decidedByTimes, case .every = trigger {
            let reads = [doc.when ?? .null, doc.activity.key]
            rule.skipsIdleTicks = !reads.contains {
                DataReads.mayReadTime("activity.sent-at", in: $0) || DataReads.mayReadTime("entity.changed-at", in: $0)
            }
        }
        return .success(rule)
    }

    /// The rule's trigger from `on` (the schema has checked its shape).
    private func trigger(_ raw: JSONValue?) -> RuleTrigger {
        guard case .object(let members)? = raw else { return .change }
        if case .int(let n)? = members["every"] { return .every(n) }
        guard case .int(let n)? = members["quiet"] else { return .change }
        return .quiet(n, facts: members["facts"]?.arrayValue?.compactMap(\.stringValue) ?? [])
    }

    /// A number of seconds as written (an integer), or the expression that gives it per change; a constant
    /// expression is folded to its integer, and one that is not a number ≥ 0 is refused here.
    private mutating func seconds(_ raw: JSONValue?, at pointer: String) -> (Int?, JsonLogicExpression?) {
        guard let raw else { return (nil, nil) }
        if case .int(let n) = raw { return (n, nil) }
        guard let compiled = expression(raw, at: pointer) else { return (nil, nil) }
        guard compiled.isConstant else { return (nil, compiled) }
        let value = try? compiled.evaluate(.null)
        if value == .null { return (nil, nil) }
        if let n = value.flatMap(RuleEngine.seconds) { return (n, nil) }
        report(
            pointer, atKey: false,
            "\(pointer.dropFirst()) is always \(value?.jsonString().prefix(40) ?? "?"), not a number of seconds ≥ 0")
        return (nil, nil)
    }

    private mutating func report(_ pointer: String, atKey: Bool, _ message: String) {
        problems.append(context.diagnostic(at: base + pointer, atKey: atKey, message))
    }

    private mutating func expression(_ raw: JSONValue, at pointer: String) -> JsonLogicExpression? {
        do {
            return try JsonLogicExpression.compile(numberFormat?.applied(to: raw) ?? raw)
        } catch {
            let inner = error.pointer.description
            // Point at the operator's name when the problem is a one-key operator object.
            if case .object(let members)? = error.pointer.resolve(in: raw), members.count == 1,
                let op = members.keys.first
            {
                report(
                    pointer + inner + "/" + JSONPointer.escape(op), atKey: true,
                    "\(pointer.dropFirst())\(inner): \(error.message)")
            } else {
                report(pointer + inner, atKey: false, "\(pointer.dropFirst())\(inner): \(error.message)")
            }
            return nil
        }
    }

    private mutating func fields(_ raw: [String: JSONValue], at pointer: String) -> [FieldExpression]? {
        var out: [FieldExpression] = []
        var failed = false
        for (name, value) in raw.sorted(by: { $0.key < $1.key }) {
            let member = pointer + "/" + JSONPointer.escape(name)
            let path = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            if path.contains("") {
                report(member, atKey: true, "\"\(name)\" is not a field name: use dot-separated non-empty words")
                failed = true
                continue
            }
            if let e = expression(value, at: member) {
                out.append(
                    FieldExpression(
                        path: path, expression: e, written: value,
                        location: context.map.location(base + member, preferKey: true)))
            } else {
                failed = true
            }
        }
        // A field set twice (`a` and `a.b`) would silently overwrite: refuse it.
        let names = Set(raw.keys)
        for name in raw.keys.sorted() {
            let parts = name.split(separator: ".")
            for n in 1..<max(parts.count, 1) where names.contains(parts[..<n].joined(separator: ".")) {
                report(
                    pointer + "/" + JSONPointer.escape(name), atKey: true,
                    "\"\(name)\" overlaps \"\(parts[..<n].joined(separator: "."))\"")
                failed = true
            }
        }
        return failed ? nil : out
    }
}
