public import Feeds

/// Everything one pass over the feeds did (`liverelay tick`).
public struct TickReport: Sendable {
    /// One line per feed.
    public var feeds: [FeedReport]
    /// The timer pass after the polls.
    public var timers = TimerReport()
    /// The delivery round after the polls.
    public var delivery: DeliveryReport
    /// True when a feed, the timer pass or a push failed.
    public var failed: Bool { feeds.contains { $0.error != nil } || timers.error != nil || delivery.failed > 0 }
}

/// The outcome of one timer pass.
public struct TimerReport: Sendable, CustomStringConvertible {
    /// Live activities read because their stored due time came.
    public var read = 0
    /// Activities a timer rule came due for.
    public var due = 0
    public var queued = 0
    /// The state store's failure, when the pass could not be made.
    public var error: String?

    public init() {}

    public init(_ pass: TimerPass) {
        read = pass.read
        due = pass.due
        queued = pass.pushes.count
    }

    public var description: String {
        if let error { return "timers: error: \(error)" }
        return "timers: \(due) activities due, \(queued) pushes queued"
    }
}

/// The outcome of one feed in one pass.
public struct FeedReport: Sendable, CustomStringConvertible {
    public var feed: String
    public var error: FeedError?
    public var notModified = false
    public var changes = 0
    public var queued = 0
    /// Not polled: its schedule says not before this time (UNIX seconds), for `waitReason`.
    public var waitingUntil: Int?
    public var waitReason: String?
    /// Not polled: another worker polls the feeds (it holds the poller lease).
    public var polledBy: String?

    /// A feed not polled because another worker polls the feeds.
    public init(feed: String, polledBy worker: String) {
        self.feed = feed
        polledBy = worker
    }

    /// A feed not polled because its saved schedule says it must wait.
    public init(feed: String, waitingUntil: Int, reason: String?) {
        self.feed = feed
        self.waitingUntil = waitingUntil
        waitReason = reason
    }

    /// The report of a poll's plan.
    public init(_ plan: PollPlan) {
        feed = plan.feed
        error = plan.feedError
        notModified = plan.notModified
        changes = plan.steps.count
        queued = plan.pushes.count
    }

    public var description: String {
        if let error { return "feed \(feed): error (\(error.kind)): \(error.message)" }
        if let waitingUntil {
            return "feed \(feed): not polled: waiting until \(ISO8601Time.string(waitingUntil))"
                + (waitReason.map { " (\($0))" } ?? "")
        }
        if let polledBy { return "feed \(feed): not polled: worker \(polledBy) polls the feeds" }
        if notModified { return "feed \(feed): not modified" }
        return "feed \(feed): \(changes) changed entities, \(queued) pushes queued"
    }
}
