import Foundation
public import LiveRelayCore
public import Rules
public import Store

/// Tokens and subscriptions to load into the registry from a JSON file, for replays, manual tests and
/// demos until apps register through the HTTP API:
///
/// ```json
/// {"subscriptions": [{"device": "iphone-a", "entity": "espn-worldcup/760499"}],
///  "push-to-start": [{"device": "iphone-a", "attributes-type": "MatchAttributes", "token": "…", "environment": "sandbox"}],
///  "activities": [{"activity": "match-760499", "device": "iphone-a", "token": "…", "environment": "sandbox"}],
///  "channel-subscribers": ["iphone-a"]}
/// ```
///
/// A subscription with an `id` is a device's own, with its `parameters` (`PUT /v1/subscriptions/{id}`);
/// `"deleted-subscriptions": ["alert-42"]` deletes such subscriptions, as `DELETE` would.
public struct TokenFile: Sendable, Decodable {
    /// A device following an entity (`feed/id`).
    public struct Subscription: Sendable, Decodable {
        /// The device id.
        public var device: String
        /// The entity, `feed/id`.
        public var entity: String
        /// For a device's own subscription: its id (the app backend's name for it).
        public var id: String?
        /// For a device's own subscription: its parameters (an object; `{}` when left out).
        public var parameters: JSONValue?
    }

    /// A device's push-to-start token for one attributes type.
    public struct PushToStart: Sendable, Decodable {
        /// The device id.
        public var device: String
        /// The app's `ActivityAttributes` type the token starts.
        public var attributesType: String
        /// The token, in hex.
        public var token: String
        /// Its APNs environment; the provider's when absent.
        public var environment: PushEnvironment?

        enum CodingKeys: String, CodingKey {
            case device, token, environment
            case attributesType = "attributes-type"
        }
    }

    /// The update token a device reported for an activity.
    public struct ActivityToken: Sendable, Decodable {
        /// The activity key.
        public var activity: String
        /// The device id.
        public var device: String
        /// The token, in hex.
        public var token: String
        /// Its APNs environment; the provider's when absent.
        public var environment: PushEnvironment?
    }

    /// Devices and the entities they follow.
    public var subscriptions: [Subscription]
    /// Push-to-start tokens.
    public var pushToStart: [PushToStart]
    /// Activity update tokens.
    public var activities: [ActivityToken]
    /// Devices whose app subscribes its activities by broadcast channel (iOS 18; `both` mode).
    public var channelSubscribers: [String]
    /// The ids of devices' own subscriptions to delete.
    public var deletedSubscriptions: [String]

    enum CodingKeys: String, CodingKey {
        case subscriptions, activities
        case pushToStart = "push-to-start"
        case channelSubscribers = "channel-subscribers"
        case deletedSubscriptions = "deleted-subscriptions"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        subscriptions = try c.decodeIfPresent([Subscription].self, forKey: .subscriptions) ?? []
        pushToStart = try c.decodeIfPresent([PushToStart].self, forKey: .pushToStart) ?? []
        activities = try c.decodeIfPresent([ActivityToken].self, forKey: .activities) ?? []
        channelSubscribers = try c.decodeIfPresent([String].self, forKey: .channelSubscribers) ?? []
        deletedSubscriptions = try c.decodeIfPresent([String].self, forKey: .deletedSubscriptions) ?? []
    }

