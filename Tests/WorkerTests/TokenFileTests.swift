import Foundation
import LiveRelayCore
import LiveRelayTesting
import Rules
import Store
import Testing
import Worker

/// Token files (`replay --tokens`, `tick --tokens`): read fast, and when wrong, said where.
@Suite("Token files")
struct TokenFileTests {
    static func load(_ text: String) throws(Diagnostics) -> TokenFile {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString).json")
            .path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try TokenFile.load(path: path)
    }

    static func problem(_ text: String) -> Diagnostic? {
        do {
            _ = try load(text)
            return nil
        } catch {
            return error.items.first
        }
    }

    @Test func aFileLoadsWhole() throws {
        let file = try Self.load(
            """
            {"subscriptions": [{"device": "a", "entity": "espn/760499"}],
             "activities": [{"activity": "match-760499", "device": "a", "token": "ab01"},
                            {"activity": "match-760499", "device": "b", "token": "ab02", "environment": "sandbox"}],
             "channel-subscribers": ["a"]}
            """)
        #expect(file.subscriptions.count == 1)
        #expect(file.activities().map(\.token) == ["ab01", "ab02"])
        #expect(file.activities().map(\.environment) == [nil, .sandbox])
        #expect(file.channelSubscribers == ["a"])
    }

    /// A large file's update tokens are read again a slice at a time: every one, in order, once.
    @Test func updateTokensAreReadASliceAtATime() throws {
        let tokens = (0..<7).map { #"{"activity": "m", "device": "d\#($0)", "token": "ab0\#($0)"}"# }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString).json")
            .path
        #expect(
            FileManager.default.createFile(
                atPath: path,
                contents: Data(#"{"activities": [\#(tokens.joined(separator: ",\n  "))], "x": []}"#.utf8)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = try TokenFile.load(path: path, sliceSize: 3)
        #expect(file.activityCount == 7)
        #expect(file.activities().map(\.device) == (0..<7).map { "d\($0)" })
        #expect(file.activities().map(\.token) == (0..<7).map { "ab0\($0)" })
    }

    /// Stored a slice at a time (the next read while one is stored): every token once, the refused counted.
    @Test func aLargeFileIsStoredASliceAtATime() async throws {
        let tokens = (0..<8).map { #"{"activity": "m", "device": "d\#($0)", "token": "AB0\#($0)"}"# }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("tokens.json").path
        #expect(
            FileManager.default.createFile(
                atPath: path, contents: Data(#"{"activities": [\#(tokens.joined(separator: ",\n  "))]}"#.utf8)))
        let store = try SQLiteStore(path: directory.appendingPathComponent("state.sqlite").path)
        try await store.dropToken("ab06", reason: "Unregistered", now: 1)
        let refused = try await TokenFile.load(path: path, sliceSize: 3).apply(
            to: store, environment: .production, now: 2)
        #expect(refused == 1, "the dropped token")
        let stored = try await store.activityTokens(activity: ActivityKey("m"), environment: nil)
        #expect(stored.map(\.device).sorted() == ["d0", "d1", "d2", "d3", "d4", "d5", "d7"])
        #expect(stored.map(\.token).sorted() == ["ab00", "ab01", "ab02", "ab03", "ab04", "ab05", "ab07"])
    }

    @Test func aValueOfTheWrongTypeIsNamedWhereItIs() {
        let found = Self.problem(
            """
            {"activities": [
              {"activity": "match-760499", "device": "a", "token": "ab01"},
              {"activity": "match-760499", "device": "b", "token": 12}
            ]}
            """)
        #expect(found?.location?.line == 3)
        #expect(found?.location?.column == 47)
        #expect(found?.message == "activities[1].token: expected a string, found integer")
        // An environment that is not a string is named; a key a token does not have is left aside.
        let environment = Self.problem(
            #"{"activities": [{"activity": "m", "device": "a", "token": "ab01", "environment": 1}]}"#)
        #expect(environment?.message == "activities[0].environment: expected a string, found integer")
        let extra = try? Self.load(#"{"activities": [{"activity": "m", "device": "a", "token": "ab01", "tokn": "x"}]}"#)
        #expect(extra?.activities().map(\.token) == ["ab01"], "a key a token does not have is left aside")
    }

    @Test func invalidJSONAndABadEntityAreNamedWhereTheyAre() {
        let json = Self.problem("{\"activities\": [\n  {\"device\": \"a\",, }]}")
        #expect(json?.location?.line == 2)
        #expect(json?.message.hasPrefix("invalid JSON") == true)
        let twice = Self.problem("{\"subscriptions\": [],\n \"subscriptions\": []}")
        #expect(twice?.location?.line == 2, "a key given twice")
        let notArray = Self.problem("{\"activities\":\n {\"device\": \"a\"}}")
        #expect(notArray?.location?.line == 2)
        #expect(notArray?.message == "invalid JSON: \"activities\" must be an array")
        let streamedTwice = Self.problem("{\"activities\": [],\n \"activities\": []}")
        #expect(streamedTwice?.location?.line == 2)
        #expect(streamedTwice?.message.contains("duplicate key") == true)
        let entity = Self.problem("{\"subscriptions\": [\n  {\"device\": \"a\", \"entity\": \"no-slash\"}]}")
        #expect(entity?.location?.line == 2)
        #expect(entity?.message == "subscriptions[0].entity: \"no-slash\" is not feed/id")
    }
}

/// A token file's subscriptions with parameters are checked as the token API checks them.
@Suite struct TokenFileSubscriptionTests {
    @Test func parametersTheRulesDoNotTakeAreRefusedNamingTheSubscriptionAndTheField() throws {
        let rules = RuleLoader(knownFeeds: ["markets"]).load(paths: [
            Repository.path("Rules/personal-alerts.rules.json")
        ])
        let declared = RuleEngine(rules: rules.rules).subscriptionParameters
        let fine = try TokenFileTests.load(
            """
            {"subscriptions": [{"id": "s1", "device": "a", "entity": "markets/BTCUSDT", "parameters": {"above": 1, "re-arm": true}}]}
            """)
        #expect(fine.refusal(declared) == nil)
        let wrong = try TokenFileTests.load(
            """
            {"subscriptions": [{"id": "s1", "device": "a", "entity": "markets/BTCUSDT", "parameters": {"above": 1}},
                               {"id": "s2", "device": "b", "entity": "markets/BTCUSDT", "parameters": {"above": "high"}}]}
            """)
        let refusal = try #require(wrong.refusal(declared))
        #expect(refusal.hasPrefix("subscriptions.1: parameters.above"), "\(refusal)")
        #expect(refusal.contains("personal-alerts.rules.json"), "\(refusal)")
        let noRules = try TokenFileTests.load(
            """
            {"subscriptions": [{"id": "s1", "device": "a", "entity": "scores/1", "parameters": {}}]}
            """)
        #expect(noRules.refusal(declared) != nil, "a feed no rule file takes subscriptions of")
    }
}
