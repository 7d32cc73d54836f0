import Delivery
import Feeds
import Foundation
import LiveRelayCore
import LiveRelayTesting
import Testing
import Worker

@Suite struct ConfigLoaderTests {
    func load(_ text: String, environment: [String: String] = [:]) throws -> Result<LoadedConfig, Diagnostics> {
        let dir = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("liverelay.json").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        do {
            return .success(try ConfigLoader.load(path: path, environment: environment))
        } catch {
            return .failure(
                Diagnostics(
                    error.items.map { Diagnostic(file: "liverelay.json", location: $0.location, message: $0.message) }))
        }
    }

    @Test func theDemoConfigLoads() throws {
        let loaded = try ConfigLoader.load(path: Repository.path("Samples/demo/liverelay.json"))
        #expect(loaded.feeds.map(\.id) == ["espn-worldcup"])
        #expect(loaded.feeds[0].url.hasPrefix("file:///"))
        #expect(loaded.feeds[0].url.hasSuffix("/Samples/recordings/espn-soccer-scoreboard-1-first-half.json"))
        #expect(loaded.config.provider.bundleID == "com.example.scores")
        // The defaults are the fast ones: pushes over the nghttp2 lane, no write merging on libcurl.
        #expect(loaded.config.http.pushLane == .nghttp2)
        #expect(!loaded.config.http.coalesceWrites)
    }

    @Test func thePushLaneAndWriteMergingAreSettings() throws {
        let text = """
            { "feeds": [], "provider": { "type": "console" }, "http": { "coalesce-writes": true, "push-lane": "curl" } }
            """
        #expect(try load(text).get().config.http.coalesceWrites == true)
        #expect(try load(text).get().config.http.pushLane == .curl)
        let lane = """
            { "feeds": [], "provider": { "type": "console" }, "http": { "push-lane": "h2o" } }
            """
        guard case .failure(let refused) = try load(lane) else {
            Issue.record("an unknown push lane was accepted")
            return
        }
        #expect(refused.description.contains("push-lane"))
        let wrong = """
            { "feeds": [], "provider": { "type": "console" }, "http": { "coalesce-writes": "no" } }
            """
        guard case .failure(let diagnostics) = try load(wrong) else {
            Issue.record("a string for coalesce-writes was accepted")
            return
        }
        #expect(diagnostics.description.contains("coalesce-writes"))
    }

