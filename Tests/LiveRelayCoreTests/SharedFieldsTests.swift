import Foundation
import LiveRelayCore
import Testing

/// `LiveActivityPush` and `ActivityRecord` keep their fields behind one reference, copied on write: a copy
/// changed must leave the value it was copied from as it was, equal values must stay equal (and hash alike)
/// whether or not they share the reference, and the JSON must be the flat object it always was (saved
/// throttle states hold pushes).
@Suite struct SharedFieldsTests {
    static let push = LiveActivityPush(
        activity: ActivityKey("match-1"), attributesType: "MatchAttributes", event: .update, timestamp: 100,
        contentState: ["home": 1, "away": 0], priority: .high, ruleIDs: ["goal"],
        entity: EntityKey(feed: "espn", id: "1"))

    @Test func aChangedCopyLeavesTheOriginalAsItWas() {
        let original = Self.push
        var copy = original
        #expect(copy == original)
        copy.contentState = ["home": 2, "away": 0]
        copy.ruleIDs.append("late-goal")
        copy.device = "iphone-1"
        #expect(original.contentState == ["home": 1, "away": 0])
        #expect(original.ruleIDs == ["goal"])
        #expect(original.device == nil)
        #expect(copy.ruleIDs == ["goal", "late-goal"])
        #expect(copy != original)
        // Changed back field by field, it is equal again, though it no longer shares the original's fields.
        copy.contentState = original.contentState
        copy.ruleIDs = ["goal"]
        copy.device = nil
        #expect(copy == original)
        #expect(copy.hashValue == original.hashValue)
    }

    @Test func aRecordsCopyChangedLeavesTheOriginalAsItWas() {
        let original = ActivityRecord(
            key: ActivityKey("match-1"), attributesType: "MatchAttributes", phase: .active, state: ["home": 1],
            lastTimestamp: 100, timers: ["kickoff": 90])
        var copy = original
        copy.timers["half-time"] = 120
        copy.phase = .ended
        #expect(original.timers == ["kickoff": 90])
        #expect(original.phase == .active)
        #expect(copy.timers == ["kickoff": 90, "half-time": 120])
        #expect(Set([original, copy, original]).count == 2)
    }

    @Test func theJSONIsTheFlatObjectItWas() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(Self.push), as: UTF8.self)
        #expect(text.hasPrefix(#"{"activity":"match-1","attributesType":"MatchAttributes","contentState":"#))
        #expect(text.contains(#""ruleIDs":["goal"]"#))
        #expect(try JSONDecoder().decode(LiveActivityPush.self, from: Data(text.utf8)) == Self.push)
        // A push saved before `entity`, `device` and the input fields existed still decodes.
        let old = #"""
            {"activity":"match-1","attributesType":"MatchAttributes","event":"update","timestamp":100,
             "contentState":{"home":1,"away":0},"priority":10,"ruleIDs":["goal"]}
            """#
        let decoded = try JSONDecoder().decode(LiveActivityPush.self, from: Data(old.utf8))
        #expect(decoded.entity == nil && decoded.device == nil && decoded.contentState == ["home": 1, "away": 0])
    }
}
