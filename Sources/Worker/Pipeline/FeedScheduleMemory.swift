import Feeds
import StoreCore

extension SavedFeedSchedule {
    /// What to remember of a feed's schedule after a poll at `now` decided `decision`: its failures in a
    /// row, and the wait it imposes unless it is the plain interval (a healthy feed is polled when its
    /// loop, or cron, says).
    init(_ schedule: PollSchedule, after decision: PollDecision, now: Int) {
        let wait: Int? = decision.reason == .interval ? nil : now + Int(decision.delay.components.seconds)
        self.init(
            failures: schedule.consecutiveFailures, notBefore: wait, reason: wait == nil ? nil : decision.reasonText)
    }

    /// Nothing to remember: no failure, no wait.
    static let healthy = SavedFeedSchedule(failures: 0, notBefore: nil, reason: nil)
}

extension StateStore {
    /// Saves a feed's schedule when it differs from what was saved before (`previous`; `nil`: nothing),
    /// so a healthy feed's polls cost no write.
    func remember(_ schedule: SavedFeedSchedule, feed: String, previous: SavedFeedSchedule?)
        async throws(StoreFailure)
    {
        guard schedule != (previous ?? .healthy) else { return }
        try await saveFeedSchedule(feed: feed, schedule)
    }
}
