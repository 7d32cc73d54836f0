public import Delivery
import Feeds
import Foundation
public import LiveRelayCore
public import Rules
public import Throttling

extension LoadedConfig {
    /// The rule files the config names, loaded with diagnostics (feed ids checked against the config, and
    /// the rules against the content-state contracts: ``ContractCheck``).
    public func loadRules() -> RuleSet {
        var set = ruleLoader.load(paths: config.rules.map(resolve))
        ContractCheck.apply(to: &set, contracts: contracts, facts: factTypes)
        return set
    }

    /// A rule loader that checks feed ids and the facts rules read against this config's feeds.
    public var ruleLoader: RuleLoader {
        let known = factNames
        let presets = FeedPreset.allCases.flatMap { $0.factCatalogue.paths }
        var loader = RuleLoader(
            knownFeeds: Set(config.feeds.map(\.id)), knownFacts: known,
            otherFacts: Set(presets).union(known.values.joined()))
        loader.stateSchemas = contracts.mapValues(\.contentState.written)
        return loader
    }

    /// The fact paths each feed gives: its preset's catalogue, or its mapping's fields.
    public var factNames: [String: Set<String>] {
        var out: [String: Set<String>] = [:]
        for feed in feeds {
            if let catalogue = feed.normalizer.factCatalogue {
                out[feed.id] = Set(catalogue.paths)
            } else if let fields = feed.normalizer.factFields {
                out[feed.id] = Set(fields.keys)
            }
        }
        return out
    }

    /// Each feed's facts with their types, where its mapping says them.
    public var factTypes: [String: [String: ContractCheck.Fact]] {
        var out: [String: [String: ContractCheck.Fact]] = [:]
        for feed in feeds {
            guard let fields = feed.normalizer.factFields else { continue }
            out[feed.id] = fields.mapValues { field in
                let kind: ContractCheck.Fact.Kind =
                    switch field.type {
                    case .int: .int
                    case .decimal: .decimal
                    case .string: .string
                    case .bool: .bool
                    case .time: .time
                    }
                return ContractCheck.Fact(kind: kind, optional: field.optional)
            }
        }
        return out
    }

    /// Every provider entry, by id: `provider` and the entries of `providers` (without `provider`, the first
    /// of `providers` is the default: one entry under one id).
    public var providerEntries: [ProviderConfig] {
        config.defaultIsFirstOfProviders ? config.providers : [config.provider] + config.providers
    }

    /// The id of the default provider.
    public var defaultProviderID: String { config.provider.id }

    /// The routes of the config for these rules: `rule-file` routes name the rules loaded from that file.
    /// A route naming no provider entry is a diagnostic.
    public func routes(for rules: RuleSet) throws(Diagnostics) -> ProviderRoutes {
        var routes = ProviderRoutes(defaultProvider: defaultProviderID)
        let ids = Set(config.providers.map(\.id))
        for (i, route) in config.routes.enumerated() {
            guard ids.contains(route.provider) else {
                throw Diagnostics([
                    Diagnostic(
                        file: path, location: location("/routes/\(i)/provider"),
                        message: "routes[\(i)].provider: no entry of providers has the id \"\(route.provider)\"")
                ])
            }
            if let type = route.attributesType, routes.byAttributesType[type] == nil {
                routes.byAttributesType[type] = route.provider
            }
            if let file = route.ruleFile {
                let path = URL(fileURLWithPath: resolve(file)).standardizedFileURL.path
                for rule in rules.rules
                where routes.byRule[rule.id] == nil
                    && URL(fileURLWithPath: rule.source.file).standardizedFileURL.path == path
                {
                    routes.byRule[rule.id] = route.provider
                }
            }
        }
        try addModes(to: &routes, rules: rules)
        return routes
    }

