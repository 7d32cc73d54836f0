public import LiveRelayCore

/// What became of an update token reported for an activity.
public enum ActivityTokenRegistration: Sendable, Hashable {
    /// Stored: the activity's next pushes go to it.
    case stored
    /// Refused: the provider dropped this token before.
    case dropped
    /// Refused: the activity has ended; nothing more is sent for it.
    case ended
}

/// An update token a device reported for an activity, as a registration or one line of an import.
public struct ActivityTokenReport: Sendable, Hashable {
    public var activity: ActivityKey
    public var device: String
    public var token: String
    public var environment: PushEnvironment

    /// A report.
    public init(activity: ActivityKey, device: String, token: String, environment: PushEnvironment) {
        self.activity = activity
        self.device = device
        self.token = token
        self.environment = environment
    }
}

/// Which reported update tokens the registry takes, the same for one registration through the API and for
/// an import of a million: the rule every store applies, given what it read (the dropped tokens and the
/// ended activities among those reported), before it writes the rows this returns.
///
/// - A token is kept in lower case (APNs tokens are hex; a device may report either case).
/// - A token the provider dropped before is refused (`dropped`): it would only be dropped again.
/// - A token for an activity that has ended is refused (`ended`): nothing more is sent for it.
/// - Of several reports for one activity and device, the last one is written (a rotation).
public enum ActivityTokenAdmission {
    /// The form the registry keeps a token in.
    public static func normalized(_ token: String) -> String {
        // Over the bytes in one loop (an import checks a million tokens): iterating `utf8` goes through its
        // index type one byte at a time.
        let upper =
            token.utf8.withContiguousStorageIfAvailable { bytes in bytes.contains { $0 >= 65 && $0 <= 90 } }
            ?? token.utf8.contains { $0 >= 65 && $0 <= 90 }
        return upper ? token.lowercased() : token
    }

    /// The verdict for each report (in order) and the rows to write (tokens normalized, one per activity and
    /// device, in the order of their last report). `dropped` holds normalized tokens.
    public static func decide(
        _ reports: [ActivityTokenReport], dropped: Set<String>, ended: Set<ActivityKey>
    ) -> (verdicts: [ActivityTokenRegistration], rows: [ActivityTokenReport]) {
        var verdicts: [ActivityTokenRegistration] = []
        verdicts.reserveCapacity(reports.count)
        var kept: [ActivityTokenReport] = []
        kept.reserveCapacity(reports.count)
        // Each pair is hashed once: a report that replaces an earlier one of its pair marks that one replaced.
        var last: [DevicePair: Int] = [:]
        last.reserveCapacity(reports.count)
        var replaced: [Bool] = []
        replaced.reserveCapacity(reports.count)
        var anyReplaced = false
        for report in reports {
            var report = report
            report.token = normalized(report.token)
            if !dropped.isEmpty, dropped.contains(report.token) {
                verdicts.append(.dropped)
            } else if !ended.isEmpty, ended.contains(report.activity) {
                verdicts.append(.ended)
            } else {
                verdicts.append(.stored)
                if let earlier = last.updateValue(
                    kept.count, forKey: DevicePair(activity: report.activity, device: report.device))
                {
                    replaced[earlier] = true
                    anyReplaced = true
                }
                kept.append(report)
                replaced.append(false)
            }
        }
        let rows = anyReplaced ? kept.indices.filter { !replaced[$0] }.map { kept[$0] } : kept
        return (verdicts, rows)
    }

    private struct DevicePair: Hashable {
        var activity: ActivityKey
        var device: String
    }
}
