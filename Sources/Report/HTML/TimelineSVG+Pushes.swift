extension TimelineSVG {
    /// Which row each push is drawn on. A notable push (priority 10, or a start, an end, a held, merged
    /// or downgraded one: those that carry a label) takes the first row with no push within 14 points, so
    /// two notable moments a minute apart stay apart; the other pushes (the quiet priority-5 updates) all
    /// stay on the first row, a line of small dots however dense.
    static func rows(_ pushes: [ReportPush], scale: TimeScale) -> [Int] {
        var rows = pushes.map { _ in 0 }
        var placed: [[Double]] = pushRows.map { _ in [] }
        for (i, push) in pushes.enumerated() where isNotable(push) {
            let x = scale.x(push.at)
            let row = placed.indices.first { r in placed[r].allSatisfy { abs($0 - x) >= 14 } } ?? 1
            placed[row].append(x)
            rows[i] = row
        }
        return rows
    }

    /// A push worth a label and a row of its own.
    static func isNotable(_ push: ReportPush) -> Bool {
        push.priority == 10 || push.event != "update" || push.downgraded || push.heldSince != nil || push.merged > 0
    }

    /// A circle per push: red at priority 10, blue at 5, a dashed ring when downgraded; its radius grows with
    /// relevance. Notable pushes are drawn last, on top, with a label (start, end, held, merged, downgraded)
    /// on a white halo.
    func pushes(_ html: inout HTMLWriter) {
        let order =
            activity.pushes.indices.filter { !Self.isNotable(activity.pushes[$0]) }
            + activity.pushes.indices.filter { Self.isNotable(activity.pushes[$0]) }
        for index in order {
            let push = activity.pushes[index]
            let x = scale.x(push.at)
            let y = Self.pushRows[rows[index]]
            let relevance = min(max(push.relevance ?? 0, 0), 100)
            // A push without relevance is still a mark to point at, not a speck.
            let r = 5.5 + relevance / 100 * 6.5
            html.open(
                "g",
                [
                    "class": "push p\(push.priority)\(push.downgraded ? " downgraded" : "")",
                    "data-at": String(push.at), "data-event": push.event, "data-priority": String(push.priority),
                ])
            html.element("title", [:], Self.describe(push))
            html.empty("circle", ["cx": ReportTime.number(x), "cy": ReportTime.number(y), "r": ReportTime.number(r)])
            var label: [String] = push.event == "update" ? [] : [push.event]
            if push.heldSince != nil { label.append("held, then 10") }
            if push.merged > 0 { label.append("+\(push.merged) merged") }
            if push.downgraded { label.append("downgraded to 5") }
            if !label.isEmpty {
                let text = label.joined(separator: ", ")
                html.element(
                    "text",
                    Self.label(
                        right: x + r + 3, left: x - r - 3, y: ReportTime.number(y + 4), width: Double(text.count) * 6.2,
                        scale: scale), text)
            }
            html.close("g")
        }
    }

    /// The changes merged into one waiting push, as one group: a label with their number at the first, and
    /// a dashed line from the last to the push that carried them.
    func merges(_ html: inout HTMLWriter) {
        var carrier = 0
        var groups: [(carrier: Int, first: Int, last: Int, count: Int)] = []
        for change in activity.changes where change.outcome == "merged" {
            while carrier < activity.pushes.count, activity.pushes[carrier].at < change.at { carrier += 1 }
            guard carrier < activity.pushes.count else { continue }
            if groups.last?.carrier == carrier {
                groups[groups.count - 1].last = change.at
                groups[groups.count - 1].count += 1
            } else {
                groups.append((carrier, change.at, change.at, 1))
            }
        }
        for group in groups {
            let push = activity.pushes[group.carrier]
            html.open("g", ["class": "merge", "data-count": String(group.count)])
            html.element(
                "title", [:],
                "\(group.count) change\(group.count == 1 ? "" : "s") from \(ReportTime.clock(group.first)) to \(ReportTime.clock(group.last)) merged into the push sent at \(ReportTime.clock(push.at)) (latest state wins)"
            )
            html.empty(
                "line",
                [
                    "class": "merge-link", "x1": ReportTime.number(scale.x(group.last)), "y1": "98",
                    "x2": ReportTime.number(scale.x(push.at)),
                    "y2": ReportTime.number(Self.pushRows[rows[group.carrier]]),
                ])
            html.element(
                "text", ["x": ReportTime.number(scale.x(group.first)), "y": "110"],
                group.count == 1 ? "merged" : "\(group.count) merged")
            html.close("g")
        }
    }
}