    /// A provider entry with another kind's key is refused at the key, naming whose key it is; the schema
    /// alone takes every kind's keys in every entry.
    @Test func aProviderEntryWithAnotherKindsKeyIsRefusedAtTheKey() throws {
        let text = """
            {
              "feeds": [],
              "provider": { "type": "console", "bundle-id": "com.example.scores" },
              "providers": [
                { "id": "fcm", "type": "fcm", "project-id": "p", "service-account": { "file": "sa.json" },
                  "key-id": "ABC123DEFG" }
              ]
            }
            """
        guard case .failure(let refused) = try load(text) else {
            Issue.record("an fcm entry with key-id was accepted")
            return
        }
        #expect(
            refused.items.map(\.description) == [
                "liverelay.json:6:7: providers[0].key-id: key-id is a key of apns, not of fcm"
            ])
    }

    /// Personal rules in `channel` mode share their entity's channel; in `both` they run by tokens (an alert by
    /// tokens would be ended by an end broadcast it never gets).
    @Test func personalRulesShareTheEntitysChannelInChannelModeOnly() throws {
        let loaded = try ConfigLoader.load(path: Repository.path("Samples/presets/personal-alerts-channel.json"))
        #expect(try loaded.routes(for: loaded.loadRules()).entityChannels == ["PersonalAlertAttributes": .channel])
        var text = try String(
            contentsOf: Repository.url("Samples/presets/personal-alerts-channel.json"), encoding: .utf8)
        text = text.replacingOccurrences(of: #""mode": "channel""#, with: #""mode": "both""#)
            .replacingOccurrences(of: #""../../"#, with: "\"" + Repository.path("") + "/")
            .replacingOccurrences(of: "file:../", with: "file:" + Repository.path("Samples") + "/")
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("liverelay.json").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let both = try ConfigLoader.load(path: path)
        let routes = try both.routes(for: both.loadRules())
        #expect(routes.entityChannels.isEmpty)
        #expect(routes.modeByRule["my-moves"] == .both)
    }

    @Test func errorsNameFileLineColumnAndKeyPath() throws {
        let text = """
            {
              "feeds": [
                { "id": "x", "url": "file:a.json", "intervall": 5,
                  "mapping": { "entities": "/e", "fields": { "home.score": { "pointer": "/s", "type": "integer" } } } }
              ],
              "provider": { "type": "console", "expiration": "1h" }
            }
            """
        let result = try load(text)
        guard case .failure(let diagnostics) = result else { Issue.record("expected errors"); return }
        #expect(
            diagnostics.items.map(\.description) == [
                "liverelay.json:3:40: feeds[0].intervall: unknown key \"intervall\" (did you mean \"interval\"?)",
                "liverelay.json:4:91: feeds[0].mapping.fields[\"home.score\"].type: \"type\" must be one of \"int\", \"decimal\", \"string\", \"bool\", \"time\", not \"integer\"",
                "liverelay.json:6:36: provider.expiration: \"expiration\" must be an integer, not a string",
            ])
    }

    @Test func secretsComeFromTheEnvironmentAndNeverAppearInErrors() throws {
        let text = """
            {"feeds": [{"id": "fd", "url": "https://api.football-data.org/v4/matches", "headers": {"X-Auth-Token": {"env": "FD_TOKEN"}},
              "mapping": {"entities": "/matches", "id": "/id", "fields": {"state": {"pointer": "/status", "type": "string"}}}}]}
            """
        guard case .success(let loaded) = try load(text, environment: ["FD_TOKEN": "s3cr3t-value"]) else {
            Issue.record("expected success")
            return
        }
        #expect(loaded.feeds[0].headers.map(\.value) == ["s3cr3t-value"])
        guard case .failure(let missing) = try load(text, environment: [:]) else {
            Issue.record("expected an error"); return
        }
        #expect(
            missing.items.map(\.message) == [
                "feeds[0].headers.X-Auth-Token: secret from environment variable FD_TOKEN is not set"
            ])
    }

    /// A header value with CR, LF or NUL (written or read from a secret) would inject request headers; a
    /// name that is no header name would be dropped. Both are config errors, and the value is never quoted.
    @Test func headersThatWouldInjectAreRefused() throws {
        let text = #"""
            {"feeds": [{"id": "fd", "url": "https://example.com/v4/matches",
              "headers": {"X-Plain": "a\r\nX-Injected: 1", "X-Secret": {"env": "FD_TOKEN"}, "Bad Name": "v"},
              "mapping": {"entities": "/matches", "id": "/id", "fields": {"state": {"pointer": "/status", "type": "string"}}}}]}
            """#
        guard case .failure(let problems) = try load(text, environment: ["FD_TOKEN": "tok\u{0}en-s3cr3t"]) else {
            Issue.record("expected errors")
            return
        }
        #expect(
            problems.items.map(\.message) == [
                #"feeds[0].headers["Bad Name"]: "Bad Name" is not a header name (letters, digits and !#$%&'*+-.^_`|~ only)"#,
                "feeds[0].headers.X-Plain: header X-Plain: the value contains a line break or NUL, which would inject headers",
                "feeds[0].headers.X-Secret: header X-Secret: the value contains a line break or NUL, which would inject headers",
            ])
        #expect(!problems.items.contains { $0.message.contains("s3cr3t") || $0.message.contains("Injected") })
    }

    /// Provider URLs carry credentials and device tokens: `https` only, plain `http` only to loopback.
    @Test func providerEndpointsMustBeHTTPS() throws {
        let feeds =
            #"[{"id": "f", "url": "file:a.json", "mapping": {"entities": "/e", "fields": {"s": {"pointer": "/s", "type": "int"}}}}]"#
        let text = """
            {"feeds": \(feeds), "provider": {"type": "console"},
             "providers": [
               {"id": "p1", "type": "pushwoosh", "application": "A-B", "api-token": {"env": "T"}, "endpoint": "http://pushwoosh.example.com/json/1.3"},
               {"id": "p2", "type": "pushwoosh", "application": "A-B", "api-token": {"env": "T"}, "endpoint": "http://127.0.0.1:8443/json/1.3"},
               {"id": "p3", "type": "pushwoosh", "application": "A-B", "api-token": {"env": "T"}, "endpoint": "https://pushwoosh.example.com/json/1.3"}]}
            """
        guard case .failure(let problems) = try load(text, environment: ["T": "x"]) else {
            Issue.record("expected errors")
            return
        }
        #expect(
            problems.items.map(\.message) == [
                "providers[0].endpoint: http://pushwoosh.example.com/json/1.3 must be https: credentials and device "
                    + "tokens travel on it (plain http only to a loopback address, 127.0.0.1, ::1 or localhost, as "
                    + "for a test server)"
            ])
    }

    /// A rules path that does not exist is named where the config writes it.
    @Test func aMissingRuleFileIsNamedAtItsLineInTheConfig() throws {
        let text = """
            {"feeds": [{"id": "f", "url": "file:a.json", "mapping": {"entities": "/e", "fields": {"s": {"pointer": "/s", "type": "int"}}}}],
             "rules": ["nowhere.rules.json"]}
            """
        guard case .failure(let problems) = try load(text) else {
            Issue.record("expected an error")
            return
        }
        #expect(problems.items.count == 1)
        let description = problems.items.first?.description ?? ""
        #expect(
            description.hasPrefix("liverelay.json:2:12: rules[0]: no such rule file or directory: "), "\(description)")
        #expect(description.hasSuffix("/nowhere.rules.json"))
    }

    @Test func aMissingContractFileIsNamedAtItsLineInTheConfig() throws {
        let text = """
            {"feeds": [{"id": "f", "url": "file:a.json", "mapping": {"entities": "/e", "fields": {"s": {"pointer": "/s", "type": "int"}}}}],
             "contracts": ["gone.contract.json"]}
            """
        guard case .failure(let problems) = try load(text) else {
            Issue.record("expected an error")
            return
        }
        let description = problems.items.map(\.description).joined(separator: "\n")
        #expect(problems.items.count == 1, "\(description)")
        #expect(
            description.hasPrefix("liverelay.json:2:16: contracts[0]: no such contract file (or it cannot be read): "),
            "\(description)")
    }

    @Test func invalidJSONIsReportedWithItsPosition() throws {
        guard case .failure(let d) = try load("{\"feeds\": [}") else { Issue.record("expected an error"); return }
        #expect(d.items.map(\.description) == ["liverelay.json:1:12: invalid JSON: unexpected '}': expected a value"])
    }

    @Test func aGetuiProviderNeedsItsAppAndAMasterSecretReference() throws {
        let feeds =
            #"[{"id": "f", "url": "file:a.json", "mapping": {"entities": "/e", "fields": {"s": {"pointer": "/s", "type": "int"}}}}]"#
        let good = """
            {"feeds": \(feeds), "provider": {"type": "getui", "app-id": "app", "app-key": "key",
              "master-secret": {"env": "GETUI_MASTER_SECRET"}, "auto-badge": "+1", "timeout": 5}}
            """
        guard case .success(let loaded) = try load(good) else { Issue.record("expected success"); return }
        let getui = try #require(loaded.config.provider.settings as? GetuiProviderConfig)
        #expect(getui.appID == "app")
        #expect(getui.appKey == "key")
        #expect(getui.masterSecret == .environment("GETUI_MASTER_SECRET"))
        #expect(getui.autoBadge == "+1")
        #expect(getui.timeout == 5)
        #expect(getui.endpoint == nil)
        let missing = """
            {"feeds": \(feeds), "provider": {"type": "getui", "app-id": "app", "app-key": "key"}}
            """
        guard case .failure(let d) = try load(missing) else { Issue.record("expected an error"); return }
        #expect(
            d.items.map(\.message) == [
                "provider: missing required key \"master-secret\" (required when \"type\" is \"getui\")"
            ])
    }

    /// `docs/liverelay.schema.json` is the schema composed from the base and the built-in providers' keys;
    /// LIVERELAY_UPDATE_GOLDEN=1 writes it.
    @Test func theShippedSchemaIsTheComposedOne() throws {
        let path = Repository.path("docs/liverelay.schema.json")
        let composed = ConfigSchema.document(kinds: ProviderCatalog.builtIn)
        if ProcessInfo.processInfo.environment["LIVERELAY_UPDATE_GOLDEN"] == "1" {
            try (SchemaText.pretty(composed) + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        }
        let shipped = try JSONParser.parse(try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(shipped == composed, "run the config loader's tests with LIVERELAY_UPDATE_GOLDEN=1")
        #expect(
            try String(contentsOfFile: path, encoding: .utf8) == SchemaText.pretty(composed) + "\n",
            "the shipped file is written as the tests write it")
    }

    /// Every built-in kind's keys are in the composed schema, saying which kinds read them; a kind's
    /// required keys are required for its type.
    @Test func eachProviderBringsItsOwnKeys() throws {
        let provider = try #require(ConfigSchema.document(kinds: ProviderCatalog.builtIn)["$defs"]?["provider"])
        #expect(provider["properties"]?["key-id"]?["description"]?.stringValue?.hasPrefix("apns: ") == true)
        let endpoint = provider["properties"]?["endpoint"]?["description"]?.stringValue ?? ""
        #expect(endpoint.hasPrefix("apns, fcm, pushwoosh: a custom server URL"), "\(endpoint)")
        #expect(endpoint.contains(" getui: the domain"), "\(endpoint)")
        #expect(
            provider["properties"]?["type"]?["enum"]
                == .array(["console", "apns", "fcm", "pushwoosh", "getui"]))
        let onlyConsole = ConfigSchema.document(kinds: [ConsoleProviderConfig.self])["$defs"]?["provider"]
        #expect(onlyConsole?["properties"]?["key-id"] == nil, "a kind not in the catalog brings no keys")
        #expect(onlyConsole?["allOf"] == nil)
    }
}

/// The config schema as `docs/liverelay.schema.json` holds it: two-space indents, an object of plain values
/// (a key's own schema) on one line, `$schema`, `$id`, `title`, `description` and `type` before the other
/// keys, the rest in order.
enum SchemaText {
    static func pretty(_ value: JSONValue, indent: String = "") -> String {
        switch value {
        case .object(let members) where !members.isEmpty:
            let keys = members.keys.sorted { order($0) < order($1) }
            if members.values.allSatisfy(isPlain) {
                return "{ " + keys.map { quoted($0) + ": " + inline(members[$0]!) }.joined(separator: ", ") + " }"
            }
            let inner = indent + "  "
            return "{\n"
                + keys.map { inner + quoted($0) + ": " + pretty(members[$0]!, indent: inner) }.joined(separator: ",\n")
                + "\n" + indent + "}"
        case .array(let items) where !items.allSatisfy(isScalar):
            let inner = indent + "  "
            return "[\n" + items.map { inner + pretty($0, indent: inner) }.joined(separator: ",\n") + "\n" + indent
                + "]"
        default:
            return inline(value)
        }
    }

    private static func order(_ key: String) -> (Int, String) {
        let first = [
            "$schema", "$id", "title", "description", "type", "additionalProperties", "required", "properties",
        ]
        return (first.firstIndex(of: key) ?? first.count, key)
    }

    private static func isScalar(_ value: JSONValue) -> Bool {
        switch value {
        case .array, .object: return false
        default: return true
        }
    }

    private static func isPlain(_ value: JSONValue) -> Bool {
        switch value {
        case .array(let items): return items.allSatisfy(isScalar)
        case .object(let members): return members.isEmpty
        default: return true
        }
    }

    private static func quoted(_ key: String) -> String { JSONValue.string(key).jsonString() }

    private static func inline(_ value: JSONValue) -> String {
        switch value {
        case .array(let items): return "[" + items.map(inline).joined(separator: ", ") + "]"
        case .object(let members) where !members.isEmpty:
            return "{ "
                + members.keys.sorted { order($0) < order($1) }.map { quoted($0) + ": " + inline(members[$0]!) }
                .joined(separator: ", ") + " }"
        default: return value.jsonString()
        }
    }
}
