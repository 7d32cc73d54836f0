import Foundation
import HTTP
import LiveRelayCore
import LiveRelayTesting
import Store
import Testing
import Worker
import WorkerTesting

/// The API as an operator and an app backend meet it: probes apart from the detailed health, the OpenAPI
/// document, 405 with `Allow`, refusals that name the field, the provider's environment for a token
/// registered without one, the bearer scheme in any case with a proper challenge, and metrics with HELP
/// lines and every series there from the start.
@Suite("the API for operators", .serialized)
struct OperatorAPITests {
    static func withRun(_ body: (InProcessRun, FakeAPNs) async throws -> Void) async throws {
        try await MatchReplay.withFakeAPNs { setup, fake in
            let feed = try await RunWithAPNs.feedServer()
            try RunWithAPNs.prepare(setup, feed: feed)
            try await InProcessRun.run(configPath: setup.configPath) { run in try await body(run, fake) }
            try await feed.stop()
        }
    }

    @Test func probesAnswerGetAndHeadAndTheDocumentIsServed() async throws {
        try await Self.withRun { (run: InProcessRun, _: FakeAPNs) async throws in
            for path in ["/livez", "/readyz", "/healthz", "/metrics", "/openapi.json"] {
                let get = try await run.api.send("GET", path, headers: [])
                #expect(get.status == 200, "GET \(path): \(String(decoding: get.body, as: UTF8.self).prefix(300))")
                let head = try await run.api.send("HEAD", path, headers: [])
                #expect(head.status == 200, "HEAD \(path)")
                #expect(head.body.isEmpty)
            }
            #expect(try await run.api.request("GET", "/livez").body == #"{"status":"ok"}"#)
            #expect(try await run.api.request("GET", "/readyz").body == #"{"status":"ready"}"#)
            let served = try await run.api.request("GET", "/openapi.json").body
            #expect(served + "\n" == (try String(contentsOf: Repository.url("docs/openapi.json"), encoding: .utf8)))
        }
    }

    @Test func aMethodThePathDoesNotTakeIs405WithAllow() async throws {
        try await Self.withRun { (run: InProcessRun, _: FakeAPNs) async throws in
            let answer = try await run.api.send(
                "POST", "/v1/devices/iphone-a/push-to-start/MatchAttributes",
                headers: [HTTPHeader("Authorization", "Bearer \(InProcessRun.bearer)")], body: "{}")
            #expect(answer.status == 405)
            #expect(answer.header("Allow") == "DELETE, PUT")
            #expect(String(decoding: answer.body, as: UTF8.self).contains("POST is not allowed here"))
            let probe = try await run.api.send("DELETE", "/healthz", headers: [])
            #expect(probe.status == 405)
            #expect(probe.header("Allow") == "GET, HEAD")
            #expect(try await run.api.request("GET", "/v1/no-such-thing").status == 404)
        }
    }

