import Foundation
import LiveRelayCore
import Rules
import Testing

/// One `[rule, data, expected]` entry of the official JsonLogic test suite.
struct ConformanceCase: Sendable, CustomTestStringConvertible {
    /// 1-based position among the cases (section comments are not counted).
    let number: Int
    let rule: JSONValue
    let data: JSONValue
    let expected: JSONValue

    var testDescription: String { "#\(number) \(rule.jsonString()) with \(data.jsonString())" }

    struct LoadError: Error, CustomStringConvertible {
        let description: String
    }

    /// Every case of `Resources/jsonlogic-tests.json`, or why the file could not be read.
    static let loaded: Result<[ConformanceCase], any Error> = Result { try load() }

    /// The cases to run; empty when loading failed, which `suiteHasAllCases` reports.
    static var all: [ConformanceCase] { (try? loaded.get()) ?? [] }

    private static func load() throws -> [ConformanceCase] {
        guard
            let url = Bundle.module.url(
                forResource: "jsonlogic-tests", withExtension: "json", subdirectory: "Resources")
        else { throw LoadError(description: "jsonlogic-tests.json is not in the test bundle") }
        guard case .array(let entries) = try JSONParser.parse(Data(contentsOf: url)) else {
            throw LoadError(description: "jsonlogic-tests.json is not an array")
        }
        var cases: [ConformanceCase] = []
        for entry in entries {
            switch entry {
            case .string:
                continue  // a section comment
            case .array(let parts) where parts.count == 3:
                cases.append(
                    ConformanceCase(number: cases.count + 1, rule: parts[0], data: parts[1], expected: parts[2]))
            default:
                throw LoadError(description: "unexpected entry \(entry.jsonString())")
            }
        }
        return cases
    }
}

@Suite struct JsonLogicConformanceTests {
    @Test func suiteHasAllCases() throws {
        #expect(try ConformanceCase.loaded.get().count == 277)
    }

    @Test(arguments: ConformanceCase.all)
    func matchesReference(_ testCase: ConformanceCase) throws {
        let expression = try JsonLogicExpression.compile(testCase.rule)
        let result = try expression.evaluate(testCase.data)
        #expect(result == testCase.expected, "got \(result.jsonString())")
        // With lookups shared through a memo (as the rule engine evaluates many rules on one change): the
        // first evaluation fills it, the second reads from it; both must match the reference.
        let memo = JsonLogicMemo()
        #expect(try expression.evaluate(testCase.data, memo: memo) == testCase.expected)
        #expect(try expression.evaluate(testCase.data, memo: memo) == testCase.expected)
    }
}
