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

        /// Read from `value` directly when it is an object of these string fields and no others (every
        /// token of a well-formed file); `nil` otherwise, for `Decodable` to read and to say what is wrong.
        init?(plain value: JSONValue) {
            guard case .object(let fields) = value, fields.count <= 4,
                case .string(let activity) = fields["activity"], case .string(let device) = fields["device"],
                case .string(let token) = fields["token"]
            else { return nil }
            switch fields["environment"] {
            case .string(let name): environment = PushEnvironment(rawValue: name)
            case nil where fields.count == 3: environment = nil
            default: return nil
            }
            self.activity = activity
            self.device = device
            self.token = token
        }

        /// `value` as an update token: directly, or through `Decodable` (which names what is wrong).
        static func read(_ value: JSONValue, _ decoder: JSONValueDecoder) throws(JSONValueDecoder.Failure)
            -> ActivityToken
        {
            if let token = ActivityToken(plain: value) { return token }
            return try decoder.decode(ActivityToken.self, from: value)
        }
    }

    /// Devices and the entities they follow.
    public var subscriptions: [Subscription]
    /// Push-to-start tokens.
    public var pushToStart: [PushToStart]
    /// How many activity update tokens the file holds (read a slice at a time: ``activities()``).
    public private(set) var activityCount = 0
    /// The file's bytes and where each slice of ``sliceSize`` update tokens starts in them: a million
    /// tokens are read, checked and stored a slice at a time, never all in memory at once.
    private var source = Data()
    private var slices: [(offset: Int, count: Int)] = []
    /// The update tokens of a file that holds one slice or less, as its check read them: not read again.
    private var kept: [ActivityToken]?
    /// Update tokens per slice, and per store transaction.
    public static let sliceSize = 50_000
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
        channelSubscribers = try c.decodeIfPresent([String].self, forKey: .channelSubscribers) ?? []
        deletedSubscriptions = try c.decodeIfPresent([String].self, forKey: .deletedSubscriptions) ?? []
    }

    /// Reads a token file; problems name the file and the place in it.
    ///
    /// A file of a million tokens is read one update token at a time (the parsed file is never whole in
    /// memory, nor its tokens: ``apply(to:environment:now:)`` reads them again a slice at a time) and
    /// without a map of where each value is; only a file found wrong is read again with one, to say where.
    /// `sliceSize`: update tokens per slice read again and stored together (tests make it small).
    public static func load(path: String, sliceSize: Int = sliceSize) throws(Diagnostics) -> TokenFile {
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
        var count = 0
        var slices: [(offset: Int, count: Int)] = []
        var wrong: (pointer: String, message: String)?
        let decoder = JSONValueDecoder()
        let rest: JSONValue
        var firstSlice: [ActivityToken] = []
        do throws(JSONParseError) {
            rest = try JSONParser.parse(data, streaming: CodingKeys.activities.rawValue) { position, offset, value in
                guard wrong == nil else { return }
                do throws(JSONValueDecoder.Failure) {
                    let token = try ActivityToken.read(value, decoder)
                    if position < sliceSize { firstSlice.append(token) }
                } catch {
                    wrong = ("/activities/\(position)" + error.pointer.description, error.message)
                }
                count += 1
                if position % max(1, sliceSize) == 0 { slices.append((offset, 0)) }
                slices[slices.count - 1].count += 1
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
        file.activityCount = count
        file.slices = slices
        if count <= sliceSize {
            file.kept = firstSlice
        } else {
            file.source = data
        }
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

    /// The activity update tokens, every one at once (a small file's; ``apply(to:environment:now:)`` reads a
    /// large one a slice at a time).
    public func activities() -> [ActivityToken] {
        slices.flatMap(activities(in:))
    }

    /// The update tokens of one slice, read again from the file's bytes (checked when it was loaded).
    private func activities(in slice: (offset: Int, count: Int)) -> [ActivityToken] {
        if let kept { return kept }
        var tokens: [ActivityToken] = []
        tokens.reserveCapacity(slice.count)
        let decoder = JSONValueDecoder()
        // Both were read without an error at load, from the same bytes.
        try? JSONParser.parseElements(source, from: slice.offset, count: slice.count) { value in
            if let token = try? ActivityToken.read(value, decoder) { tokens.append(token) }
        }
        return tokens
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
    public func apply(
        to store: any RegistryStore & SubscriptionStore & ChannelStore, environment: PushEnvironment, now: Int
    ) async throws(StoreFailure)
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
        // One transaction per slice of 50,000, not one write per token (a goal's 20,000 devices: 5 s less), and
        // not one for a million at once (each transaction's rows are held until it commits); each slice is read
        // from the file's bytes while the one before it is stored (the store's database works meanwhile).
        var chunk = slices.first.map(activities(in:)) ?? []
        for index in slices.indices {
            async let next = index + 1 < slices.count ? activities(in: slices[index + 1]) : []
            let stored = try await store.importActivityTokens(
                chunk.map { (ActivityKey($0.activity), $0.device, $0.token, $0.environment ?? environment) }, now: now)
            refused += chunk.count - stored
            chunk = await next
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