    @Test func unknownFieldsAndAttributesTypesAreRefusedByName() async throws {
        try await Self.withRun { (run: InProcessRun, _: FakeAPNs) async throws in
            let token = String(repeating: "ab", count: 32)
            let typo = try await run.api.request(
                "PUT", "/v1/devices/iphone-a/push-to-start/MatchAttributes",
                body: #"{"token": "\#(token)", "enviroment": "sandbox"}"#)
            #expect(typo.status == 400)
            #expect(typo.body.contains(#"enviroment: unknown field (did you mean \"environment\"?)"#), "\(typo.body)")
            let type = try await run.api.request(
                "PUT", "/v1/devices/iphone-a/push-to-start/MatchAttribute", body: #"{"token": "\#(token)"}"#)
            #expect(type.status == 400)
            #expect(type.body.contains(#"attributes type \"MatchAttribute\": no rule starts activities of it"#))
            #expect(type.body.contains(#"did you mean \"MatchAttributes\"?"#), "\(type.body)")
            let activity = try await run.api.request(
                "PUT", "/v1/activities/match-760499/tokens/iphone-a",
                body: #"{"token": "\#(token)", "frequent_updates": true}"#)
            #expect(activity.status == 400)
            #expect(activity.body.contains(#"did you mean \"frequent-updates\"?"#), "\(activity.body)")
            let null = try await run.api.request(
                "PUT", "/v1/devices/iphone-a/push-to-start/MatchAttributes",
                body: #"{"token": "\#(token)", "environment": null}"#)
            #expect(null.status == 400)
            #expect(null.body.contains("environment: null is not a value here"), "\(null.body)")
            // Nothing was stored by the refusals.
            try await run.store.subscribe(
                device: "iphone-a", to: EntityKey(feed: "espn-worldcup", id: "760499"), now: 0)
            #expect(
                try await run.store.pushToStartTokens(
                    entity: EntityKey(feed: "espn-worldcup", id: "760499"), attributesType: "MatchAttributes",
                    environment: nil
                ).isEmpty)
        }
    }

    /// The recorded match's APNs provider sends to the sandbox: a token registered without an environment is
    /// a sandbox token (it was stored as production, and never got a push).
    @Test func aTokenWithoutEnvironmentTakesTheProviders() async throws {
        try await Self.withRun { (run: InProcessRun, _: FakeAPNs) async throws in
            let token = String(repeating: "cd", count: 32)
            let entity = EntityKey(feed: "espn-worldcup", id: "760499")
            try await run.store.subscribe(device: "iphone-b", to: entity, now: 0)
            #expect(
                try await run.api.request(
                    "PUT", "/v1/devices/iphone-b/push-to-start/MatchAttributes", body: #"{"token": "\#(token)"}"#
                ).status == 204)
            let sandbox = try await run.store.pushToStartTokens(
                entity: entity, attributesType: "MatchAttributes", environment: .sandbox)
            #expect(sandbox.map(\.token) == [token])
        }
    }

    /// Clients that escape `:` and `@` in a path step (`encodeURIComponent`) reach the same ids.
    @Test func percentEncodedIdsAreTheIdsTheyEncode() async throws {
        try await Self.withRun { (run: InProcessRun, _: FakeAPNs) async throws in
            #expect(try await run.api.request("PUT", "/v1/devices/a%3Ab/channel-subscriber").status == 204)
            #expect(try await run.api.request("PUT", "/v1/devices/a%0Ab/channel-subscriber").status == 400)
            #expect(try await run.api.request("PUT", "/v1/devices/%2E%2E/channel-subscriber").status == 400)
            let subscribe = "/v1/devices/a%3Ab/subscriptions/espn-worldcup/VB%40Htm"
            #expect(try await run.api.request("PUT", subscribe).status == 204)
        }
    }

    @Test func theBearerSchemeIsCaseInsensitiveAndRefusalsAreChallengedCountedAndLogged() async throws {
        try await Self.withRun { (run: InProcessRun, _: FakeAPNs) async throws in
            let path = "/v1/devices/iphone-a/channel-subscriber"
            let lower = try await run.api.send(
                "PUT", path, headers: [HTTPHeader("Authorization", "bearer  \(InProcessRun.bearer)")])
            #expect(lower.status == 204)
            let missing = try await run.api.send("PUT", path, headers: [])
            #expect(missing.status == 401)
            #expect(missing.header("WWW-Authenticate") == #"Bearer realm="liverelay""#)
            for _ in 0..<5 {
                let wrong = try await run.api.send("PUT", path, headers: [HTTPHeader("Authorization", "Bearer nope")])
                #expect(wrong.status == 401)
                #expect(wrong.header("WWW-Authenticate") == #"Bearer realm="liverelay", error="invalid_token""#)
            }
            let basic = try await run.api.send("PUT", path, headers: [HTTPHeader("Authorization", "Basic eDp5")])
            #expect(basic.header("WWW-Authenticate") == #"Bearer realm="liverelay", error="invalid_request""#)
            let metrics = try await run.api.request("GET", "/metrics").body
            #expect(metrics.contains(#"liverelay_api_auth_failures_total{reason="wrong"} 5"#))
            #expect(metrics.contains(#"liverelay_api_auth_failures_total{reason="missing"} 1"#))
            #expect(metrics.contains(#"liverelay_api_auth_failures_total{reason="scheme"} 1"#))
            let refused = run.logs.all.filter { $0.contains("token API request refused: bad credentials") }
            #expect(refused.count == 3, "one line per kind, the repeats counted: \(refused)")
            #expect(!run.logs.all.contains { $0.contains("nope") }, "the token given is never logged")
        }
    }

    /// Every metric has HELP and TYPE, is in the catalog and in docs/metrics.md, and the series the worker can
    /// know at start are there at 0 before anything happened; API requests are counted by route pattern.
    @Test func everyMetricIsDescribedAndThereFromTheStart() async throws {
        try await Self.withRun { (run: InProcessRun, _: FakeAPNs) async throws in
            _ = try await run.api.request("GET", "/v1/activities/match-760499/devices")
            let text = try await run.api.request("GET", "/metrics").body
            let typed = Set(
                text.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.map {
                    String($0.split(separator: " ")[2])
                })
            let helped = Set(
                text.split(separator: "\n").filter { $0.hasPrefix("# HELP ") }.map {
                    String($0.split(separator: " ")[2])
                })
            #expect(typed == helped, "HELP and TYPE for every metric")
            let catalog = Set(MetricCatalog.entries.map(\.name))
            #expect(typed.subtracting(catalog).isEmpty, "not in the catalog: \(typed.subtracting(catalog))")
            // A worker's heartbeat once it beats; a push lane's connections once it has one.
            let later: Set = ["liverelay_worker_heartbeat_age_seconds", "liverelay_push_connections"]
            #expect(
                catalog.subtracting(typed).subtracting(later).isEmpty, "missing at start: \(catalog.subtracting(typed))"
            )
            for line in [
                #"liverelay_polls_not_modified_total{feed="espn-worldcup"} 0"#,
                #"liverelay_feed_errors_total{feed="espn-worldcup",kind="transport"} 0"#,
                #"liverelay_pushes_total{provider="apns",priority="10",outcome="delivered"} 0"#,
                #"liverelay_ends_lost_total{provider="apns"} 0"#,
                "liverelay_store_errors_total 0",
                #"liverelay_build_info{version="\#(BuildInfo.version)",swift="\#(BuildInfo.swift)"} 1"#,
                #"liverelay_api_requests_total{route="/v1/activities/{activity}/devices",method="GET",status="200"} 1"#,
            ] {
                #expect(text.contains(line), "\(line)")
            }
            #expect(text.contains("process_resident_memory_bytes "))
            #expect(!text.contains("match-760499"), "ids are not labels")
            let documented = try String(contentsOf: Repository.url("docs/metrics.md"), encoding: .utf8)
            for name in catalog { #expect(documented.contains("| `\(name)` |"), "docs/metrics.md lists \(name)") }
        }
    }
}

/// `liverelay_outbox_depth` says what the store holds at every delivery round, also a round that sent
/// nothing (on PostgreSQL the rows another worker settled): it was set only by rounds that sent something,
/// and another worker's gauge stayed at its last fan-out's value.
@Suite("the outbox depth gauge", .serialized)
struct OutboxDepthGaugeTests {
    @Test func theGaugeFollowsTheStoreWhenThisWorkerSendsNothing() async throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var config = try DemoConfig()
        config["api"] = ["port": 0, "bearer-token": ["env": "LIVERELAY_TEST_BEARER"]]
        try await InProcessRun.run(configPath: try config.write(to: directory)) { run in
            let later = OutboxEntry(
                key: OutboxKey(activity: ActivityKey("match-1"), target: "aa"), kind: "activity", device: "d",
                environment: "production", push: Data(#"{"aps":{"timestamp":1}}"#.utf8), timestamp: 1,
                nextAttempt: Int.max / 2, provider: "console")
            // Another writer (a worker that released it) puts a row in the store, due much later.
            try await run.store.commitRelease(
                throttleStates: [], outbox: [later], rewrites: [], drops: [], history: nil)
            await run.advance(by: .seconds(2))
            #expect(
                run.metrics.contains("liverelay_outbox_depth 1"),
                "\(run.metrics.split(separator: "\n").filter { $0.contains("outbox_depth") })")
            try await run.store.completeOutbox([later])
            await run.advance(by: .seconds(2))
            #expect(run.metrics.contains("liverelay_outbox_depth 0"))
        }
    }
}
