import Foundation
import LiveRelayCore
import Store
import Testing

/// A record's start is written member by member (``StoredValues/start(_:)``): the text must be the one a tree
/// of its members gives, byte for byte, for every optional present or absent, so records written before read
/// the same and nothing stored changes.
@Suite struct StoredStartTests {
    /// The text as it was written before: the members as a tree, keys sorted.
    static func tree(_ start: ActivityStart) -> String {
        var members: [String: JSONValue] = ["attributes": start.attributes, "late-join": .bool(start.lateJoin)]
        if let alert = start.alert {
            var fields: [String: JSONValue] = [:]
            for (name, text) in [
                ("title", alert.title), ("body", alert.body), ("sound", alert.sound),
                ("title-loc-key", alert.titleLocKey), ("loc-key", alert.locKey),
            ] {
                if let text { fields[name] = .string(text) }
            }
            if let arguments = alert.titleLocArgs { fields["title-loc-args"] = .array(arguments.map { .string($0) }) }
            if let arguments = alert.locArgs { fields["loc-args"] = .array(arguments.map { .string($0) }) }
            members["alert"] = .object(fields)
        }
        if let owner = start.subscription {
            members["subscription"] = [
                "id": .string(owner.id), "device": .string(owner.device), "created-at": .int(owner.createdAt),
            ]
        }
        return JSONValue.object(members).jsonString()
    }

    @Test func everyShapeOfStartIsWrittenAsItsTree() throws {
        let texts: [String?] = [nil, "", "t \"q\" é\n", "🏟"]
        let lists: [[String]?] = [nil, [], ["1", "two \"2\""]]
        let attributes: [JSONValue] = [
            .emptyObject,
            ["symbol": "BTCUSDT", "level": .decimal(Decimal(string: "100000.5")!), "z": ["a": [1, .null]]],
        ]
        var count = 0
        for (i, text) in texts.enumerated() {
            for (j, list) in lists.enumerated() {
                for attribute in attributes {
                    let alert =
                        (i + j) % 4 == 3
                        ? nil
                        : LiveActivityAlert(
                            title: text, body: texts[(i + 1) % 4], sound: texts[(i + 2) % 4],
                            titleLocKey: texts[(i + 3) % 4],
                            titleLocArgs: list, locKey: text, locArgs: lists[(j + 1) % 3])
                    let owner =
                        j == 1
                        ? nil : SubscriptionOwner(id: "sub-\(i)", device: "device \"\(j)\"", createdAt: -i * 1000)
                    for lateJoin in [false, true] {
                        let start = ActivityStart(
                            attributes: attribute, alert: alert, lateJoin: lateJoin, subscription: owner)
                        #expect(StoredValues.start(start) == Self.tree(start))
                        count += 1
                    }
                }
            }
        }
        #expect(count == 48)
        #expect(StoredValues.start(nil) == nil)
    }
}
