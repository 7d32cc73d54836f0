import ArgumentParser
import Delivery
import Foundation
import LiveRelayCore
import Logging
import Rules
import Worker

struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Send one Live Activity push (start, update or end) to one token, by hand.",
        discussion: """
            Builds one push from the options and sends it through the provider of the config (or the one \
            --provider names), with the same checks, retries and error classes as the worker. Prints what \
            happened; exits 1 when the push was not delivered.

            A start needs the attributes type, the attributes and an alert, and goes to a push-to-start token; \
            an update or end goes to the activity's update token (the app reports both). Tokens are hex. FCM \
            also needs the install's registration token (--device-address), Getui its cid (--device-address) \
            and Pushwoosh a start's HWID, push token (--device-address) or user (--user); --activity-id names \
            the activity at Pushwoosh or Getui.

            Examples (T is a hex token the app reported, R an FCM registration token, C a Getui cid, L its laId):
              liverelay send -c liverelay.json --provider apns --event start \\
                --token T --attributes-type MatchAttributes \\
                --attributes '{"homeTeam": "Australia"}' \\
                --content-state '{"homeScore": 0}' --alert-title "Kick-off"
              liverelay send -c liverelay.json --event update --token T \\
                --content-state '{"homeScore": 1}' --priority 5
              liverelay send -c liverelay.json --provider console --event end \\
                --token T --content-state '{"homeScore": 1}'
              liverelay send -c liverelay.json --provider fcm --event update --token T \\
                --device-address R --content-state '{"homeScore": 1}'
              liverelay send -c liverelay.json --provider getui --event update \\
                --device-address C --activity-id L --content-state '{"homeScore": 1}'
            """)

    @Option(name: .shortAndLong, help: "The config file: its provider section has the bundle id and APNs key.")
    var config: String

    @Option(
        help:
            "A provider of the config, by id or type (apns, fcm, pushwoosh, getui), or console (prints the APNs request)."
    )
    var provider: String?

    @Option(help: "start, update or end.")
    var event: String

    @Option(
        help: """
            The APNs token, in hex: the push-to-start token (start) or the activity's update token (update, end). \
            apns and fcm need it.
            """)
    var token: String?

    @Option(
        help: """
            The install's address at the provider: fcm, its registration token; getui, its cid; pushwoosh, its HWID \
            or push token (for a start).
            """)
    var deviceAddress: String?

    @Option(help: "pushwoosh: the user id (set with /registerUser) a start goes to, instead of --device-address.")
    var user: String?

    @Option(
        help:
            "The activity's id at the provider: pushwoosh, its live_activity_id; getui, its laId. Default: --activity."
    )
    var activityID: String?

    @Option(help: "The activity key, for logs and the apns-id.")
    var activity: String = "manual"

    @Option(help: "The content-state, as a JSON object.")
    var contentState: String

    @Option(help: "start: the Swift type name of the app's ActivityAttributes.")
    var attributesType: String = ""

    @Option(help: "start: the static attributes, as a JSON object.")
    var attributes: String?

    @Option(help: "The alert title.")
    var alertTitle: String?

    @Option(help: "The alert body.")
    var alertBody: String?

    @Option(help: "The alert sound (a file in the app bundle, or default).")
    var sound: String?

    @Option(help: "10 (now, counts against the budget) or 5 (when convenient).")
    var priority: Int = 10

    @Option(help: "The push timestamp, UNIX seconds. Default: now.")
    var timestamp: Int?

    @Option(help: "Relevance score (higher is more important).")
    var relevance: Double?

    @Option(help: "UNIX seconds after which the activity shows as stale.")
    var staleDate: Int?

    @Option(help: "end: UNIX seconds at which the activity leaves the lock screen.")
    var dismissalDate: Int?

    @Flag(help: "start: ask the device for the new activity's update token (iOS 18).")
    var inputPushToken = false

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        logging.bootstrap()
        guard let priority = PushPriority(rawValue: priority) else {
            throw ValidationError("--priority must be 5 or 10")
        }
        let push = LiveActivityPush(
            activity: ActivityKey(activity), attributesType: attributesType, event: PushEvent(rawValue: event),
            timestamp: timestamp ?? Int(Date().timeIntervalSince1970),
            contentState: try object(contentState, "--content-state"),
            attributes: try attributes.map { try object($0, "--attributes") },
            alert: alertTitle == nil && alertBody == nil
                ? nil : LiveActivityAlert(title: alertTitle, body: alertBody, sound: sound),
            relevanceScore: relevance.map(RelevanceScore.init), staleDate: staleDate, dismissalDate: dismissalDate,
            priority: priority, inputPushToken: inputPushToken ? true : nil)
        guard PushEvent.known.contains(push.event) else {
            throw ValidationError("--event must be start, update or end")
        }
        let loaded = try narrowed(loadConfig(config))
        // The worker's state file holds its provider token: share it, so a manual send does not mint a new one
        // (APNs refuses a new token within 20 minutes of the last).
        try await withStateStore(loaded) { store in
            let worker = try await buildWorker(
                loaded, rules: RuleSet(), store: store,
                environment: .live(logger: Logger(label: "liverelay.send"), output: standardOutput))
            defer { worker.shutdown() }
            guard let sender = worker.sender(for: loaded.defaultProviderID) else { throw ExitCode(1) }
            let kind = sender.provider.traits.kind
            let target = PushTarget(
                kind: PushTarget.kind(for: push.event), token: try token.map { try checked($0) },
                address: ProviderAddress(device: deviceAddress, user: user, activity: activityID))
            let receipt = await sender.send(push, to: target)
            if receipt.delivered {
                standardError("\(push.event) delivered by \(kind)")
            } else {
                standardError(
                    "\(push.event) not delivered by \(kind) after \(receipt.attempts) attempts: \(receipt.outcome)")
                throw ExitCode(1)
            }
        }
    }

    /// The config with only the provider `--provider` names as its provider: an entry of the config by id,
    /// else by type, or the console (printing requests for the config's bundle id); no routes.
    private func narrowed(_ loaded: LoadedConfig) throws -> LoadedConfig {
        let configured = loaded.config.provider
        let wanted = provider ?? configured.id
        var chosen =
            loaded.providerEntries.first { $0.id == wanted }
            ?? loaded.providerEntries.first { $0.kind.rawValue == wanted }
        if chosen == nil, ProviderKind(rawValue: wanted) == .console {
            chosen = ProviderConfig(
                settings: ConsoleProviderConfig(), bundleID: configured.bundleID, expiration: configured.expiration)
        }
        guard let chosen else {
            let known = loaded.providerEntries.map(\.id).joined(separator: ", ")
            standardError(
                "\(config): --provider \(wanted) names no provider of the config (it has \(known)); "
                    + "for apns: a provider section with \"type\": \"apns\", key-id, team-id and key")
            throw ExitCode(1)
        }
        var narrowed = loaded
        narrowed.config.provider = chosen
        narrowed.config.providers = []
        narrowed.config.routes = []
        narrowed.config.defaultIsFirstOfProviders = false
        return narrowed
    }

    /// An APNs token in lower-case hex (as the registry keeps them).
    private func checked(_ token: String) throws -> String {
        let lower = token.lowercased()
        guard lower.count >= 8, lower.count % 2 == 0, lower.allSatisfy(\.isHexDigit) else {
            throw ValidationError("--token must be an APNs token in hex")
        }
        return lower
    }

    private func object(_ text: String, _ option: String) throws -> JSONValue {
        guard let value = try? JSONParser.parse(text), case .object = value else {
            throw ValidationError("\(option) must be a JSON object")
        }
        return value
    }
}
