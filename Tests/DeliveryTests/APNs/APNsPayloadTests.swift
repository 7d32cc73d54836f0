import Delivery
import Foundation
import LiveRelayCore
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
        #expect(
            APNsRequestEncoder.apnsID(for: Self.start, token: "aa")
                == APNsRequestEncoder.apnsID(for: Self.start, token: "aa"))
        #expect(
            APNsRequestEncoder.apnsID(for: Self.start, token: "aa")
                != APNsRequestEncoder.apnsID(for: Self.start, token: "bb"))
    }
}
