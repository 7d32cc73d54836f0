public import LiveRelayCore

// Throttle states are written once per activity a poll or a release touched: straight to bytes, the same
// bytes `compactJSON()` writes (`JSONWritable`).

extension PendingPush: JSONWritable {
    public func writeJSON(to out: inout JSONBytes) {
        out.raw("{")
        out.key("coalesced")
        out.int(coalesced)
        out.next("enqueuedAt")
        out.int(enqueuedAt)
        out.next("policy")
        out.string(policy.rawValue)
        out.next("push")
        out.write(push)
        out.next("whenBudgetSpent")
        out.string(whenBudgetSpent.rawValue)
        out.raw("}")
    }
}

extension ThrottleStats: JSONWritable {
    public func writeJSON(to out: inout JSONBytes) {
        out.raw("{")
        out.key("coalesced")
        out.int(coalesced)
        out.next("downgraded")
        out.int(downgraded)
        out.next("held")
        out.int(held)
        out.next("sentHigh")
        out.int(sentHigh)
        out.next("sentLow")
        out.int(sentLow)
        out.next("starts")
        out.int(starts)
        out.raw("}")
    }
}

extension ActivityThrottleState: JSONWritable {
    public func writeJSON(to out: inout JSONBytes) {
        out.raw("{")
        out.key("attributesType")
        out.string(attributesType)
        out.next("frequentUpdates")
        frequentUpdates ? out.raw("true") : out.raw("false")
        if let heldUntil {
            out.next("heldUntil")
            out.int(heldUntil)
        }
        if let lastSentAt {
            out.next("lastSentAt")
            out.int(lastSentAt)
        }
        if let pending {
            out.next("pending")
            out.write(pending)
        }
        out.next("stats")
        out.write(stats)
        out.next("window")
        out.raw("{")
        out.key("sends")
        out.ints(window.sends)
        out.raw("}")
        out.raw("}")
    }
}
