import Foundation
import FuzzSupport
import LiveRelayCore

/// JSONParser on any bytes. Besides not crashing, the modes must agree: plain, decimal and selective parsing
/// accept the same texts; a source-mapped parse (which also refuses duplicate keys) yields the same value
/// and a location for every value in it; and what the serialiser writes parses back to an equal value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Data(bytes: data, count: size)
    let plain = try? JSONParser.parse(input)
    let decimal = try? JSONParser.parse(input, numbers: .decimal)
    invariant((plain == nil) == (decimal == nil), "double and decimal modes disagree on whether the text is JSON")

    var selection = JSONSelection()
    selection.include([JSONSelection.Step.key("events"), .any, .key("id")])
    selection.include([JSONSelection.Step.any, .key("0")])
    selection.includeMemberNames(at: [JSONSelection.Step.key("data")])
    let selected = try? JSONParser.parse(input, numbers: .decimal, selecting: selection)
    invariant((selected == nil) == (plain == nil), "selective parsing disagrees on whether the text is JSON")
    let everything = try? JSONParser.parse(input, selecting: .everything)
    invariant(everything == plain, "selecting everything differs from a plain parse")

    if let (mapped, map) = try? JSONParser.parseWithSourceMap(input) {
        invariant(plain != nil && mapped == plain!, "the source-mapped parse differs from a plain parse")
        var budget = 2000
        checkLocations(mapped, pointer: "", map: map, budget: &budget)
    }
    if let plain {
        let text = plain.jsonData()
        let again: JSONValue
        do { again = try JSONParser.parse(text) } catch {
            fatalError(
                "invariant violated: serialised value does not parse (\(error)): \(String(decoding: text, as: UTF8.self).prefix(200))"
            )
        }
        invariant(again == plain, "serialised value parses to a different value")
    }
    if let decimal {
        let text = decimal.jsonData()
        let again = try? JSONParser.parse(text, numbers: .decimal)
        invariant(again == decimal, "serialised decimal value parses to a different value")
    }
    return 0
}

private func checkLocations(_ value: JSONValue, pointer: String, map: SourceMap, budget: inout Int) {
    budget -= 1
    guard budget > 0 else { return }
    invariant(map.valueLocation(pointer) != nil, "no source location for \(pointer.prefix(200))")
    switch value {
    case .array(let items):
        for (i, item) in items.enumerated() {
            checkLocations(item, pointer: pointer + "/\(i)", map: map, budget: &budget)
        }
    case .object(let members):
        for (key, member) in members {
            let child = pointer + "/" + JSONPointer.escape(key)
            invariant(map.keyLocation(child) != nil, "no key location for \(child.prefix(200))")
            checkLocations(member, pointer: child, map: map, budget: &budget)
        }
    default: break
    }
}

@_cdecl("fuzz_json_main")
public func fuzzJSONMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzzJSON)
}
