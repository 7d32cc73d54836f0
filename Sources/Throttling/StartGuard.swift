/// Whether a push-to-start may go to a device: one start per device and activity. Pure.
///
/// A device that reported the activity's update token runs the activity (the app may have started it
/// itself): it never gets a start. A device whose start went to the provider gets no other, until
/// `restartAfter` seconds have passed without the app reporting the activity's token (when set: the
/// first start may have been lost on the way); without `restartAfter`, never.
public enum StartGuard {
    /// What to do with a start to one device.
    public enum Verdict: Sendable, Hashable, CustomStringConvertible {
        case send
        case skip(reason: String)

        public var description: String {
            switch self {
            case .send: "send"
            case .skip(let reason): reason
            }
        }
    }

    /// The verdict for a start to a device that was started at `startedAt` (`nil`: never) and reported the
    /// activity's token at `tokenAt` (`nil`: never), at `now`.
    public static func decide(startedAt: Int?, tokenAt: Int?, now: Int, restartAfter: Int?) -> Verdict {
        if tokenAt != nil { return .skip(reason: "the device runs the activity already (it reported its token)") }
        guard let startedAt else { return .send }
        if let restartAfter, now - startedAt >= restartAfter { return .send }
        return .skip(reason: "the activity was started on the device already")
    }
}
