import Feeds
import Foundation
import LiveRelayCore
import LiveRelayTesting
import Testing

/// The ESPN mapping of the demo config, on the real recordings.
@Suite struct GenericNormalizerTests {
    static let espn = GenericMapping(
        entities: "/events", id: "/id",
        fields: [
            "state": FieldMapping(pointer: "/status/type/state", type: .string),
            "period": FieldMapping(pointer: "/status/period", type: .int, optional: true),
            "clock.seconds": FieldMapping(pointer: "/status/clock", type: .int),
            "home.score": FieldMapping(pointer: "/competitions/0/competitors/0/score", type: .int),
            "away.score": FieldMapping(pointer: "/competitions/0/competitors/1/score", type: .int),
            "home.shootout": FieldMapping(
                pointer: "/competitions/0/competitors/0/shootoutScore", type: .int, optional: true),
            "start": FieldMapping(pointer: "/date", type: .time),
        ])

    static func recording(_ name: String) throws -> Data {
        try Data(contentsOf: Repository.url("Samples/recordings/\(name)"))
    }

    @Test func readsTheRealFirstHalfRecording() throws {
        let facts = try GenericNormalizer(Self.espn).normalize(
            try Self.recording("espn-soccer-scoreboard-1-first-half.json"))
        #expect(facts.count == 32)
        let match = try #require(facts["760499"])
        #expect(match["state"] == "in")
        #expect(match["period"] == 1)
        #expect(match["clock.seconds"] == 2640)
        #expect(match["home.score"] == 0)
        #expect(match["away.score"] == 1)
        #expect(match["home.shootout"] == nil)
        #expect(match["start"] == .int(1_783_101_600))  // 2026-07-03T18:00Z
        // Scheduled matches have no period yet: the optional fact is left out, not null.
        #expect(facts["760500"]?["period"] == nil)
        #expect(facts["760500"]?["state"] == "pre")
    }

    @Test func readsTheShootOutAfterPenalties() throws {
        let facts = try GenericNormalizer(Self.espn).normalize(
            try Self.recording("espn-soccer-scoreboard-3-final-pens.json"))
        #expect(facts["760499"]?["state"] == "post")
        #expect(facts["760499"]?["home.shootout"] == 2)
    }

    /// An entity id longer than the token API takes could never be followed and would fill every log line
    /// about it: the body is a shape error naming the id's start.
    @Test func aHugeEntityIDIsAShapeError() throws {
        let mapping = GenericMapping(
            entities: "", id: nil, fields: ["price": FieldMapping(pointer: "/price", type: .decimal)])
        let id = String(repeating: "x", count: 1 << 20)
        let normalizer = try GenericNormalizer(mapping)
        #expect(try normalizer.entities(Data(#"{"BTC-USD": {"price": "1"}}"#.utf8)).keys.sorted() == ["BTC-USD"])
        #expect {
            try normalizer.entities(Data(#"{"\#(id)": {"price": "1"}}"#.utf8))
        } throws: { error in
            let failure = error as? NormalizationFailure
            return failure?.kind == .shape && failure!.message.hasPrefix("an entity id of 1048576 bytes (at most 128)")
                && failure!.message.count < 120
        }
    }

    @Test func pricesStayExactDecimals() throws {
        let mapping = GenericMapping(
            entities: "", id: nil,
            fields: [
                "price": FieldMapping(pointer: "/price", type: .decimal),
                "volume": FieldMapping(pointer: "/volume", type: .decimal),
            ])
        let body = #"{"BTC-USD": {"price": "67187.33", "volume": 1234.5678901234567}}"#
        let facts = try GenericNormalizer(mapping).normalize(Data(body.utf8))
        #expect(facts["BTC-USD"]?["price"] == .decimal(Decimal(string: "67187.33")!))
        #expect(facts["BTC-USD"]?["volume"]?.jsonString() == "1234.5678901234567")
    }

    @Test(arguments: [
        (
            "", FeedError.Kind.invalidJSON,
            "body is not valid JSON (1:1: empty document: expected a JSON value); the body is empty"
        ),
        (
            "<html><body>502 Bad Gateway</body></html>", .invalidJSON,
            "body is not valid JSON (1:1: unexpected '<': expected a value); it starts with \"<html><body>502 Bad Gateway</body></html>\" (41 bytes)"
        ),
        (
            #"{"events": [{"id": "1", "status": {"type": {"st"#, .invalidJSON,
            "body is not valid JSON (1:45: unterminated string); it starts with \"{\"events\": [{\"id\": \"1\", \"status\": {\"type\": {\"st\" (47 bytes)"
        ),
        (#"{"leagues": []}"#, .shape, "no entity list at /events"),
        (#"{"events": {"a": 1}}"#, .shape, "entity /events/a has no id at /id"),
        (
            #"{"events": [{"id": "7", "status": {"type": {"state": "in"}, "clock": 60}, "date": "2026-07-03T18:00Z", "competitions": [{"competitors": [{"score": "x"}, {"score": "0"}]}]}]}"#,
            .shape,
            "entity \"7\": field home.score at /competitions/0/competitors/0/score is the string \"x\", expected int"
        ),
        (
            #"{"events": [{"id": "7", "status": {"type": {"state": "in"}}, "date": "2026-07-03T18:00Z", "competitions": [{"competitors": [{"score": "1"}, {"score": "0"}]}]}]}"#,
            .shape, "entity \"7\": field clock.seconds at /status/clock is missing"
        ),
        // 2^64 + 1 once read as 1 (a wrapped integer): beyond 64 bits is no score.
        (
            #"{"events": [{"id": "7", "status": {"type": {"state": "in"}, "clock": 60}, "date": "2026-07-03T18:00Z", "competitions": [{"competitors": [{"score": 18446744073709551617}, {"score": "0"}]}]}]}"#,
            .shape,
            "entity \"7\": field home.score at /competitions/0/competitors/0/score is number 18446744073709551617, expected int"
        ),
        (
            #"{"events": [{"id": "7", "status": {"type": {"state": "in"}, "clock": 1e999}}]}"#, .invalidJSON,
            "body is not valid JSON (1:70: number out of range); it starts with \"{\"events\": [{\"id\": \"7\", \"status\": {\"type\": {\"state\": \"in\"}, …\" (78 bytes)"
        ),
    ])
    func aBrokenBodyIsAFeedErrorNeverFacts(body: String, kind: FeedError.Kind, message: String) throws {
        let normalizer = try GenericNormalizer(Self.espn)
        #expect(throws: GenericNormalizer.Failure(kind: kind, message: message)) {
            try normalizer.normalize(Data(body.utf8))
        }
    }

    @Test func anInvalidPointerIsAMappingError() {
        #expect(throws: GenericNormalizer.InvalidMapping.self) {
            try GenericNormalizer(GenericMapping(entities: "events", fields: [:]))
        }
    }
}

@Suite struct ChangeDetectorTests {
    @Test func reportsNewChangedAndRemovedEntitiesOnly() {
        let a = Facts(["score": 0])
        let b = Facts(["score": 1])
        let changes = ChangeDetector.changes(
            feed: "f", previous: ["1": a, "2": a, "3": a], current: ["1": a, "2": b, "4": a])
        #expect(changes.map(\.entity.id) == ["2", "3", "4"])
        #expect(changes[0].changedPaths == ["score"])
        #expect(changes[1].current == nil)
        #expect(changes[2].previous == nil)
    }

