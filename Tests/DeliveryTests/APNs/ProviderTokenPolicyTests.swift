import Delivery
import Testing

@Suite struct ProviderTokenPolicyTests {
    @Test func oneTokenPerRefreshIntervalOverASimulatedHour() {
        var policy = ProviderTokenPolicy(refreshInterval: 50 * 60)
        var mints: [Int] = []
        for now in stride(from: 0, through: 3 * 3600, by: 10) {
            if case .mint(let issuedAt) = policy.token(now: now) { mints.append(issuedAt) }
        }
        #expect(mints == [0, 3000, 6000, 9000])
        #expect(zip(mints, mints.dropFirst()).allSatisfy { $1 - $0 >= ProviderTokenPolicy.minimumInterval })
    }

    @Test(arguments: [(60, 1200), (3600, 3300), (2400, 2400)])
    func theRefreshIntervalStaysBetween20And55Minutes(asked: Int, used: Int) {
        #expect(ProviderTokenPolicy(refreshInterval: asked).refreshInterval == used)
    }

    @Test func anExpiredTokenOlderThan20MinutesIsReplacedAtOnce() {
        var policy = ProviderTokenPolicy()
        #expect(policy.token(now: 100) == .mint(issuedAt: 100))
        let replaced = policy.expired(now: 100 + 1500)
        #expect(replaced)
        #expect(policy.token(now: 100 + 1500) == .mint(issuedAt: 1600))
        #expect(policy.token(now: 1700) == .use(issuedAt: 1600))
    }

    @Test func anExpiredTokenYoungerThan20MinutesIsReplacedOnlyWhenTheyHavePassed() {
        var policy = ProviderTokenPolicy()
        _ = policy.token(now: 0)
        let replaced = policy.expired(now: 300)
        #expect(!replaced, "minting now would earn TooManyProviderTokenUpdates")
        #expect(policy.token(now: 301) == .use(issuedAt: 0))
        #expect(policy.token(now: 1199) == .use(issuedAt: 0))
        #expect(policy.token(now: 1200) == .mint(issuedAt: 1200), "replaced as soon as allowed, not after 50 minutes")
        #expect(!policy.rejected)
    }

    @Test func aClockGoingBackwardsKeepsTheToken() {
        var policy = ProviderTokenPolicy()
        _ = policy.token(now: 5000)
        #expect(policy.token(now: 10) == .use(issuedAt: 5000))
    }
}
