import Delivery
import Foundation
import LiveRelayCore
import LiveRelayTesting
import Testing

@Suite struct APNsPayloadTests {
    let encoder = APNsRequestEncoder(bundleID: "com.example.scores")

    static let start = LiveActivityPush(
        activity: "match-1", attributesType: "MatchAttributes", event: .start, timestamp: 100,
        contentState: ["homeScore": 0], attributes: ["homeTeam": "Australia"],
        alert: LiveActivityAlert(title: "Kick-off"), priority: .high)

    @Test func aStartCarriesItsKeysAndAsksForTheUpdateTokenWhenTold() throws {
        var push = Self.start
        push.inputPushToken = true
        push.alert = LiveActivityAlert(
            sound: "default", titleLocKey: "KICK_OFF_TITLE", titleLocArgs: ["AUS", "EGY"], locKey: "KICK_OFF_BODY",
            locArgs: ["0", "0"])
        let body = String(decoding: try encoder.body(for: push), as: UTF8.self)
        #expect(
            body
                == #"{"aps":{"alert":{"loc-args":["0","0"],"loc-key":"KICK_OFF_BODY","sound":"default","title-loc-args":["AUS","EGY"],"title-loc-key":"KICK_OFF_TITLE"},"attributes":{"homeTeam":"Australia"},"attributes-type":"MatchAttributes","content-state":{"homeScore":0},"event":"start","input-push-token":1,"timestamp":100}}"#
        )
    }

    @Test func anUpdateNeverCarriesStartKeys() throws {
        var push = Self.start
        push.event = .update
        push.inputPushToken = true
        let body = String(decoding: try encoder.body(for: push), as: UTF8.self)
        #expect(!body.contains("attributes") && !body.contains("input-push-token"))
    }

    @Test func aStartWithoutAnAlertIsRefusedBeforeSending() {
        var push = Self.start
        push.alert = LiveActivityAlert(sound: "default")
        #expect(throws: APNsPayloadError.self) { try encoder.body(for: push) }
        do {
            _ = try encoder.body(for: push)
        } catch {
            #expect(error.code == .missingAlert)
            #expect(error.description.hasPrefix("missing_alert: start match-1: "))
        }
    }

    @Test func aStartWithoutAttributesOrTheirTypeIsRefused() {
        var noType = Self.start
        noType.attributesType = ""
        var noAttributes = Self.start
        noAttributes.attributes = nil
        #expect { try encoder.body(for: noType) } throws: { ($0 as? APNsPayloadError)?.code == .missingAttributesType }
        #expect { try encoder.body(for: noAttributes) } throws: {
            ($0 as? APNsPayloadError)?.code == .missingAttributes
        }
    }

    @Test func aPayloadOver4096BytesIsRefusedWithItsSize() throws {
        var push = Self.start
        push.event = .update
        push.contentState = ["text": .string(String(repeating: "x", count: 4100))]
        do {
            _ = try encoder.body(for: push)
            Issue.record("an oversized payload was accepted")
        } catch {
            #expect(error.code == .payloadTooLarge)
            #expect(error.message.contains("4096"))
        }
        push.contentState = ["text": .string(String(repeating: "x", count: 3000))]
        #expect(try encoder.body(for: push).count <= APNsRequestEncoder.maximumPayloadBytes)
    }

    @Test func theRequestHasEveryHeaderAndAStableApnsID() throws {
        let body = try encoder.body(for: Self.start)
        let request = encoder.request(for: Self.start, token: "ab" + String(repeating: "0", count: 62), body: body)
        #expect(
            request.headers.map(\.name) == [
                "apns-push-type", "apns-topic", "apns-priority", "apns-expiration", "apns-id", "content-type",
            ])
        #expect(request.headers[1].value == "com.example.scores.push-type.liveactivity")
        #expect(request.headers[2].value == "10")
        #expect(request.headers[3].value == "3700")
        let id = request.headers[4].value
        #expect(UUID(uuidString: id) != nil && id == id.lowercased())
        // The first 16 bytes of SHA-256("match-1\nstart\n100\naa") with the version and variant bits set: the
        // same id on every run and every version (computed apart, with Python's hashlib).
        #expect(APNsRequestEncoder.apnsID(for: Self.start, token: "aa") == "b3869a3d-e57f-8c1b-99e9-9783cd8d560d")
        #expect(APNsRequestEncoder.apnsID(for: Self.start, token: "bb") == "b971fcf9-7cae-8925-a651-df53e0331e20")
        #expect(
            APNsRequestEncoder.apnsID(for: Self.start, token: "aa")
                != APNsRequestEncoder.apnsID(for: Self.start, token: "bb"))
    }

    /// The payload is written straight to bytes; it must match what `JSONEncoder` (sorted keys) makes of
    /// ``APNsPayload``, over pushes of every shape: alerts, starts, escapes, non-ASCII, numbers of each kind.
    @Test func theDirectPayloadMatchesTheEncoderOverRandomPushes() throws {
        var rng = SplitMix(seed: 42)
        let strings = ["", "plain", "quote \" and \\ back", "tab\tnew\nline\r", "ctl \u{01}\u{1f}", "Ünïcödé ⚽️", "a/b"]
        func value(_ depth: Int) -> JSONValue {
            switch rng.next() % (depth > 2 ? 6 : 8) {
            case 0: return .null
            case 1: return .bool(rng.next() % 2 == 0)
            case 2: return .int(Int(truncatingIfNeeded: rng.next()) >> Int(rng.next() % 60))
            case 3: return .double([0.5, -2.25, 1e-7, 3.0, 1e21, 0.1 + 0.2][Int(rng.next() % 6)])
            case 4: return .decimal(Decimal(string: ["67321.55", "0.0001", "-3"][Int(rng.next() % 3)])!)
            case 5: return .string(strings[Int(rng.next() % UInt64(strings.count))])
            case 6: return .array((0..<rng.next() % 4).map { _ in value(depth + 1) })
            default:
                var o: [String: JSONValue] = [:]
                for _ in 0..<rng.next() % 5 {
                    o[strings[Int(rng.next() % UInt64(strings.count))] + "k"] = value(depth + 1)
                }
                return .object(o)
            }
        }
        let reference = JSONEncoder()
        reference.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for _ in 0..<500 {
            let event: PushEvent = [.start, .update, .end][Int(rng.next() % 3)]
            var push = LiveActivityPush(
                activity: "match-1", attributesType: "Match\(rng.next() % 9)", event: event,
                timestamp: Int(rng.next() % 2_000_000_000), contentState: value(0),
                attributes: rng.next() % 3 == 0 ? nil : value(1), priority: .high)
            if event == .start || rng.next() % 2 == 0 {
                push.alert = LiveActivityAlert(
                    title: strings[Int(rng.next() % 7)], body: rng.next() % 2 == 0 ? nil : strings[Int(rng.next() % 7)],
                    sound: rng.next() % 2 == 0 ? nil : "default",
                    titleLocKey: rng.next() % 3 == 0 ? "T" : nil,
                    titleLocArgs: rng.next() % 3 == 0 ? ["1", "x\""] : nil,
                    locKey: rng.next() % 3 == 0 ? "B" : nil, locArgs: rng.next() % 3 == 0 ? [] : nil)
            }
            if rng.next() % 2 == 0 { push.relevanceScore = RelevanceScore([0, 50, 99.5, 12.125][Int(rng.next() % 4)]) }
            if rng.next() % 2 == 0 { push.staleDate = Int(rng.next() % 1_000_000) }
            if rng.next() % 2 == 0 { push.dismissalDate = Int(rng.next() % 1_000_000) }
            if rng.next() % 2 == 0 { push.inputPushToken = true }
            if event == .start, push.attributes == nil { push.attributes = .emptyObject }
            let expected = String(decoding: try reference.encode(APNsPayload(push)), as: UTF8.self)
            let actual = String(decoding: try encoder.body(for: push), as: UTF8.self)
            #expect(actual == expected)
            if actual != expected { break }
        }
    }

    @Test func theApnsIDOfAPushIsFixed() {
        // Pinned: a change would give every retried or replayed push a new id.
        #expect(
            APNsRequestEncoder.apnsID(for: Self.start, token: "aa") == "b3869a3d-e57f-8c1b-99e9-9783cd8d560d")
    }
}
