import Delivery
import Foundation
import LiveRelayCore
import StoreCore

/// The due outbox rows of one delivery round, grouped for the senders: by provider, then by push (one push
/// to all its targets in one call), each in the order the throttle released them.
struct OutboxBatch: Sendable {
    /// One push, the rows (indices into ``rows``) that carry it, and their targets in the same order.
    struct Push: Sendable {
        var push: LiveActivityPush
        var rows: [Int]
        var targets: [PushTarget]
    }

    /// The rows whose push could be read, in release order; each with the provider it goes to. The round's
    /// own array when every row could be read and kept its provider (a fan-out's ten thousand rows are not
    /// copied).
    private(set) var rows: [OutboxEntry]
    /// Provider id → its pushes, in release order.
    private(set) var byProvider: [String: [Push]] = [:]
    /// The round's pushes, each once: its activity, timestamp and content-state (``SentPush`` when it gets
    /// through).
    private(set) var sentPushes: [SentPush] = []
    /// Each row's push: its index in ``sentPushes``.
    private(set) var pushOfRow: [Int] = []

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
        rows = due
        pushOfRow.reserveCapacity(due.count)
        // Rows left out (their push unreadable): each later row's place in `rows` is its index less those
        // before it.
        var skipped: [Int] = []
        // A fan-out's targets come one after another with the same push and provider: the row before's
        // group and place are taken without hashing them again.
        var last: (group: Group, provider: String?, at: Int, sent: Int)?
        // The rows of the push under way, joined to it when the next push begins (not looked up per row).
        var run: (provider: String, at: Int, rows: [Int], targets: [PushTarget])?
        func join(_ run: inout (provider: String, at: Int, rows: [Int], targets: [PushTarget])?) {
            guard let done = run else { return }
            byProvider[done.provider]![done.at].rows += done.rows
            byProvider[done.provider]![done.at].targets += done.targets
            run = nil
        }
        for index in due.indices {
            // A broadcast and the token pushes of the same update are one push to several targets.
            let kind =
                due[index].kind == PushTarget.TokenKind.channel.rawValue
                ? PushTarget.TokenKind.activity.rawValue : due[index].kind
            let group = Group(id: due[index].pushID, kind: kind)
            let place = index - skipped.count
            if let last, last.group == group, last.provider != nil, due[index].provider == last.provider {
                pushOfRow.append(last.sent)
                if run == nil { run = (last.provider!, last.at, [], []) }
                run!.rows.append(place)
                run!.targets.append(due[index].target)
                continue
            }
            join(&run)
            let stored = due[index].provider
            let found: (push: LiveActivityPush, sent: Int)
            if let known = decoded[group] {
                found = known
            } else {
                guard let push = try? decoder.decode(LiveActivityPush.self, stored: due[index].push) else {
                    skipped.append(index)
                    continue
                }
                found = (push, sentPushes.count)
                sentPushes.append(
                    SentPush(activity: push.activity, timestamp: push.timestamp, state: push.contentState))
                decoded[group] = found
            }
            let provider =
                stored.flatMap { providers.contains($0) ? $0 : nil } ?? routes.provider(for: found.push)
            if provider != stored { rows[index].provider = provider }
            pushOfRow.append(found.sent)
            let at: Int
            if let known = position[provider]?[group] {
                at = known
            } else {
                at = byProvider[provider, default: []].count
                position[provider, default: [:]][group] = at
                byProvider[provider, default: []].append(Push(push: found.push, rows: [], targets: []))
            }
            run = (provider, at, [place], [rows[index].target])
            // Only a row that named its provider, and kept it, lets the next row skip the lookups.
            last = (group, stored == provider ? provider : nil, at, found.sent)
        }
        join(&run)
        if !skipped.isEmpty {
            let gone = Set(skipped)
            rows = rows.indices.filter { !gone.contains($0) }.map { rows[$0] }
        }
    }
}
