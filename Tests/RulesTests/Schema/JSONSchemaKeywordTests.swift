import LiveRelayCore
import Rules
import Testing

/// One schema, one instance, and the violations a reader sees, as `pointer: message`.
struct SchemaCase: Sendable, CustomTestStringConvertible {
    var name: String
    var schema: String
    var instance: String
    var expected: [String]

    init(_ name: String, _ schema: String, _ instance: String, _ expected: [String]) {
        self.name = name
        self.schema = schema
        self.instance = instance
        self.expected = expected
    }

    var testDescription: String { name }
}

@Suite struct JSONSchemaKeywordTests {
    static let cases: [SchemaCase] = [
        // type
        SchemaCase("type at the root", #"{"type": "string"}"#, "5", ["(root): value must be a string, not an integer"]),
        SchemaCase(
            "type of a member", #"{"properties": {"relevance-score": {"type": "number"}}}"#,
            #"{"relevance-score": "high"}"#,
            [#"/relevance-score: "relevance-score" must be a number, not a string"#]),
        SchemaCase(
            "integer accepts integral doubles only", #"{"items": {"type": "integer"}}"#, #"[1, 2.0, 2.5, "x"]"#,
            ["/2: element 2 must be an integer, not 2.5", "/3: element 3 must be an integer, not a string"]),
        SchemaCase(
            "type list", #"{"type": ["string", "null"]}"#, "true",
            ["(root): value must be a string or null, not a boolean"]),
        SchemaCase("number accepts integers", #"{"type": "number"}"#, "3", []),
        // enum, const
        SchemaCase(
            "enum", #"{"properties": {"event": {"enum": ["start", "update", "end"]}}}"#, #"{"event": "begin"}"#,
            [#"/event: "event" must be one of "start", "update", "end", not "begin""#]),
        SchemaCase(
            "enum with a container", #"{"enum": [1, 2]}"#, "[1]", ["(root): value must be one of 1, 2, not an array"]),
        SchemaCase("const", #"{"const": "a"}"#, #""b""#, [#"(root): value must be "a", not "b""#]),
        SchemaCase("const compares numbers by value", #"{"const": {"a": [1, 2]}}"#, #"{"a": [1.0, 2]}"#, []),
        // objects
        SchemaCase(
            "required", #"{"required": ["event", "feed"]}"#, #"{"feed": "x"}"#,
            [#"(root): missing required key "event""#]),
        SchemaCase(
            "additionalProperties false suggests the closest key",
            #"{"properties": {"priority": {}, "feed": {}}, "additionalProperties": false}"#,
            #"{"prioirty": "high", "zzz": 1, "feed": "f"}"#,
            [#"/prioirty: unknown key "prioirty" (did you mean "priority"?)"#, #"/zzz: unknown key "zzz""#]),
        SchemaCase(
            "no suggestion of a key already present",
            #"{"properties": {"priority": {}}, "additionalProperties": false}"#,
            #"{"prioirty": "high", "priority": "low"}"#, [#"/prioirty: unknown key "prioirty""#]),
        SchemaCase(
            "suggestions stay close", #"{"properties": {"id": {}, "feed": {}}, "additionalProperties": false}"#,
            #"{"x": 1, "feeed": 2, "Id": 3}"#,
            [
                #"/Id: unknown key "Id" (did you mean "id"?)"#, #"/feeed: unknown key "feeed" (did you mean "feed"?)"#,
                #"/x: unknown key "x""#,
            ]),
        SchemaCase(
            "additionalProperties schema", #"{"additionalProperties": {"type": "string"}}"#, #"{"a": "x", "b": 1}"#,
            [#"/b: "b" must be a string, not an integer"#]),
        SchemaCase(
            "patternProperties", #"{"patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": false}"#,
            #"{"x-a": "ok", "x-b": 2, "y": 1}"#,
            [#"/x-b: "x-b" must be a string, not an integer"#, #"/y: unknown key "y""#]),
        SchemaCase(
            "propertyNames", #"{"propertyNames": {"pattern": "^[a-z]+$"}}"#, #"{"ok": 1, "Bad": 2}"#,
            [#"/Bad: key "Bad" must match the pattern ^[a-z]+$, not "Bad""#]),
        SchemaCase("minProperties", #"{"minProperties": 1}"#, "{}", ["(root): value must not be empty"]),
        SchemaCase(
            "maxProperties", #"{"maxProperties": 1}"#, #"{"a": 1, "b": 2}"#,
            ["(root): value must have at most 1 key (got 2)"]),
        SchemaCase(
            "escaped pointers", #"{"properties": {"a/b": {"type": "string"}}}"#, #"{"a/b": 1}"#,
            [#"/a~1b: "a/b" must be a string, not an integer"#]),
        // arrays
        SchemaCase(
            "prefixItems with items false",
            #"{"prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false}"#,
            #"["a", "b", 3]"#,
            ["(root): value must have at most 2 elements (got 3)", "/1: element 1 must be an integer, not a string"]),
        SchemaCase(
            "minItems", #"{"properties": {"tags": {"minItems": 2}}}"#, #"{"tags": ["a"]}"#,
            [#"/tags: "tags" must have at least 2 elements (got 1)"#]),
        SchemaCase("maxItems", #"{"maxItems": 1}"#, "[1, 2]", ["(root): value must have at most 1 element (got 2)"]),
        SchemaCase(
            "uniqueItems", #"{"uniqueItems": true}"#, #"[1, "a", 1.0, "a"]"#,
            ["/2: element 2 is a duplicate of element 0", "/3: element 3 is a duplicate of element 1"]),
        SchemaCase(
            "elements sort by index", #"{"items": {"type": "string"}}"#,
            #"["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", 10, 11]"#,
            ["/10: element 10 must be a string, not an integer", "/11: element 11 must be a string, not an integer"]),
        // numbers
        SchemaCase(
            "minimum", #"{"properties": {"stale-after": {"minimum": 0}}}"#, #"{"stale-after": -5}"#,
            [#"/stale-after: "stale-after" must be at least 0, not -5"#]),
        SchemaCase(
            "exclusiveMinimum", #"{"exclusiveMinimum": 0}"#, "0", ["(root): value must be greater than 0, not 0"]),
        SchemaCase("maximum", #"{"maximum": 10}"#, "10.5", ["(root): value must be at most 10, not 10.5"]),
        SchemaCase(
            "exclusiveMaximum", #"{"exclusiveMaximum": 1.5}"#, "1.5", ["(root): value must be less than 1.5, not 1.5"]),
        SchemaCase(
            "number keywords ignore other types", #"{"minimum": 0, "minLength": 2}"#, #"-1"#,
            [
                "(root): value must be at least 0, not -1"
            ]),
        // strings
        SchemaCase(
            "minLength", #"{"minLength": 3}"#, #""ab""#, ["(root): value must be at least 3 characters long (got 2)"]),
        SchemaCase("minLength 1", #"{"minLength": 1}"#, #""""#, ["(root): value must not be empty"]),
        SchemaCase(
            "maxLength counts code points", #"{"maxLength": 2}"#, #""é€x""#,
            ["(root): value must be at most 2 characters long (got 3)"]),
        SchemaCase(
            "pattern", #"{"pattern": "^[A-Za-z0-9][A-Za-z0-9_.-]*$"}"#, #""-goal""#,
            [#"(root): value must match the pattern ^[A-Za-z0-9][A-Za-z0-9_.-]*$, not "-goal""#]),
        SchemaCase("pattern is not anchored", #"{"pattern": "b"}"#, #""abc""#, []),
        // combinators
        SchemaCase(
            "allOf reports every branch", #"{"allOf": [{"minimum": 1}, {"maximum": 0}]}"#, "0.5",
            ["(root): value must be at least 1, not 0.5", "(root): value must be at most 0, not 0.5"]),
        SchemaCase(
            "anyOf merges wanted types",
            #"{"properties": {"score": {"anyOf": [{"type": "number", "minimum": 0}, {"type": "object"}]}}}"#,
            #"{"score": "high"}"#, [#"/score: "score" must be a number or an object, not a string"#]),
        SchemaCase(
            "anyOf reports the branch of the right type",
            #"{"properties": {"score": {"anyOf": [{"type": "number", "minimum": 0}, {"type": "object"}]}}}"#,
            #"{"score": -1}"#, [#"/score: "score" must be at least 0, not -1"#]),
        SchemaCase(
            "anyOf merges values and types", #"{"anyOf": [{"const": "auto"}, {"type": "integer"}]}"#, #""x""#,
            [#"(root): value must be an integer or "auto", not "x""#]),
        SchemaCase("anyOf passes", #"{"anyOf": [{"type": "string"}, {"type": "integer"}]}"#, "1", []),
        SchemaCase(
            "oneOf picks the intended alternative",
            #"""
            {"oneOf": [
              {"type": "object", "required": ["kind", "team"], "additionalProperties": false,
               "properties": {"kind": {"const": "goal"}, "team": {"type": "string"}}},
              {"type": "object", "required": ["kind", "player"], "additionalProperties": false,
               "properties": {"kind": {"const": "card"}, "player": {"type": "string"},
                              "colour": {"enum": ["yellow", "red"]}}}
            ]}
            """#,
            #"{"kind": "card", "player": "X", "colur": "red"}"#,
            [#"/colur: unknown key "colur" (did you mean "colour"?)"#]),
        SchemaCase(
            "oneOf matching twice", #"{"oneOf": [{"type": "integer"}, {"minimum": 0}]}"#, "1",
            ["(root): value must match exactly one alternative, but matches #/oneOf/0 and #/oneOf/1"]),
        SchemaCase("oneOf passes", #"{"oneOf": [{"type": "integer"}, {"type": "string"}]}"#, "1", []),
        SchemaCase("not", #"{"not": {"const": "x"}}"#, #""x""#, ["(root): value must not match the schema at #/not"]),
        SchemaCase(
            "if/then names the condition", ifThenElse, #"{"event": "start"}"#,
            [#"(root): missing required key "alert" (required when "event" is "start")"#]),
        SchemaCase("if/else", ifThenElse, #"{"event": "end", "alert": {}}"#, [#"/alert: "alert" is not allowed"#]),
        SchemaCase("if without the condition's key", ifThenElse, #"{}"#, []),
        // references and boolean schemas
        SchemaCase(
            "$ref to $defs",
            ##"{"$defs": {"pos": {"type": "integer", "minimum": 1}}, "properties": {"a": {"$ref": "#/$defs/pos"}}}"##,
            #"{"a": 0}"#, [#"/a: "a" must be at least 1, not 0"#]),
        SchemaCase(
            "recursive $ref",
            ##"{"type": "object", "properties": {"child": {"$ref": "#"}}, "additionalProperties": false}"##,
            #"{"child": {"child": {"x": 1}}}"#, [#"/child/child/x: unknown key "x""#]),
        SchemaCase("true schema", "true", #"{"anything": [1]}"#, []),
        SchemaCase("false schema", "false", "1", ["(root): value is not allowed"]),
        SchemaCase("false property", #"{"properties": {"x": false}}"#, #"{"x": 1}"#, [#"/x: "x" is not allowed"#]),
        SchemaCase(
            "annotations are ignored",
            #"{"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://x.dev/s.json", "title": "t", "description": "d", "$comment": "c", "examples": [1], "default": 1}"#,
            #""anything""#, []),
    ]

    static let ifThenElse = #"""
        {"if": {"properties": {"event": {"const": "start"}}, "required": ["event"]},
         "then": {"required": ["alert"]}, "else": {"properties": {"alert": false}}}
        """#

    @Test(arguments: cases)
    func reportsViolations(_ c: SchemaCase) throws {
        let schema = try JSONSchema(JSONParser.parse(c.schema))
        let violations = schema.validate(try JSONParser.parse(c.instance))
        #expect(violations.map(\.description) == c.expected)
    }

    @Test func pointsAtTheKeyForUnknownKeysWrongTypesAndMissingKeys() throws {
        let schema = try JSONSchema(
            JSONParser.parse(
                #"{"properties": {"a": {"type": "string"}, "b": {"minimum": 1}}, "required": ["c"], "additionalProperties": false}"#
            ))
        let violations = schema.validate(try JSONParser.parse(#"{"a": 1, "b": 0, "d": 1}"#))
        #expect(violations.map(\.pointer) == ["", "/a", "/b", "/d"])
        #expect(violations.map(\.atKey) == [true, true, false, true])
    }
}
