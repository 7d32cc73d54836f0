import Delivery
import LiveRelayCore
import Throttling

/// What one delivery round did: what the throttle released and held, and what each provider delivered.
public struct DeliveryReport: Sendable, CustomStringConvertible {
    /// One provider's share of a round.
    public struct Tally: Sendable, Hashable {
        /// Pushes delivered at priority 10.
        public var sentHigh = 0
        /// Pushes delivered at priority 5.
        public var sentLow = 0
        /// Pushes released at 5 because the budget was spent.
        public var downgraded = 0
        /// Pushes that failed (a dropped token is not a failure).
        public var failed = 0
        /// Ends that will never reach some of their targets (their activities stay on those devices).
        public var endsLost = 0
        /// Requests delivered to device or activity tokens.
        public var tokenRequests = 0
        /// Broadcasts delivered to channels.
        public var broadcasts = 0
        /// The devices those broadcasts reached (each channel's subscribers, summed over its broadcasts).
        public var broadcastReach = 0

        /// Every push delivered.
        public var sent: Int { sentHigh + sentLow }
    }

    /// The id of the default provider, shown even when it had nothing to do.
    public var defaultProvider: String
    /// Each provider's share, by id.
    public var providers: [String: Tally] = [:]
    /// Pushes held for the budget.
    public var held = 0
    /// Pushes still waiting (held for the budget or a provider's rate, or due later in the outbox).
    public var pending = 0
    /// Pushes the throttle released and deliveries attempted in this round: none means the round found
    /// nothing it could do yet (a provider's rate spent, a retry not due).
    public var progress = 0

    /// An empty round.
    public init(defaultProvider: String) { self.defaultProvider = defaultProvider }

    /// The round of `decisions` (the throttle's, their providers from `routes`) and `deliveries`.
    init(defaultProvider: String, decisions: [ThrottleDecision], deliveries: [PushDelivery], routes: ProviderRoutes) {
        self.init(defaultProvider: defaultProvider)
        for decision in decisions {
            progress += 1
            switch decision {
            case .held: held += 1
            case .send(let push, let downgraded):
                if downgraded { providers[routes.provider(for: push), default: Tally()].downgraded += 1 }
            }
        }
        for delivery in deliveries {
            progress += 1
            if delivery.push.event == .end, delivery.lost > 0 {
                providers[delivery.provider, default: Tally()].endsLost += 1
            }
            let requests = delivery.deliveredRequests
            providers[delivery.provider, default: Tally()].tokenRequests += requests.tokens
            providers[delivery.provider, default: Tally()].broadcasts += requests.broadcasts
            providers[delivery.provider, default: Tally()].broadcastReach += requests.broadcasts * delivery.reach
            if delivery.failed {
                providers[delivery.provider, default: Tally()].failed += 1
            } else if delivery.delivered {
                if delivery.push.priority == .high {
                    providers[delivery.provider, default: Tally()].sentHigh += 1
                } else {
                    providers[delivery.provider, default: Tally()].sentLow += 1
                }
            }
        }
    }

    /// Pushes that failed, every provider together.
    public var failed: Int { providers.values.reduce(0) { $0 + $1.failed } }

    /// `provider console: 7 sent (4 at priority 10, 3 at 5, 0 downgraded), 0 failed, 0 waiting`; with
    /// broadcasts, the requests they took (`7 requests: 6 broadcasts reaching 6 devices, 1 to a token`); with
    /// several providers, a line for each that had something to do and the waiting pushes on a line of
    /// their own.
    public var description: String {
        func line(_ id: String, _ t: Tally) -> String {
            "provider \(id): \(t.sent) sent (\(t.sentHigh) at priority 10, \(t.sentLow) at 5, \(t.downgraded) downgraded), "
                + "\(t.failed) failed"
                + (t.endsLost > 0 ? " (\(t.endsLost) end\(t.endsLost == 1 ? "" : "s") lost)" : "")
                + (t.broadcasts > 0 ? "; " + requests(t) : "")
        }
        func requests(_ t: Tally) -> String {
            func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
            return
                "\(plural(t.tokenRequests + t.broadcasts, "request")): \(plural(t.broadcasts, "broadcast")) reaching "
                + "\(plural(t.broadcastReach, "device")), \(t.tokenRequests) to tokens"
        }
        let others = providers.keys.filter { $0 != defaultProvider }.sorted()
        guard !others.isEmpty else {
            return line(defaultProvider, providers[defaultProvider] ?? Tally()) + ", \(pending) waiting"
        }
        let ids = (providers[defaultProvider] == nil ? [] : [defaultProvider]) + others
        return (ids.map { line($0, providers[$0]!) } + ["\(pending) waiting"]).joined(separator: "\n")
    }
}
