import Foundation
import LiveRelayCore
import Rules
import Testing

/// One case of the JsonLogic community compatibility suites (`Resources/community`, see its SOURCE.md).
struct CommunityCase: Sendable, CustomTestStringConvertible {
    /// What the suite expects: a value, or an error raised (or, for `Invalid Arguments`, refused at load).
    enum Expected: Sendable {
        case value(JSONValue)
        case error(JSONValue)
    }

    /// The suite file, relative to the suites folder (`arithmetic/plus.json`).
    let file: String
    let description: String
    let rule: JSONValue
    let data: JSONValue
    let expected: Expected

    /// The case's name in test output: `file: description`.
    var key: String { "\(file): \(description)" }
    var testDescription: String { key }
}

/// What LiveRelay does with a case.
enum CommunityOutcome: Equatable, Sendable, CustomStringConvertible {
    case value(JSONValue)
    case raised(JSONValue)
    case refused(JsonLogicError)
    case limit(JsonLogicLimitError)

    init(_ testCase: CommunityCase, memo: JsonLogicMemo? = nil) {
        let expression: JsonLogicExpression
        do {
            expression = try JsonLogicExpression.compile(testCase.rule)
        } catch {
            self = .refused(error)
            return
        }
        do {
            self = .value(try expression.evaluate(testCase.data, memo: memo))
        } catch {
            switch error {
            case .raised(let raised): self = .raised(raised)
            case .limit(let limit): self = .limit(limit)
            }
        }
    }

    /// Whether this is what the suite expects. The suites' `{"type": "Invalid Arguments"}` is also met by a
    /// load-time diagnostic about the arguments: LiveRelay refuses such a rule before it can run.
    func meets(_ expected: CommunityCase.Expected) -> Bool {
        switch (self, expected) {
        case (.value(let value), .value(let wanted)): return value == wanted
        case (.raised(let error), .error(let wanted)): return error == wanted
        case (.refused(let error), .error(let wanted)):
            return wanted == ["type": "Invalid Arguments"]
                && (error.code == .invalidArguments || error.code == .missingArgument)
        default: return false
        }
    }

    var description: String {
        switch self {
        case .value(let value): return "value \(value.jsonString())"
        case .raised(let error): return "raised \(error.jsonString())"
        case .refused(let error): return "refused at load (\(error.code)): \(error)"
        case .limit(let limit): return "past a limit: \(limit)"
        }
    }
}

enum CommunitySuite {
    struct LoadError: Error, CustomStringConvertible {
        let description: String
    }

    /// Every case of every file `index.json` lists, or why they could not be read.
    static let loaded: Result<[CommunityCase], any Error> = Result { try load() }

    /// The cases to run; empty when loading failed, which `suitesHaveEveryCase` reports.
    static var all: [CommunityCase] { (try? loaded.get()) ?? [] }

    private static func load() throws -> [CommunityCase] {
        guard
            let folder = Bundle.module.url(forResource: "community", withExtension: nil, subdirectory: "Resources")
        else { throw LoadError(description: "Resources/community is not in the test bundle") }
        guard case .array(let files) = try JSONParser.parse(Data(contentsOf: folder.appending(path: "index.json")))
        else { throw LoadError(description: "index.json is not an array") }
        var cases: [CommunityCase] = []
        for case .string(let file) in files {
            // Numbers as LiveRelay reads rule files and feed facts: exact decimals.
            let text = try Data(contentsOf: folder.appending(path: file))
            guard case .array(let entries) = try JSONParser.parse(text, numbers: .decimal) else {
                throw LoadError(description: "\(file) is not an array")
            }
            for entry in entries {
                switch entry {
                case .string:
                    continue  // a comment
                case .object(let members):
                    guard case .string(let description)? = members["description"], let rule = members["rule"]
                    else { throw LoadError(description: "\(file): a case without description or rule") }
                    let expected: CommunityCase.Expected
                    if let error = members["error"] {
                        expected = .error(error)
                    } else if let result = members["result"] {
                        expected = .value(result)
                    } else {
                        throw LoadError(description: "\(file): \(description) expects nothing")
                    }
                    cases.append(
                        CommunityCase(
                            file: file, description: description, rule: rule, data: members["data"] ?? .emptyObject,
                            expected: expected))
                default:
                    throw LoadError(description: "\(file): unexpected entry \(entry.jsonString())")
                }
            }
        }
        return cases
    }
}

@Suite struct JsonLogicCommunitySuiteTests {
    @Test func suitesHaveEveryCase() throws {
        let cases = try CommunitySuite.loaded.get()
        #expect(cases.count == 1138)
        #expect(Set(cases.map(\.file)).count == 48)
    }

    /// The pass figure docs/rules.md gives: every case.
    @Test func everyCasePasses() throws {
        let cases = try CommunitySuite.loaded.get()
        let passing = cases.filter { CommunityOutcome($0).meets($0.expected) }.count
        #expect(passing == 1138)
    }

    @Test(arguments: CommunitySuite.all)
    func matchesTheSuite(_ testCase: CommunityCase) {
        let outcome = CommunityOutcome(testCase)
        #expect(outcome.meets(testCase.expected), "expected \(testCase.expected), got \(outcome)")
        // With lookups shared through a memo, as the rule engine evaluates: filled, then read.
        let memo = JsonLogicMemo()
        #expect(CommunityOutcome(testCase, memo: memo) == outcome)
        #expect(CommunityOutcome(testCase, memo: memo) == outcome)
    }
}
