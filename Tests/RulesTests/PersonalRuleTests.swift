import Foundation
import LiveRelayCore
import Rules
import Testing

/// A rule file that declares `subscription`: its rules are personal, evaluated once per subscription of the
/// changed entity, each reading its own parameters, each subscription's activity its own.
@Suite struct PersonalRuleTests {
    static let file = """
        {"subscription": {"type": "object", "properties": {"above": {"type": "number"},
           "move": {"type": "object", "properties": {"percent": {"type": "number"}}, "additionalProperties": false}},
           "required": ["above"], "additionalProperties": false},
         "rules": [
          {"id": "crosses", "feed": "prices",
           "when": {"and": [{"<": [{"var": "prev.price"}, {"var": "subscription.parameters.above"}]},
                            {">=": [{"var": "curr.price"}, {"var": "subscription.parameters.above"}]}]},
           "event": "start",
           "activity": {"key": {"cat": ["alert-", {"var": "subscription.id"}]}, "attributes-type": "PriceAlert",
                        "attributes": {"level": {"var": "subscription.parameters.above"}}},
           "content-state": {"price": {"var": "curr.price"}},
           "alert": {"title": "Above your level", "body": {"cat": ["now ", {"var": "curr.price"}]}}}
         ]}
        """

    static func load(_ text: String) -> ([Rule], [Diagnostic]) {
        RuleLoader(knownFeeds: ["prices"], knownFacts: ["prices": ["price"]])
            .load(file: "alerts.json", data: Data(text.utf8))
    }

    static func subscription(_ id: String, device: String, above: Double) -> Subscription {
        Subscription(
            id: id, device: device, entity: EntityKey(feed: "prices", id: "AAPL"),
            parameters: .object(["above": .double(above)]), createdAt: 1_000)
    }

    @Test func eachSubscriptionCrossesAtItsOwnLevel() throws {
        let (rules, diagnostics) = Self.load(Self.file)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        let engine = RuleEngine(rules: rules)
        #expect(engine.hasPersonalRules(feed: "prices"))
        #expect(engine.subscriptionParameters["prices"]?.map(\.file) == ["alerts.json"])
        let change = FeedChange(
            entity: EntityKey(feed: "prices", id: "AAPL"), previous: Facts(["price": .double(189.2)]),
            current: Facts(["price": .double(190.4)]), changedPaths: ["price"])
        let subscriptions = [
            Self.subscription("a", device: "iphone-a", above: 190),
            Self.subscription("b", device: "iphone-b", above: 195),
            Self.subscription("c", device: "iphone-c", above: 189.5),
        ]
        let evaluation = engine.evaluate(change, now: 2_000, subscriptions: subscriptions)
        #expect(evaluation.errors.isEmpty, "\(evaluation.errors)")
        #expect(evaluation.intents.map(\.activity.rawValue) == ["alert-a", "alert-c"])
        #expect(evaluation.intents.map { $0.subscription?.device } == ["iphone-a", "iphone-c"])
        #expect(evaluation.intents.first?.attributes == .object(["level": .double(190)]))
        // Without subscriptions a personal rule does nothing.
        #expect(engine.evaluate(change, now: 2_000).intents.isEmpty)
    }

    @Test(arguments: [
        // A parameter the file does not declare.
        (
            #"{"var": "subscription.parameters.abuve"}"#,
            "no abuve at subscription.parameters (did you mean subscription.parameters.above?)"
        ),
        // Beneath a closed object.
        (#"{"var": "subscription.parameters.move.percnt"}"#, "no percnt at subscription.parameters.move"),
        // A member a subscription does not have.
        (#"{"var": "subscription.user"}"#, "subscription has no user"),
    ])
    func checksWhatTheRulesReadAgainstTheParameters(read: String, message: String) throws {
        let text = Self.file.replacingOccurrences(
            of: #""content-state": {"price": {"var": "curr.price"}}"#, with: #""content-state": {"x": \#(read)}"#)
        let diagnostics = Self.load(text).1
        let error = try #require(diagnostics.first, "no diagnostic for \(read)")
        #expect(diagnostics.count == 1, "\(diagnostics)")
        #expect(error.description.hasPrefix("alerts.json:"), "\(error)")
        #expect(error.location?.line == 11, "\(error)")
        #expect(error.description.contains(message), "\(error)")
    }

    @Test func aPersonalKeyMustReadTheSubscription() throws {
        let text = Self.file.replacingOccurrences(
            of: #"{"cat": ["alert-", {"var": "subscription.id"}]}"#, with: #"{"var": "entity.id"}"#)
        let error = try #require(Self.load(text).1.first)
        #expect(error.description.contains("must read subscription.id"), "\(error)")
        #expect(error.location?.line == 9, "\(error)")
    }

    @Test func aSharedRuleSeesNoSubscription() throws {
        let text = """
            {"rules": [{"id": "r", "feed": "prices", "when": {">": [{"var": "curr.price"},
              {"var": "subscription.parameters.above"}]}, "event": "update",
              "activity": {"key": "k", "attributes-type": "T"}}]}
            """
        let error = try #require(Self.load(text).1.first)
        #expect(error.description.contains("declares no \"subscription\""), "\(error)")
        #expect(error.location?.line == 2, "\(error)")
    }

    @Test func aSchemaThatCannotCompileIsAnErrorWhereItIsWritten() throws {
        let text = Self.file.replacingOccurrences(
            of: #""above": {"type": "number"}"#, with: #""above": {"type": "numeral"}"#)
        let (rules, diagnostics) = Self.load(text)
        let error = try #require(diagnostics.first)
        #expect(error.description.contains("subscription"), "\(error)")
        #expect(error.location?.line == 1, "\(error)")
        #expect(rules.isEmpty || rules.allSatisfy { $0.subscription == nil })
    }
}
