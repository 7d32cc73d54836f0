import ArgumentParser
import Foundation
import LiveRelayCore
import Rules

struct EvalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Evaluate a JsonLogic expression the way rules do, and print the result as JSON.",
        discussion: """
            Rule conditions see {"prev": …, "curr": …, "changed": […], "now": …, "entity": {…}}; pass such an \
            object with --data to try a condition before it goes live.

            Examples:
              liverelay eval '{">": [{"var": "curr.home.score"}, {"var": "prev.home.score"}]}' \\
                --data '{"prev": {"home": {"score": 0}}, "curr": {"home": {"score": 1}}}'
              printf '%s\\n' '{"rule": {"+": [1, 2]}, "data": {}}' | liverelay eval --jsonl

            With --jsonl, every line of standard input is {"rule": …, "data": …} and every output line is the \
            result, or {"error": "…"} for a line that could not be evaluated; the other lines go on.
            """)

    @Argument(help: "The JsonLogic expression, as JSON.")
    var expression: String?

    @Option(help: "The data the expression reads, as JSON.")
    var data: String = "{}"

    @Flag(help: "Read {\"rule\": …, \"data\": …} lines from standard input; print one result per line.")
    var jsonl = false

    func validate() throws {
        if jsonl == (expression != nil) { throw ValidationError("give either an expression or --jsonl") }
    }

    func run() throws {
        if jsonl {
            while let line = readLine(strippingNewline: true) {
                if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
                standardOutput(EvalCommand.evaluateLine(line))
            }
            return
        }
        do {
            standardOutput(
                try EvalCommand.evaluate(
                    rule: try parse(expression!, what: "expression"), data: try parse(data, what: "--data")
                ).jsonString())
        } catch let message as EvalError {
            standardError("error: \(message.text)")
            throw ExitCode(1)
        }
    }

    struct EvalError: Error {
        var text: String
    }

    private func parse(_ text: String, what: String) throws -> JSONValue {
        do {
            // Numbers as rule files and feed bodies read them: exact decimals.
            return try JSONParser.parse(text, numbers: .decimal)
        } catch {
            throw EvalError(text: "\(what) is not valid JSON: \(error)")
        }
    }

    static func evaluate(rule: JSONValue, data: JSONValue) throws -> JSONValue {
        let expression: JsonLogicExpression
        do {
            expression = try JsonLogicExpression.compile(rule)
        } catch {
            throw EvalError(
                text: error.pointer.tokens.isEmpty ? error.message : "at \(error.pointer): \(error.message)")
        }
        do {
            return try expression.evaluate(data)
        } catch {
            throw EvalError(text: "the rule \(error)")
        }
    }

    /// One `--jsonl` line in, one JSON line out.
    static func evaluateLine(_ line: String) -> String {
        do {
            let object: JSONValue
            do {
                object = try JSONParser.parse(line)
            } catch {
                throw EvalError(text: "line is not valid JSON: \(error)")
            }
            guard case .object(let members) = object, let rule = members["rule"] else {
                throw EvalError(text: "expected an object with \"rule\" and optional \"data\"")
            }
            if let extra = members.keys.first(where: { $0 != "rule" && $0 != "data" }) {
                throw EvalError(text: "unknown key \"\(extra)\"")
            }
            return try evaluate(rule: rule, data: members["data"] ?? .emptyObject).jsonString()
        } catch let error as EvalError {
            return JSONValue.object(["error": .string(error.text)]).jsonString()
        } catch {
            return JSONValue.object(["error": .string("\(error)")]).jsonString()
        }
    }
}
