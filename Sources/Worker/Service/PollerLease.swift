import Foundation
public import Logging
public import ServiceLifecycle
public import Store
import Synchronization

/// Which worker polls the feeds when several share a PostgreSQL store: the one holding the `poller` lease.
/// It polls every feed and runs the timer rules; every worker delivers (the outbox is claimed row by row)
/// and serves the API. The lease is renewed every third of its length; a worker that dies stops renewing,
/// and another takes the feeds over once the lease has expired (within about 1.33 lease lengths).
///
/// A holder counts its lease as held only until its last renewal's start plus the lease length, less a
/// second: a worker cut off from the database stops polling before another may start. Taking the lease
/// over, a worker first resets its throttle from the saved states (the previous poller's budgets and held
/// pushes); losing it, it forgets them.
public final class PollerLease: Service, Sendable {
    /// The lease's name in the store.
    public static let name = "poller"
    let store: any SharedStore
    /// The lease's length.
    public let seconds: Int
    private let clock: any Clock<Duration>
    private let logger: Logger
    private let changed: @Sendable (_ held: Bool) async throws(StoreFailure) -> Void
    private let state = Mutex<(held: Bool, validUntil: ContinuousClock.Instant?)>((false, nil))

    /// - Parameters:
    ///   - clock: what renewals sleep on (the worker's clock ends the loop on a graceful shutdown).
    ///   - changed: called when the lease is taken (`true`) or lost (`false`), before polling starts or
    ///     after it stopped; a failure leaves the lease as it was counted.
    public init(
        store: any SharedStore, seconds: Int, clock: any Clock<Duration>, logger: Logger,
        changed: @escaping @Sendable (_ held: Bool) async throws(StoreFailure) -> Void
    ) {
        self.store = store
        self.seconds = seconds
        self.clock = clock
        self.logger = logger
        self.changed = changed
    }

    /// Whether this worker polls now.
    public var isHeld: Bool {
        state.withLock { state in
            state.held && (state.validUntil.map { ContinuousClock.now < $0 } ?? false)
        }
    }

    /// Takes or renews the lease once; returns whether this worker holds it.
    @discardableResult
    public func renew() async -> Bool {
        let started = ContinuousClock.now
        let was = isHeld
        let held: Bool
        do {
            held = try await store.acquireLease(Self.name, seconds: seconds)
        } catch {
            // Counted as held until the last renewal runs out; then another worker may take over.
            logger.error("poller lease not renewed", metadata: ["worker": "\(store.worker)", "error": "\(error)"])
            return isHeld
        }
        do {
            if held != was { try await changed(held) }
        } catch {
            // Not ready to poll (the throttle could not be read): the lease goes back at once, so another
            // worker polls rather than none.
            logger.error(
                "cannot take the feeds over; the poller lease is given back",
                metadata: ["worker": "\(store.worker)", "error": "\(error)"])
            state.withLock { $0 = (false, nil) }
            try? await store.releaseLease(Self.name)
            return false
        }
        state.withLock { $0 = (held, held ? started + .seconds(seconds) - .seconds(1) : nil) }
        if held && !was {
            logger.info("this worker polls the feeds now", metadata: ["worker": "\(store.worker)"])
        } else if !held && was {
            logger.warning("another worker polls the feeds now", metadata: ["worker": "\(store.worker)"])
        }
        return held
    }

    /// Gives the lease up (a graceful stop), so another worker takes the feeds at once.
    public func release() async {
        guard state.withLock({ $0.held }) else { return }
        state.withLock { $0 = (false, nil) }
        do {
            try await store.releaseLease(Self.name)
        } catch {
            logger.warning(
                "poller lease not given up; another worker takes the feeds when it expires",
                metadata: ["error": "\(error)"])
        }
    }

    /// Renews until the graceful shutdown, then gives the lease up.
    public func run() async throws {
        while !Task.isCancelled {
            await renew()
            do {
                try await clock.sleep(for: .milliseconds(seconds * 1000 / 3))
            } catch {
                break
            }
        }
        await release()
    }
}