    /// The `activity-modes` entries, each checked: a mode other than `token` needs the pushes it covers to go
    /// to an APNs provider with `channels`.
    private func addModes(to routes: inout ProviderRoutes, rules: RuleSet) throws(Diagnostics) {
        let withChannels = Set(providerEntries.filter(\.settings.hasChannels).map(\.id))
        for (i, entry) in config.activityModes.enumerated() {
            func check(_ provider: String, _ what: String) throws(Diagnostics) {
                guard entry.mode != .token, !withChannels.contains(provider) else { return }
                throw Diagnostics([
                    Diagnostic(
                        file: path, location: nil,
                        message: "activity-modes[\(i)]: mode \(entry.mode.rawValue) needs an apns provider with "
                            + "channels, but \(what) go to provider \"\(provider)\"")
                ])
            }
            if let type = entry.attributesType, routes.modeByAttributesType[type] == nil {
                try check(routes.byAttributesType[type] ?? routes.defaultProvider, "pushes of \(type)")
                routes.modeByAttributesType[type] = entry.mode
            }
            if let file = entry.ruleFile {
                let path = URL(fileURLWithPath: resolve(file)).standardizedFileURL.path
                for rule in rules.rules
                where routes.modeByRule[rule.id] == nil
                    && URL(fileURLWithPath: rule.source.file).standardizedFileURL.path == path
                {
                    try check(routes.byRule[rule.id] ?? routes.defaultProvider, "the pushes of rule \(rule.id)")
                    routes.modeByRule[rule.id] = entry.mode
                }
            }
        }
        try addEntityChannels(to: &routes, rules: rules)
    }

    /// Personal rules in `channel` mode (in `both` they run by tokens, as in `token`): an entity's alerts of their attributes type share one
    /// channel (``EntityChannel``), so every broadcast reaches all of them. Refused: a content-state that
    /// reads `subscription` (the broadcast's state is everyone's), a shared rule of the same attributes type,
    /// and personal rules of one type in different modes.
    private func addEntityChannels(to routes: inout ProviderRoutes, rules: RuleSet) throws(Diagnostics) {
        var problems: [Diagnostic] = []
        var modeOf: [String: (mode: ActivityMode, rule: Rule)] = [:]
        for rule in rules.rules where rule.subscription != nil {
            let mode = routes.modeByAttributesType[rule.attributesType] ?? routes.modeByRule[rule.id] ?? .token
            if let first = modeOf[rule.attributesType], first.mode != mode {
                problems.append(
                    Diagnostic(
                        file: rule.source.file, location: rule.source.location,
                        message: "rule \(rule.id): \(rule.attributesType) is in activity mode \(mode.rawValue) here "
                            + "but \(first.mode.rawValue) for rule \(first.rule.id): an entity's personal activities "
                            + "of one attributes type share its channel or none do"))
                continue
            }
            modeOf[rule.attributesType] = (mode, rule)
            guard mode == .channel else { continue }
            if let field = rule.personalContentField {
                problems.append(
                    Diagnostic(
                        file: rule.source.file, location: field.location ?? rule.source.location,
                        message: "rule \(rule.id): content-state.\(field.path.joined(separator: ".")) reads "
                            + "subscription, but in \(mode.rawValue) mode an entity's personal activities share one "
                            + "channel and every broadcast carries one content-state to all of them; keep what is "
                            + "personal in the attributes"))
            }
        }
        for (type, first) in modeOf where first.mode == .channel {
            routes.entityChannels[type] = first.mode
            if let shared = rules.rules.first(where: { $0.subscription == nil && $0.attributesType == type }) {
                problems.append(
                    Diagnostic(
                        file: shared.source.file, location: shared.source.location,
                        message: "rule \(shared.id): \(type) is the attributes type of personal rules that share "
                            + "their entity's channel (rule \(first.rule.id)); a shared rule needs a type of its own"))
            }
        }
        guard problems.isEmpty else {
            throw Diagnostics(
                problems.sorted {
                    ($0.file, $0.location?.line ?? 0, $0.location?.column ?? 0)
                        < ($1.file, $1.location?.line ?? 0, $1.location?.column ?? 0)
                })
        }
    }

    /// The throttle's settings: the budgets, and each provider's request rate as the lane of its id.
    public var throttleConfiguration: ThrottleConfiguration {
        let t = config.throttle
        var lanes: [String: RequestRate] = [:]
        for entry in providerEntries where lanes[entry.id] == nil {
            lanes[entry.id] = RequestRate(rate: entry.rate, burst: entry.burst)
        }
        return ThrottleConfiguration(
            defaultBudget: t.budget, budgets: t.budgets, minimumInterval: t.minimumInterval,
            autoRelevanceThreshold: config.priority.autoRelevanceThreshold, lanes: lanes)
    }
}
