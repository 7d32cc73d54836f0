import LiveRelayCore
import Rules

/// Compiles and evaluates rule and data written as JSON text.
func evaluate(_ rule: String, _ data: String = "null") throws -> JSONValue {
    try JsonLogicExpression.compile(JSONParser.parse(rule)).evaluate(JSONParser.parse(data))
}
