import Foundation
import Synchronization

/// Crash injection at the state file's write boundaries, for the tests that prove what survives a kill:
/// `LIVERELAY_KILL_AT=before:N` ends the process with SIGKILL just before its N-th write transaction,
/// `after:N` just after the N-th commits. Every write of the process counts, in the order they happen, so a
/// test that raises N until the process exits normally has killed it at every boundary of what it did.
/// Read once; unset (always, outside such tests) it costs one comparison per write.
enum KillPoint {
    enum Moment: String { case before, after }

    private static let target: (moment: Moment, write: Int)? = {
        guard let text = ProcessInfo.processInfo.environment["LIVERELAY_KILL_AT"] else { return nil }
        let parts = text.split(separator: ":")
        guard parts.count == 2, let moment = Moment(rawValue: String(parts[0])), let n = Int(parts[1]), n > 0 else {
            return nil
        }
        return (moment, n)
    }()
    private static let writes = Atomic<Int>(0)

    /// Called just before a write transaction; counts it and returns its number (0 when no kill is asked).
    @inline(__always)
    static func beforeWrite() -> Int {
        guard let target else { return 0 }
        let n = writes.add(1, ordering: .relaxed).newValue
        if target.moment == .before, n == target.write { kill(getpid(), SIGKILL) }
        return n
    }

    /// Called once write number `n` has committed.
    @inline(__always)
    static func afterWrite(_ n: Int) {
        guard let target, target.moment == .after, n == target.write else { return }
        kill(getpid(), SIGKILL)
    }
}
