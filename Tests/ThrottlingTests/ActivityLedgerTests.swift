import LiveRelayCore
import Testing
import Throttling

@Suite struct ActivityLedgerTests {
    let ledger = ActivityLedger()
    let entity = EntityKey(feed: "f", id: "1")

    func intent(
        _ rule: String, _ event: PushEvent, _ patch: [String: JSONValue], relevance: Double? = nil,
        priority: PriorityPolicy = .auto, alert: LiveActivityAlert? = nil, dismissal: Int? = nil
    ) -> ActivityIntent {
        ActivityIntent(
            activity: "match-1", attributesType: "MatchAttributes", event: event, patch: patch,
            attributes: event == .start ? ["home": "AUS"] : nil, alert: alert,
            relevance: relevance.map(RelevanceScore.init),
            priority: priority, dismissalAfter: dismissal, ruleID: rule, entity: entity)
    }

    func pushes(_ decisions: [LedgerDecision]) -> [LiveActivityPush] {
        decisions.compactMap { if case .push(let p) = $0 { return p.push } else { return nil } }
    }

    @Test func updatesCarryTheWholeStateNotTheDiff() {
        var records: [ActivityKey: ActivityRecord] = [:]
        _ = ledger.apply([intent("start", .start, ["home": 0, "away": 0, "clock": "1'"])], to: &records, now: 100)
        let p = pushes(ledger.apply([intent("clock", .update, ["clock": "2'"])], to: &records, now: 160))
        #expect(p.map(\.contentState) == [["home": 0, "away": 0, "clock": "2'"]])
        #expect(records["match-1"]?.state == ["home": 0, "away": 0, "clock": "2'"])
    }

    @Test func anUnchangedStateIsNotSent() {
        var records: [ActivityKey: ActivityRecord] = [:]
        _ = ledger.apply([intent("start", .start, ["clock": "1'"])], to: &records, now: 100)
        let d = ledger.apply([intent("clock", .update, ["clock": "1'"])], to: &records, now: 160)
        #expect(d == [.skip(activity: "match-1", ruleIDs: ["clock"], reason: .unchanged)])
        #expect(records["match-1"]?.lastTimestamp == 100)
    }

    /// `activity.changed-at` moves with the state: a start sets it, a change of the state moves it, and a
    /// timer refresh pushing the same state (to renew the stale date) or an end that changes nothing leaves it.
    @Test func theLastStateChangeIsKeptApartFromTheLastPush() {
        var records: [ActivityKey: ActivityRecord] = [:]
        _ = ledger.apply([intent("start", .start, ["home": 0])], to: &records, now: 100)
        #expect(records["match-1"]?.changedAt == 100)
        var refresh = intent("refresh", .update, [:])
        refresh.timer = true
        #expect(pushes(ledger.apply([refresh], to: &records, now: 700)).count == 1)
        #expect(records["match-1"]?.lastTimestamp == 700)
        #expect(records["match-1"]?.changedAt == 100, "a refresh is not a change")
        _ = ledger.apply([intent("goal", .update, ["home": 1])], to: &records, now: 900)
        #expect(records["match-1"]?.changedAt == 900)
        _ = ledger.apply([intent("over", .end, [:])], to: &records, now: 1000)
        #expect(records["match-1"]?.changedAt == 900, "an end with the same state")
        #expect(records["match-1"]?.lastTimestamp == 1000)
    }

    /// The delivered state is the receipts' (the store writes it); the ledger carries it and shows it only
    /// when it belongs to the activity's current life.
    @Test func theDeliveredStateIsCarriedAndBelongsToTheCurrentLife() {
        var records: [ActivityKey: ActivityRecord] = [:]
        _ = ledger.apply([intent("start", .start, ["home": 0])], to: &records, now: 100)
        records["match-1"]?.delivered = DeliveredState(timestamp: 100, state: ["home": 0])
        _ = ledger.apply([intent("goal", .update, ["home": 1])], to: &records, now: 200)
        #expect(records["match-1"]?.deliveredState == ["home": 0], "the goal is not delivered yet")
        #expect(records["match-1"]?.state == ["home": 1])
        records["match-1"]?.startedAt = 150
        #expect(records["match-1"]?.deliveredState == nil, "a push from before the start is another life's")
    }

    @Test func rulesFiringTogetherMakeOnePushWithTheHighestRelevance() {
        var records: [ActivityKey: ActivityRecord] = [:]
        _ = ledger.apply([intent("start", .start, ["home": 0, "clock": "1'"])], to: &records, now: 100)
        let goal = LiveActivityAlert(title: "Goal!", body: "1-0")
        let p = pushes(
            ledger.apply(
                [
                    intent("goal", .update, ["home": 1], relevance: 100, priority: .high, alert: goal),
                    intent("clock", .update, ["clock": "44'"], relevance: 20, priority: .low),
                ],
                to: &records, now: 200))
        #expect(p.count == 1)
        #expect(p[0].contentState == ["home": 1, "clock": "44'"])
        #expect(p[0].relevanceScore == RelevanceScore(100))
        #expect(p[0].priority == .high)
        #expect(p[0].alert == goal)
        #expect(p[0].ruleIDs == ["goal", "clock"])
    }

