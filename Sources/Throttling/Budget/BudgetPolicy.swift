/// How many priority-10 pushes an activity may receive per period.
///
/// Apple does not publish the budget and may change it, so the default is conservative: 10 per hour, and 40
/// per hour for activities whose app reported that the user enabled frequent updates
/// (`NSSupportsLiveActivitiesFrequentUpdates`). Priority-5 pushes do not count.
public struct BudgetPolicy: Sendable, Hashable, Codable {
    /// Priority-10 pushes per period.
    public var size: Int
    /// The period in seconds: a spent push counts for this long, then returns to the budget.
    public var period: Int
    /// The size for activities with frequent updates enabled.
    public var frequentUpdatesSize: Int

    public init(size: Int, period: Int, frequentUpdatesSize: Int? = nil) {
        self.size = size
        self.period = period
        self.frequentUpdatesSize = frequentUpdatesSize ?? size * 4
    }

    /// 10 per hour; 40 per hour with frequent updates.
    public static let conservative = BudgetPolicy(size: 10, period: 3600, frequentUpdatesSize: 40)

    enum CodingKeys: String, CodingKey {
        case size, period
        case frequentUpdatesSize = "frequent-updates-size"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        size = try c.decode(Int.self, forKey: .size)
        period = try c.decodeIfPresent(Int.self, forKey: .period) ?? 3600
        frequentUpdatesSize = try c.decodeIfPresent(Int.self, forKey: .frequentUpdatesSize) ?? size * 4
    }
}