    @Test func theSameRecordingTwiceIsNoChange() throws {
        let body = try GenericNormalizerTests.recording("espn-soccer-scoreboard-2-extra-time.json")
        let n = try GenericNormalizer(GenericNormalizerTests.espn)
        #expect(
            ChangeDetector.changes(feed: "f", previous: try n.normalize(body), current: try n.normalize(body)).isEmpty)
    }

    @Test func extraTimeToPenaltiesChangesExactlyTheMatchThatMoved() throws {
        let n = try GenericNormalizer(GenericNormalizerTests.espn)
        let before = try n.normalize(try GenericNormalizerTests.recording("espn-soccer-scoreboard-2-extra-time.json"))
        let after = try n.normalize(try GenericNormalizerTests.recording("espn-soccer-scoreboard-3-final-pens.json"))
        let changes = ChangeDetector.changes(feed: "f", previous: before, current: after)
        #expect(changes.map(\.entity.id) == ["760499"])
        #expect(changes[0].changedPaths == ["clock.seconds", "home.shootout", "period", "state"])
    }

    /// A body that is one entity with no list around it (Coinbase's ticker of one product): `entity` points
    /// at it, and its id is written in the mapping (`entity-id`) or read from it (`id`).
    @Test func aBodyThatIsOneEntityIsMappedWithEntity() throws {
        let body = try GenericNormalizerTests.recording("coinbase-exchange-ticker-btc-usd.json")
        let fields = [
            "price": FieldMapping(pointer: "/price", type: .decimal),
            "volume": FieldMapping(pointer: "/volume", type: .decimal),
        ]
        let named = try GenericNormalizer(GenericMapping(entity: "", entityID: "BTC-USD", fields: fields)).normalize(
            body)
        #expect(Array(named.keys) == ["BTC-USD"])
        #expect(named["BTC-USD"]?["price"] == JSONValue.decimal(Decimal(string: "4417.01")!))
        let read = try GenericNormalizer(GenericMapping(entity: "", id: "/trade_id", fields: fields)).normalize(body)
        #expect(read.count == 1)
        #expect(read.values.first?["price"] == JSONValue.decimal(Decimal(string: "4417.01")!))
        // A list where one entity was expected is a shape error that says so.
        #expect(throws: GenericNormalizer.Failure.self) {
            try GenericNormalizer(GenericMapping(entity: "", entityID: "x", fields: fields)).normalize(Data("[1]".utf8))
        }
    }

    /// A mapping that cannot say where its entity is, or its id, is refused when the config loads.
    @Test(arguments: [
        (GenericMapping(entities: "/a", entity: "", fields: [:]), "entity", "not both"),
        (GenericMapping(fields: [:]), "entities", "say where the entities are"),
        (GenericMapping(entity: "", fields: [:]), "entity", "one entity needs its id"),
        (GenericMapping(entities: "", entityID: "x", fields: [:]), "entity-id", "names the one entity"),
    ])
    func aSingleEntityMappingMustBeWhole(mapping: GenericMapping, field: String, message: String) {
        #expect {
            _ = try GenericNormalizer(mapping)
        } throws: { error in
            guard let invalid = error as? GenericNormalizer.InvalidMapping else { return false }
            return invalid.field == field && invalid.message.contains(message)
        }
    }
}
