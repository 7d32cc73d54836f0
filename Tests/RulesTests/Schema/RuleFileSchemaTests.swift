import Foundation
import LiveRelayCore
import Rules
import Testing

/// `Rules/rules.schema.json`, the schema rule authors' editors use, checked with the validator LiveRelay uses.
@Suite struct RuleFileSchemaTests {
    static let schemaURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Schema
        .deletingLastPathComponent()  // RulesTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // the package
        .appendingPathComponent("Rules/rules.schema.json")

    let document: JSONValue
    let schema: JSONSchema

    init() throws {
        document = try JSONParser.parse(Data(contentsOf: Self.schemaURL))
        schema = try JSONSchema(document)
    }

    /// Validates a rule file and renders each violation as a rule author sees it: `line:column: message`.
    func check(_ text: String) throws -> [String] {
        let (instance, map) = try JSONParser.parseWithSourceMap(Data(text.utf8))
        return schema.validate(instance).map { v in "\(map.location(v.pointer, preferKey: v.atKey)): \(v.message)" }
    }

    @Test func aValidRuleFilePasses() throws {
        let file = #"""
            {
              "$schema": "./rules.schema.json",
              "description": "World Cup matches",
              "rules": [
                {
                  "id": "goal",
                  "description": "A goal: alert at high priority",
                  "feed": "espn-worldcup",
                  "when": {"and": [{"!=": [{"var": "prev.home.score"}, {"var": "curr.home.score"}]}]},
                  "activity": {
                    "key": {"cat": ["match-", {"var": "entity.id"}]},
                    "attributes-type": "MatchAttributes",
                    "attributes": {"homeTeam": {"var": "curr.home.name"}}
                  },
                  "event": "start",
                  "content-state": {"homeScore": {"var": "curr.home.score"}, "clock.minute": {"var": "curr.minute"}},
                  "relevance-score": 100,
                  "priority": "high",
                  "alert": {"title": "Goal!", "body": {"cat": [{"var": "curr.home.name"}, " scores"]}, "sound": "default"},
                  "stale-after": 900
                },
                {
                  "id": "minute.tick",
                  "feed": "espn-worldcup",
                  "when": {"var": "changed.minute"},
                  "activity": {"key": {"cat": ["match-", {"var": "entity.id"}]}, "attributes-type": "MatchAttributes"},
                  "event": "update",
                  "relevance-score": {"if": [{"var": "curr.live"}, 100, 10]},
                  "priority": "low"
                },
                {
                  "id": "full_time",
                  "feed": "espn-worldcup",
                  "when": {"==": [{"var": "curr.status"}, "final"]},
                  "activity": {"key": {"cat": ["match-", {"var": "entity.id"}]}, "attributes-type": "MatchAttributes"},
                  "event": "end",
                  "dismissal-after": 3600
                }
              ]
            }
            """#
        #expect(try check(file) == [])
        #expect(try check(#"{"rules": []}"#) == [])
    }

    @Test func reportsAMisspeltKeyAWrongTypeAndAMissingKeyExactly() throws {
        let file = #"""
            {
              "rules": [
                {
                  "id": "goal",
                  "feed": "espn-worldcup",
                  "when": true,
                  "activity": {"key": "match", "attributes-type": "MatchAttributes"},
                  "prioirty": "high",
                  "relevance-score": "high"
                }
              ]
            }
            """#
        let (instance, _) = try JSONParser.parseWithSourceMap(Data(file.utf8))
        #expect(
            schema.validate(instance) == [
                SchemaViolation(pointer: "/rules/0", atKey: true, message: #"missing required key "event""#),
                SchemaViolation(
                    pointer: "/rules/0/prioirty", atKey: true,
                    message: #"unknown key "prioirty" (did you mean "priority"?)"#),
                SchemaViolation(
                    pointer: "/rules/0/relevance-score", atKey: true,
                    message: #""relevance-score" must be a number or an object, not a string"#),
            ])
        #expect(
            try check(file) == [
                #"3:5: missing required key "event""#,
                #"8:7: unknown key "prioirty" (did you mean "priority"?)"#,
                #"9:7: "relevance-score" must be a number or an object, not a string"#,
            ])
    }

    @Test func aStartRuleNeedsAnAlertAndAttributes() throws {
        let file = #"""
            {"rules": [
              {"id": "kickoff", "feed": "f", "when": true, "event": "start",
               "activity": {"key": "k", "attributes-type": "MatchAttributes"}}
            ]}
            """#
        #expect(
            try check(file) == [
                #"2:3: missing required key "alert" (required when "event" is "start")"#,
                #"3:4: missing required key "attributes" (required when "event" is "start")"#,
            ])
    }

    @Test func reportsMistakesInsideNestedObjects() throws {
        let file = #"""
            {"rules": [
              {"id": "-bad", "feed": "f", "when": true, "event": "update",
               "activity": {"key": "k", "attributes-type": "Match Attributes"},
               "alert": {"title": "t"}, "priority": "urgent", "stale-after": -1, "dismissal-after": 60,
               "content-state": {"a..b": 1}}
            ]}
            """#
        #expect(
            try check(file) == [
                #"3:48: "attributes-type" must match the pattern ^[A-Za-z_][A-Za-z0-9_]*$, not "Match Attributes""#,
                #"4:4: missing required key "body""#,
                #"5:22: key "a..b" must match the pattern ^[^.]+(\.[^.]+)*$, not "a..b""#,
                #"4:70: "dismissal-after" is not allowed when "event" is "update""#,
                #"2:10: "id" must match the pattern ^[A-Za-z0-9][A-Za-z0-9_.-]*$, not "-bad""#,
                #"4:41: "priority" must be one of "high", "low", "auto", not "urgent""#,
                #"4:66: "stale-after" must be at least 0, not -1"#,
            ])
    }

    @Test func theFileItselfIsStrict() throws {
        #expect(try check(#"{"rules": [], "version": 2}"#) == [#"1:15: unknown key "version""#])
        #expect(try check(#"{}"#) == [#"1:1: missing required key "rules""#])
    }

    @Test func describesEveryPropertyForEditors() {
        var undescribed: [String] = []
        func walk(_ value: JSONValue, _ pointer: String) {
            switch value {
            case .object(let members):
                for (name, property) in members["properties"]?.objectValue ?? [:]
                where property["description"]?.stringValue == nil {
                    undescribed.append("\(pointer)/properties/\(name)")
                }
                // Conditions only constrain properties that are described where they are declared.
                for (key, member) in members where !["if", "then", "else"].contains(key) {
                    walk(member, "\(pointer)/\(key)")
                }
            case .array(let elements):
                for (i, element) in elements.enumerated() { walk(element, "\(pointer)/\(i)") }
            default: break
            }
        }
        walk(document, "")
        #expect(undescribed.sorted() == [])
        #expect(document["$id"] == "https://liverelay.dev/schemas/rules.schema.json")
        #expect(document["$schema"] == "https://json-schema.org/draft/2020-12/schema")
    }
}
