import Foundation
import LiveRelayCore
import Store
import Testing

@Suite struct TokenRegistryTests {
    static func withStore(_ body: (SQLiteStore) async throws -> Void) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("liverelay-tokens-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try await body(try SQLiteStore(path: dir.appendingPathComponent("state.sqlite").path))
    }

    static let match = EntityKey(feed: "espn-worldcup", id: "760499")

    @Test func startsGoToTheSubscribedDevicesOfTheEntityForTheAttributesType() async throws {
        try await Self.withStore { store in
            try await store.subscribe(device: "a", to: Self.match, now: 0)
            try await store.subscribe(device: "b", to: Self.match, now: 0)
            try await store.subscribe(device: "c", to: EntityKey(feed: "espn-worldcup", id: "1"), now: 0)
            try await store.registerPushToStartToken(
                device: "a", attributesType: "MatchAttributes", token: "AA01", environment: .production, now: 1)
            try await store.registerPushToStartToken(
                device: "b", attributesType: "MatchAttributes", token: "bb01", environment: .sandbox, now: 1)
            try await store.registerPushToStartToken(
                device: "b", attributesType: "PriceAttributes", token: "bb02", environment: .sandbox, now: 1)
            try await store.registerPushToStartToken(
                device: "c", attributesType: "MatchAttributes", token: "cc01", environment: .production, now: 1)
            let all = try await store.pushToStartTokens(
                entity: Self.match, attributesType: "MatchAttributes", environment: nil)
            #expect(all.map(\.token) == ["aa01", "bb01"], "lower-cased, by device")
            let production = try await store.pushToStartTokens(
                entity: Self.match, attributesType: "MatchAttributes", environment: .production)
            #expect(production == [RegisteredToken(device: "a", token: "aa01", environment: .production)])
            try await store.unsubscribe(device: "a", from: Self.match)
            #expect(
                try await store.pushToStartTokens(
                    entity: Self.match, attributesType: "MatchAttributes", environment: nil
                ).map(\.device) == ["b"])
        }
    }

    @Test func rotationReplacesTheOldToken() async throws {
        try await Self.withStore { store in
            try await store.registerActivityToken(
                activity: "m", device: "a", token: "01", environment: .sandbox, now: 1)
            try await store.registerActivityToken(
                activity: "m", device: "a", token: "02", environment: .sandbox, now: 2)
            try await store.registerActivityToken(
                activity: "m", device: "b", token: "03", environment: .sandbox, now: 2)
            #expect(try await store.activityTokens(activity: "m", environment: .sandbox).map(\.token) == ["02", "03"])
            try await store.registerPushToStartToken(
                device: "a", attributesType: "T", token: "11", environment: .sandbox, now: 1)
            try await store.registerPushToStartToken(
                device: "a", attributesType: "T", token: "12", environment: .sandbox, now: 2)
            try await store.subscribe(device: "a", to: Self.match, now: 0)
            #expect(
                try await store.pushToStartTokens(entity: Self.match, attributesType: "T", environment: nil).map(
                    \.token) == ["12"])
        }
    }

    @Test func aDroppedTokenIsNeverUsedAgain() async throws {
        try await Self.withStore { store in
            try await store.subscribe(device: "a", to: Self.match, now: 0)
            try await store.registerPushToStartToken(
                device: "a", attributesType: "T", token: "ab", environment: .sandbox, now: 1)
            try await store.registerActivityToken(
                activity: "m", device: "a", token: "AB", environment: .sandbox, now: 1)
            try await store.dropToken("ab", reason: "Unregistered (410)", now: 5)
            #expect(try await store.isDropped("AB"))
            #expect(try await store.activityTokens(activity: "m", environment: nil).isEmpty)
            #expect(
                try await store.pushToStartTokens(entity: Self.match, attributesType: "T", environment: nil).isEmpty)
            let again = try await store.registerActivityToken(
                activity: "m2", device: "a", token: "ab", environment: .sandbox, now: 9)
            #expect(again == .dropped, "a dropped token is refused")
            #expect(try await store.activityTokens(activity: "m2", environment: nil).isEmpty)
            let fresh = try await store.registerActivityToken(
                activity: "m2", device: "a", token: "cd", environment: .sandbox, now: 9)
            #expect(fresh == .stored)
            try await store.save([
                ActivityRecord(key: "m2", attributesType: "T", phase: .ended, state: [:], lastTimestamp: 10)
            ])
            let late = try await store.registerActivityToken(
                activity: "m2", device: "b", token: "ef", environment: .sandbox, now: 11)
            #expect(late == .ended, "a token for an ended activity is refused")
            #expect(try await store.activityTokens(activity: "m2", environment: nil).map(\.token) == ["cd"])
        }
    }
}
