import Synchronization

/// Writes that arrive while one is being made go together, in one transaction (a group commit): the first
/// caller leads and writes its item; callers that come meanwhile wait in line; when a write is done, the
/// leader hands the lead to the first in line, who writes everything waiting (at most `limit` items). Each
/// caller gets its own item's answer, or the failure of the write its item was in. The token API's
/// subscription writes go through one: many clients writing at once pay for one SQLite transaction, not one
/// each.
final class GroupCommit<Item: Sendable, Answer: Sendable>: Sendable {
    private enum Turn: Sendable {
        case done(Result<Answer, StoreFailure>)
        case lead
    }

    private struct Waiter: Sendable {
        var item: Item
        var continuation: CheckedContinuation<Turn, Never>
    }

    private struct Line: Sendable {
        var waiting: [Waiter] = []
        var writing = false
    }

    private let line = Mutex(Line())
    let limit: Int
    /// Hears how many wait in line each time one more does (a test waits on it instead of polling).
    private let queued: (@Sendable (Int) -> Void)?

    init(limit: Int = 1_000, queued: (@Sendable (Int) -> Void)? = nil) {
        self.limit = max(1, limit)
        self.queued = queued
    }

    /// Writes `item` with others waiting: `write` gets the items in the order they came and answers each, in
    /// that order (every caller passes the same write).
    func submit(
        _ item: Item, write: @Sendable ([Item]) async throws(StoreFailure) -> [Answer]
    ) async throws(StoreFailure) -> Answer {
        let turn = await withCheckedContinuation { (continuation: CheckedContinuation<Turn, Never>) in
            let waiting = line.withLock { line -> Int? in
                if line.writing {
                    line.waiting.append(Waiter(item: item, continuation: continuation))
                    return line.waiting.count
                }
                line.writing = true
                return nil
            }
            if let waiting {
                queued?(waiting)
            } else {
                continuation.resume(returning: .lead)
            }
        }
        switch turn {
        case .done(let answer): return try answer.get()
        case .lead: break
        }
        let others = line.withLock { line in
            let taken = Array(line.waiting.prefix(limit - 1))
            line.waiting.removeFirst(taken.count)
            return taken
        }
        let written: Result<[Answer], StoreFailure>
        do throws(StoreFailure) {
            let answers = try await write([item] + others.map(\.item))
            precondition(answers.count == others.count + 1, "a group write answers each item")
            written = .success(answers)
        } catch {
            written = .failure(error)
        }
        for (i, other) in others.enumerated() {
            other.continuation.resume(returning: .done(written.map { $0[i + 1] }))
        }
        let next = line.withLock { line -> Waiter? in
            guard !line.waiting.isEmpty else {
                line.writing = false
                return nil
            }
            return line.waiting.removeFirst()
        }
        next?.continuation.resume(returning: .lead)
        return try written.map { $0[0] }.get()
    }
}
