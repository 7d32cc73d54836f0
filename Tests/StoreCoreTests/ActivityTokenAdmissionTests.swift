import LiveRelayCore
import StoreCore
import Testing

@Suite("Which reported update tokens the registry takes")
struct ActivityTokenAdmissionTests {
    static let match = ActivityKey("match-1")
    static let over = ActivityKey("match-0")

    static func report(_ activity: ActivityKey, _ device: String, _ token: String) -> ActivityTokenReport {
        ActivityTokenReport(activity: activity, device: device, token: token, environment: .production)
    }

    static func report(_ device: String, _ token: String) -> ActivityTokenReport {
        report(match, device, token)
    }

    @Test func tokensAreKeptInLowerCase() {
        #expect(ActivityTokenAdmission.normalized("AB12cd") == "ab12cd")
        #expect(ActivityTokenAdmission.normalized("ab12") == "ab12")
        let (verdicts, rows) = ActivityTokenAdmission.decide([Self.report("d1", "ABCD")], dropped: [], ended: [])
        #expect(verdicts == [.stored])
        #expect(rows.map(\.token) == ["abcd"])
    }

    /// A dropped token is refused whatever case it is reported in; an ended activity takes no token.
    @Test func droppedTokensAndEndedActivitiesAreRefused() {
        let (verdicts, rows) = ActivityTokenAdmission.decide(
            [Self.report("d1", "DEAD"), Self.report(Self.over, "d2", "beef"), Self.report("d3", "cafe")],
            dropped: ["dead"], ended: [Self.over])
        #expect(verdicts == [.dropped, .ended, .stored])
        #expect(rows.map(\.device) == ["d3"])
    }

    /// A token dropped for an ended activity says `dropped`: the token is what is wrong.
    @Test func aDroppedTokenIsDroppedEvenForAnEndedActivity() {
        let (verdicts, _) = ActivityTokenAdmission.decide(
            [Self.report(Self.over, "d1", "dead")], dropped: ["dead"], ended: [Self.over])
        #expect(verdicts == [.dropped])
    }

    /// Several reports for one activity and device are a rotation: the last is written, once, where it came
    /// (d1 of match-1 rotated twice).
    @Test func theLastReportOfADeviceWins() {
        let (verdicts, rows) = ActivityTokenAdmission.decide(
            [
                Self.report("d1", "aa"), Self.report("d2", "bb"), Self.report("d1", "cc"),
                Self.report(Self.over, "d1", "dd"), Self.report("d2", "ee"), Self.report("d1", "ff"),
            ],
            dropped: [], ended: [])
        #expect(verdicts == [.stored, .stored, .stored, .stored, .stored, .stored])
        #expect(rows.map(\.token) == ["dd", "ee", "ff"])
    }

    /// A later report that is refused does not undo the earlier one that was kept.
    @Test func aRefusedRotationKeepsTheTokenBefore() {
        let (verdicts, rows) = ActivityTokenAdmission.decide(
            [Self.report("d1", "aa"), Self.report("d1", "dead")], dropped: ["dead"], ended: [])
        #expect(verdicts == [.stored, .dropped])
        #expect(rows.map(\.token) == ["aa"])
    }
}