    @Test func timestampsStrictlyIncreaseEvenWithinOneSecond() {
        var records: [ActivityKey: ActivityRecord] = [:]
        let t1 = pushes(ledger.apply([intent("start", .start, ["n": 1])], to: &records, now: 100))[0].timestamp
        let t2 = pushes(ledger.apply([intent("u", .update, ["n": 2])], to: &records, now: 100))[0].timestamp
        let t3 = pushes(ledger.apply([intent("u", .update, ["n": 3])], to: &records, now: 99))[0].timestamp
        #expect([t1, t2, t3] == [100, 101, 102])
    }

    @Test func updatesBeforeAStartAndAfterAnEndAreDropped() {
        var records: [ActivityKey: ActivityRecord] = [:]
        #expect(
            ledger.apply([intent("u", .update, ["n": 1])], to: &records, now: 1) == [
                .skip(activity: "match-1", ruleIDs: ["u"], reason: .notStarted)
            ])
        _ = ledger.apply([intent("s", .start, ["n": 1])], to: &records, now: 2)
        let end = pushes(ledger.apply([intent("e", .end, ["n": 2], dismissal: 3600)], to: &records, now: 3))
        #expect(end.first?.dismissalDate == 3603)
        #expect(records["match-1"]?.phase == .ended)
        #expect(
            ledger.apply([intent("u", .update, ["n": 3])], to: &records, now: 4) == [
                .skip(activity: "match-1", ruleIDs: ["u"], reason: .notStarted)
            ])
        #expect(
            ledger.apply([intent("s", .start, ["n": 1])], to: &records, now: 5) == [
                .skip(activity: "match-1", ruleIDs: ["s"], reason: .alreadyEnded)
            ])
    }

    /// An end rule without `dismissal-after` still gives the end a dismissal date: iOS's longest, four hours.
    @Test func everyEndCarriesADismissalDate() {
        var records: [ActivityKey: ActivityRecord] = [:]
        _ = ledger.apply([intent("s", .start, ["n": 1])], to: &records, now: 1)
        let end = pushes(ledger.apply([intent("e", .end, ["n": 2])], to: &records, now: 100))
        #expect(end.first?.dismissalDate == 100 + 4 * 3600)
    }

    @Test func aSecondStartOfALiveActivityBecomesAnUpdate() {
        var records: [ActivityKey: ActivityRecord] = [:]
        _ = ledger.apply([intent("s", .start, ["n": 1])], to: &records, now: 1)
        let p = pushes(ledger.apply([intent("s", .start, ["n": 2])], to: &records, now: 2))
        #expect(p.map(\.event) == [.update])
        #expect(p[0].attributes == nil)
    }

    @Test func aStartCarriesAttributesAndAnEndCarriesTheFinalState() {
        var records: [ActivityKey: ActivityRecord] = [:]
        let start = pushes(
            ledger.apply([intent("s", .start, ["n": 1], alert: .init(title: "KO", body: "0-0"))], to: &records, now: 1))[
                0]
        #expect(start.attributes == ["home": "AUS"])
        #expect(start.attributesType == "MatchAttributes")
        #expect(records["match-1"]?.phase == .pending)
        let end = pushes(ledger.apply([intent("e", .end, ["n": 1])], to: &records, now: 2))
        #expect(end.map(\.event) == [.end], "an end goes out even when the state did not change")
    }

    @Test func nullInAPatchRemovesAField() {
        var records: [ActivityKey: ActivityRecord] = [:]
        _ = ledger.apply([intent("s", .start, ["a": 1, "b": 2])], to: &records, now: 1)
        let p = pushes(ledger.apply([intent("u", .update, ["b": .null])], to: &records, now: 2))
        #expect(p[0].contentState == ["a": 1])
    }
}

extension ActivityLedgerTests {
    /// A start keeps what a late joiner's start carries again: its attributes, its alert, and whether its
    /// rule file starts late joiners; the updates after it leave that alone.
    @Test func theStartIsKeptForLateJoiners() {
        var records: [ActivityKey: ActivityRecord] = [:]
        let kickOff = LiveActivityAlert(title: "Kick-off")
        _ = ledger.apply([intent("start", .start, ["home": 0], alert: kickOff)], to: &records, now: 100)
        let expected = ActivityStart(attributes: ["home": "AUS"], alert: kickOff, lateJoin: true)
        #expect(records["match-1"]?.start == expected)
        _ = ledger.apply([intent("goal", .update, ["home": 1])], to: &records, now: 160)
        #expect(records["match-1"]?.start == expected)

        var closed: [ActivityKey: ActivityRecord] = [:]
        var start = intent("start", .start, ["home": 0], alert: kickOff)
        start.lateJoin = false
        _ = ledger.apply([start], to: &closed, now: 100)
        #expect(closed["match-1"]?.start?.lateJoin == false)
    }
}