    /// Reads a token file; problems name the file and the place in it.
    ///
    /// A file of a million tokens is read one update token at a time (the parsed file is never whole in
    /// memory) and without a map of where each value is; only a file found wrong is read again with one,
    /// to say where.
    public static func load(path: String) throws(Diagnostics) -> TokenFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Diagnostics([Diagnostic(file: path, location: nil, message: "cannot read the token file")])
        }
        func located(_ pointer: String, _ message: String) -> Diagnostics {
            let map = (try? JSONParser.parseWithSourceMap(data))?.1
            let at = ConfigLoader.keyPath(pointer)
            return Diagnostics([
                Diagnostic(
                    file: path, location: map?.location(pointer), message: at.isEmpty ? message : "\(at): \(message)")
            ])
        }
        var activities: [ActivityToken] = []
        var wrong: (pointer: String, message: String)?
        let decoder = JSONValueDecoder()
        let rest: JSONValue
        do throws(JSONParseError) {
            rest = try JSONParser.parse(data, streaming: CodingKeys.activities.rawValue) { position, value in
                guard wrong == nil else { return }
                do throws(JSONValueDecoder.Failure) {
                    activities.append(try decoder.decode(ActivityToken.self, from: value))
                } catch {
                    wrong = ("/activities/\(position)" + error.pointer.description, error.message)
                }
            }
        } catch {
            throw Diagnostics([
                Diagnostic(file: path, location: error.location, message: "invalid JSON: \(error.message)")
            ])
        }
        if let wrong { throw located(wrong.pointer, wrong.message) }
        var file: TokenFile
        do {
            file = try decoder.decode(TokenFile.self, from: rest)
        } catch {
            throw located(error.pointer.description, error.message)
        }
        file.activities = activities
        for (i, s) in file.subscriptions.enumerated() {
            guard entityKey(s.entity) != nil else {
                throw located("/subscriptions/\(i)/entity", "\"\(s.entity)\" is not feed/id")
            }
            if s.parameters != nil, s.id == nil {
                throw located("/subscriptions/\(i)/parameters", "a subscription with parameters needs its \"id\"")
            }
        }
        return file
    }

    /// Why a subscription of the file would be refused by the token API, with its place in the file
    /// (`subscriptions.2: parameters.above: …`); `nil` when every one is taken. `declared` is what the
    /// rules in force declare, by feed (``RuleEngine/subscriptionParameters``).
    public func refusal(_ declared: [String: [SubscriptionParameters]]) -> String? {
        for (i, s) in subscriptions.enumerated() where s.id != nil {
            guard let entity = Self.entityKey(s.entity) else { continue }
            if let refusal = SubscriptionParameters.refusal(
                of: s.parameters ?? .emptyObject, feed: entity.feed, declared: declared[entity.feed])
            {
                return "subscriptions.\(i): \(refusal)"
            }
        }
        return nil
    }

    /// Stores everything in the registry; tokens default to `environment`. Returns the tokens refused
    /// because they were dropped before (or, for update tokens, because their activity has ended).
    @discardableResult
    public func apply(to store: any StateStore, environment: PushEnvironment, now: Int) async throws(StoreFailure)
        -> Int
    {
        var refused = 0
        var own: [LiveRelayCore.Subscription] = []
        for s in subscriptions {
            guard let entity = Self.entityKey(s.entity) else { continue }
            if let id = s.id {
                own.append(
                    LiveRelayCore.Subscription(
                        id: id, device: s.device, entity: entity, parameters: s.parameters ?? .emptyObject,
                        createdAt: now))
            } else {
                try await store.subscribe(device: s.device, to: entity, now: now)
            }
        }
        refused += try await store.importSubscriptions(own, now: now)
        for id in deletedSubscriptions { try await store.deleteSubscription(id: id, now: now) }
        for t in pushToStart {
            let stored = try await store.registerPushToStartToken(
                device: t.device, attributesType: t.attributesType, token: t.token,
                environment: t.environment ?? environment, now: now)
            if !stored { refused += 1 }
        }
        // One transaction per 50,000, not one write per token (a goal's 20,000 devices: 5 s less), and not one
        // for a million at once (each transaction's rows are held until it commits).
        for start in stride(from: 0, to: activities.count, by: 50_000) {
            let chunk = activities[start..<min(start + 50_000, activities.count)]
            let stored = try await store.importActivityTokens(
                chunk.map { (ActivityKey($0.activity), $0.device, $0.token, $0.environment ?? environment) }, now: now)
            refused += chunk.count - stored
        }
        for device in channelSubscribers { try await store.setChannelSubscriber(device: device, true, now: now) }
        return refused
    }

    static func entityKey(_ text: String) -> EntityKey? {
        guard let slash = text.firstIndex(of: "/"), slash != text.startIndex, text.index(after: slash) != text.endIndex
        else { return nil }
        return EntityKey(feed: String(text[..<slash]), id: String(text[text.index(after: slash)...]))
    }
}
