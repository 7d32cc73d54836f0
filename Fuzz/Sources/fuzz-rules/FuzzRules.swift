import Foundation
import FuzzSupport
import LiveRelayCore
import Rules

/// The rule loader on any bytes as a rule file (parse with positions, schema, compile, diagnostics), the
/// compiled rules run on two fixed changes of their feed, and, when the text is a JsonLogic test case
/// `[rule, data, …]`, that expression compiled and evaluated with and without a memo (which must agree).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRules(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Data(bytes: data, count: size)
    let (rules, diagnostics) = RuleLoader().load(file: "fuzz.rules.json", data: input)
    invariant(!rules.isEmpty || !diagnostics.isEmpty || isEmptyRuleFile(input), "no rules and no diagnostics")
    for diagnostic in diagnostics {
        _ = diagnostic.description
    }
    let (checked, _) = RuleLoader(knownFeeds: ["espn-worldcup", "markets"]).load(file: "fuzz.rules.json", data: input)
    invariant(
        checked.allSatisfy { ["espn-worldcup", "markets"].contains($0.feed) }, "a rule of an unknown feed loaded")

    if !rules.isEmpty {
        let engine = RuleEngine(rules: rules)
        for feed in Set(rules.map(\.feed)).prefix(4) {
            for change in changes(feed: feed) {
                _ = engine.evaluate(change, now: 1_780_000_000)
            }
        }
    }

    if case .array(let test)? = try? JSONParser.parse(input), let rule = test.first,
        let expression = try? JsonLogicExpression.compile(rule)
    {
        let subject = test.count > 1 ? test[1] : .null
        // An evaluation past its limits, or one that raises an error, is an error, the same with or without a
        // memo; never a crash.
        let plain = Result { () throws(JsonLogicEvaluationError) in try expression.evaluate(subject) }
        let memoised = Result { () throws(JsonLogicEvaluationError) in
            try expression.evaluate(subject, memo: JsonLogicMemo())
        }
        let text = { (r: Result<JSONValue, JsonLogicEvaluationError>) in
            switch r {
            case .success(let v): v.jsonString()
            case .failure(let e): "error: \(e)"
            }
        }
        invariant(
            text(plain) == text(memoised),
            "memoised evaluation differs: \(text(plain).prefix(80)) vs \(text(memoised).prefix(80))")
        if expression.isConstant {
            let constant = Result { () throws(JsonLogicEvaluationError) in try expression.evaluate(.null) }
            invariant(text(constant) == text(plain), "a constant depends on data")
        }
    }
    return 0
}

/// `{"rules": []}` and the like: a valid file without rules says nothing.
private func isEmptyRuleFile(_ input: Data) -> Bool {
    guard case .object(let object)? = try? JSONParser.parse(input) else { return false }
    return object["rules"]?.arrayValue?.isEmpty ?? false
}

private func changes(feed: String) -> [FeedChange] {
    let common: [String: JSONValue] = [
        "start": 1_780_000_000, "away": .object(["name": "Away", "abbr": "AWY", "score": 0]), "symbol": "BTCUSDT",
        "change.percent": -3.5,
    ]
    let before = Facts(
        common.merging(
            [
                "state": "pre", "status": "STATUS_SCHEDULED", "period": 0,
                "clock": .object(["seconds": 0, "display": "0'"]),
                "home": .object(["name": "Home", "abbr": "HOM", "score": 0]),
                "price": .decimal(Decimal(string: "101.25")!),
            ], uniquingKeysWith: { $1 }))
    let after = Facts(
        common.merging(
            [
                "state": "in", "status": "STATUS_FIRST_HALF", "period": 1,
                "clock": .object(["seconds": 1260, "display": "21'"]),
                "home": .object(["name": "Home", "abbr": "HOM", "score": 1]), "price": 95.5,
            ], uniquingKeysWith: { $1 }))
    let entity = EntityKey(feed: feed, id: "401")
    return [
        FeedChange(entity: entity, previous: nil, current: before, changedPaths: ["state"]),
        FeedChange(
            entity: entity, previous: before, current: after,
            changedPaths: ["clock.display", "clock.seconds", "home.score", "period", "price", "state", "status"]),
        FeedChange(entity: entity, previous: after, current: nil, changedPaths: []),
    ]
}

@_cdecl("fuzz_rules_main")
public func fuzzRulesMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzzRules)
}
