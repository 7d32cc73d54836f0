import Delivery
import Foundation
import LiveRelayCore
import StoreCore

/// The due outbox rows of one delivery round, grouped for the senders: by provider, then by push (one push
/// to all its targets in one call), each in the order the throttle released them.
struct OutboxBatch: Sendable {
    /// One push and the rows (indices into ``rows``) that carry it.
    struct Push: Sendable {
        var push: LiveActivityPush
        var rows: [Int]
    }

    /// The rows whose push could be read, in release order; each with the provider it goes to.
    private(set) var rows: [OutboxEntry] = []
    /// Provider id → its pushes, in release order.
    private(set) var byProvider: [String: [Push]] = [:]
    /// The round's pushes, each once: its activity, timestamp and content-state (``SentPush`` when it gets
    /// through).
    private(set) var sentPushes: [SentPush] = []
    /// Each row's push: its index in ``sentPushes``.
    private(set) var pushOfRow: [Int] = []
    /// Each row's target.
    private(set) var targets: [PushTarget] = []

    /// One push's rows: its activity and timestamp, and whether they start the activity (a start that waited
    /// carries the state of the update released with it, under the update's timestamp).
    private struct Group: Hashable {
        var id: PushID
        var kind: String
    }

    /// Groups `due`: a row keeps the provider it was released to (rows from before providers were recorded
    /// follow `routes`); a row whose push cannot be read is left out.
    init(_ due: [OutboxEntry], routes: ProviderRoutes, providers: Set<String>) {
        var decoded: [Group: (push: LiveActivityPush, sent: Int)] = [:]
        var position: [String: [Group: Int]] = [:]
        let decoder = JSONValueDecoder()
        rows.reserveCapacity(due.count)
        pushOfRow.reserveCapacity(due.count)
        targets.reserveCapacity(due.count)
        // A fan-out's targets come one after another with the same push and provider: the row before's
        // group and place are taken without hashing them again.
        var last: (group: Group, provider: String?, at: Int, sent: Int)?
        // The rows of the push under way, joined to it when the next push begins (not looked up per row).
        var run: (provider: String, at: Int, rows: [Int])?
        for var row in due {
            // A broadcast and the token pushes of the same update are one push to several targets.
            let kind =
                row.kind == PushTarget.TokenKind.channel.rawValue ? PushTarget.TokenKind.activity.rawValue : row.kind
            let group = Group(id: row.pushID, kind: kind)
            let index = rows.count
            if let last, last.group == group, last.provider != nil, row.provider == last.provider {
                targets.append(row.target)
                rows.append(row)
                pushOfRow.append(last.sent)
                if run == nil { run = (last.provider!, last.at, []) }
                run!.rows.append(index)
                continue
            }
            if let done = run {
                byProvider[done.provider]![done.at].rows += done.rows
                run = nil
            }
            let stored = row.provider
            let found: (push: LiveActivityPush, sent: Int)
            if let known = decoded[group] {
                found = known
            } else {
                guard let push = try? decoder.decode(LiveActivityPush.self, stored: row.push) else { continue }
                found = (push, sentPushes.count)
                sentPushes.append(
                    SentPush(activity: push.activity, timestamp: push.timestamp, state: push.contentState))
                decoded[group] = found
            }
            let provider =
                row.provider.flatMap { providers.contains($0) ? $0 : nil } ?? routes.provider(for: found.push)
            row.provider = provider
            targets.append(row.target)
            rows.append(row)
            pushOfRow.append(found.sent)
            let at: Int
            if let known = position[provider]?[group] {
                at = known
            } else {
                at = byProvider[provider, default: []].count
                position[provider, default: [:]][group] = at
                byProvider[provider, default: []].append(Push(push: found.push, rows: []))
            }
            run = (provider, at, [index])
            // Only a row that named its provider, and kept it, lets the next row skip the lookups.
            last = (group, stored == provider ? provider : nil, at, found.sent)
        }
        if let done = run { byProvider[done.provider]![done.at].rows += done.rows }
    }
}
