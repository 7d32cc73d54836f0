import LiveRelayCore

/// One activity's timeline: the match state (or price) along the simulated time, each change and what it
/// led to, each push as a mark coloured by priority and sized by relevance, each wait for the budget, and
/// each merge joined to the push that carried it. Hovering any mark shows its details (SVG `<title>`).
struct TimelineSVG {
    static let width = 1000.0
    static let height = 236.0
    /// The rows pushes are drawn on (``rows(_:scale:)``).
    static let pushRows = [142.0, 170.0, 198.0]
    let activity: ActivityReport
    let scale: TimeScale
    /// Each push's row (an index into ``pushRows``).
    let rows: [Int]

    init(_ activity: ActivityReport) {
        self.activity = activity
        scale = TimeScale.padded(from: activity.from, until: activity.until, left: 90, right: Self.width - 20)
        rows = Self.rows(activity.pushes, scale: scale)
    }

    func write(into html: inout HTMLWriter) {
        html.open(
            "svg",
            [
                "class": "timeline", "viewBox": "0 0 \(Int(Self.width)) \(Int(Self.height))", "role": "img",
                "aria-label": "Timeline of \(activity.key)",
            ])
        lanes(&html)
        states(&html)
        facts(&html)
        changes(&html)
        holds(&html)
        merges(&html)
        pushes(&html)
        axis(&html, y: Self.height - 24, scale: scale)
        html.close("svg")
    }

    private func lanes(_ html: inout HTMLWriter) {
        for (y, label) in [(24.0, "state"), (56.0, "score / price"), (92.0, "changes"), (142.0, "pushes")] {
            html.element("text", ["class": "lane", "x": "4", "y": ReportTime.number(y + 4)], label)
        }
        for y in Self.pushRows {
            html.empty(
                "line",
                ["class": "rule", "x1": "90", "x2": "980", "y1": ReportTime.number(y), "y2": ReportTime.number(y)])
        }
    }

    /// Bands of the match state and period (or whatever `state` the feed gives).
    private func states(_ html: inout HTMLWriter) {
        var segments: [(from: Int, label: String, state: String)] = []
        for change in activity.changes {
            guard let state = change.facts["state"]?.stringValue else { continue }
            let period = change.facts["period"].map { $0.jsonString() }
            let label = period.map { "\(state) · period \($0)" } ?? state
            if segments.last?.label != label { segments.append((change.at, label, state)) }
        }
        for (i, segment) in segments.enumerated() {
            let x0 = scale.x(segment.from)
            let x1 = scale.x(i + 1 < segments.count ? segments[i + 1].from : scale.until)
            html.open("g", ["class": "state state-\(Self.token(segment.state))"])
            html.element("title", [:], "\(ReportTime.clock(segment.from)) \(segment.label)")
            html.empty(
                "rect",
                [
                    "x": ReportTime.number(x0), "y": "14", "width": ReportTime.number(max(x1 - x0, 1)),
                    "height": "20",
                ])
            if x1 - x0 > Double(segment.label.count) * 6 + 6 {
                html.element("text", ["x": ReportTime.number(x0 + 4), "y": "28"], segment.label)
            }
            html.close("g")
        }
    }

    /// Each score as it changed, or the price as a line.
    private func facts(_ html: inout HTMLWriter) {
        var last = ""
        var lastX = -100.0
        var prices: [(Double, Double)] = []
        for change in activity.changes {
            if let home = change.facts["home.score"], let away = change.facts["away.score"] {
                var score = "\(home.jsonString())–\(away.jsonString())"
                if let h = change.facts["home.shootout"], let a = change.facts["away.shootout"] {
                    score += " (\(h.jsonString())–\(a.jsonString()) pens)"
                }
                guard score != last else { continue }
                last = score
                let x = scale.x(change.at)
                html.open("g", ["class": "score"])
                html.element("title", [:], "\(ReportTime.clock(change.at)) score \(score)")
                html.empty("line", ["x1": ReportTime.number(x), "x2": ReportTime.number(x), "y1": "44", "y2": "66"])
                // Labels that would overlap the previous one go on a second row.
                let y = x - lastX < Double(score.count) * 7 ? "74" : "60"
                html.element(
                    "text", Self.label(right: x + 3, left: x - 3, y: y, width: Double(score.count) * 7, scale: scale),
                    score)
                html.close("g")
                lastX = y == "60" ? x : lastX
            } else if let price = change.facts["price"]?.doubleValue {
                prices.append((scale.x(change.at), price))
            }
        }
        line("price", prices, into: &html)
        // The facts the author asked for (`replay --plot`): every numeric one that is not a headline fact.
        let headline = Set(ReportFacts.headline)
        var names: [String] = []
        for change in activity.changes {
            for (name, value) in change.facts.sorted(by: { $0.key < $1.key })
            where !headline.contains(name) && value.doubleValue != nil && !names.contains(name) {
                names.append(name)
            }
        }
        for name in names {
            let points = activity.changes.compactMap { change in
                change.facts[name]?.doubleValue.map { (scale.x(change.at), $0) }
            }
            line(name, points, into: &html)
        }
    }

    /// A numeric fact as a line across the lane, scaled to its own low and high, named at its end.
    private func line(_ name: String, _ points: [(x: Double, value: Double)], into html: inout HTMLWriter) {
        guard let low = points.map(\.value).min(), let high = points.map(\.value).max(), let last = points.last
        else { return }
        let span = high > low ? high - low : 1
        let y = { (value: Double) in 70 - 26 * (value - low) / span }
        let text = points.map { "\(ReportTime.number($0.x)),\(ReportTime.number(y($0.value)))" }
        html.open("g", ["class": "price", "data-fact": name])
        html.element("title", [:], "\(name) \(ReportTime.value(low)) to \(ReportTime.value(high))")
        html.empty("polyline", ["points": text.joined(separator: " ")])
        if name != "price" {
            html.element(
                "text",
                Self.label(
                    right: last.x + 3, left: last.x - 3, y: ReportTime.number(y(last.value) + 4),
                    width: Double(name.count) * 6, scale: scale), name)
        }
        html.close("g")
    }

    /// A tick per change; a mark for a merge, a skip or a rule error.
    private func changes(_ html: inout HTMLWriter) {
        for change in activity.changes {
            let x = ReportTime.number(scale.x(change.at))
            let what =
                change.timers.isEmpty
                ? "changed \(change.changed.joined(separator: ", "))" : "timer \(change.timers.joined(separator: ", "))"
            let rules =
                change.rules.isEmpty ? "no rule fired" : "rules \(Self.unique(change.rules).joined(separator: ", "))"
            html.open("g", ["class": "change change-\(change.outcome)", "data-at": String(change.at)])
            var title = "\(ReportTime.clock(change.at, seconds: true)) \(change.entity) \(what): \(rules)"
            switch change.outcome {
            case "merged":
                title +=
                    " — merged into the waiting push of rules \(Self.unique(change.into ?? []).joined(separator: ", ")) (latest state wins)"
            case "skipped": title += " — no push: \(change.reason ?? "")"
            case "queued": title += " — push queued"
            default: break
            }
            for error in change.errors { title += " — rule \(error.rule) failed: \(error.message)" }
            let presence: String? =
                switch change.presence {
                case "gone": "left the feed"
                case "back": "back in the feed"
                default: nil
                }
            if let presence { title += " — \(change.entity) \(presence)" }
            html.element("title", [:], title)
            if let presence {
                html.element("text", ["class": "presence", "x": x, "y": "82", "text-anchor": "middle"], presence)
            }
            switch change.outcome {
            case "merged":
                html.empty("path", ["d": "M\(x) 86 l5 6 l-5 6 l-5 -6 z"])
            case "skipped":
                html.empty("path", ["d": "M\(x) 86 m-5 0 l10 12 m0 -12 l-10 12"])
            default:
                html.empty("line", ["x1": x, "x2": x, "y1": "86", "y2": "98"])
            }
            if !change.errors.isEmpty {
                html.empty("path", ["class": "error", "d": "M\(x) 78 l6 -10 l-12 0 z"])
            }
            html.close("g")
        }
    }

    /// Each wait for the budget as a band from when it began to when the push went out, labelled.
    private func holds(_ html: inout HTMLWriter) {
        for hold in activity.holds {
            let x0 = scale.x(hold.at)
            let end = hold.releasedAt ?? hold.until
            let x1 = scale.x(end)
            html.open("g", ["class": "hold", "data-at": String(hold.at), "data-until": String(hold.until)])
            html.element(
                "title", [:],
                "held \(ReportTime.clock(hold.at)) → \(ReportTime.clock(end)): priority-10 budget spent, rules \(Self.unique(hold.rules).joined(separator: ", ")) wait for it (until \(ReportTime.clock(hold.until)))"
            )
            html.empty(
                "rect",
                ["x": ReportTime.number(x0), "y": "130", "width": ReportTime.number(max(x1 - x0, 2)), "height": "24"])
            html.element(
                "text", ["x": ReportTime.number(x0 + 4), "y": "126"],
                "held \(ReportTime.clock(hold.at))–\(ReportTime.clock(end))")
            html.close("g")
        }
    }

    /// What a push's tooltip says.
    static func describe(_ push: ReportPush) -> String {
        var parts = ["\(ReportTime.clock(push.at, seconds: true)) \(push.event) at priority \(push.priority)"]
        if push.downgraded { parts.append("downgraded from 10: budget spent, alert dropped") }
        if let since = push.heldSince { parts.append("held since \(ReportTime.clock(since))") }
        if push.merged > 0 { parts.append("\(push.merged) later change\(push.merged == 1 ? "" : "s") merged in") }
        if let change = ActivityHTML.changeText(push) { parts.append(change) }
        parts.append("relevance \(push.relevance.map(ReportTime.value) ?? "none")")
        if let alert = push.alert { parts.append("alert “\(alert.text)”") }
        parts.append("rules \(unique(push.rules).joined(separator: ", "))")
        return parts.joined(separator: " — ")
    }

    /// A label's position: starting at `right`, or ending at `left` when it would run past the chart.
    static func label(right: Double, left: Double, y: String, width: Double, scale: TimeScale) -> KeyValuePairs<
        String, String?
    > {
        right + width > scale.right + 16
            ? ["x": ReportTime.number(left), "y": y, "text-anchor": "end"]
            : ["x": ReportTime.number(right), "y": y, "text-anchor": nil]
    }

    static func unique(_ rules: [String]) -> [String] {
        var seen = Set<String>()
        return rules.filter { seen.insert($0).inserted }
    }

    /// A class-name-safe form of a fact value.
    static func token(_ s: String) -> String {
        String(s.lowercased().unicodeScalars.filter { ("a"..."z").contains($0) || ("0"..."9").contains($0) })
    }
}

/// The time axis under a chart.
func axis(_ html: inout HTMLWriter, y: Double, scale: TimeScale) {
    html.open("g", ["class": "axis"])
    html.empty(
        "line",
        [
            "x1": ReportTime.number(scale.left), "x2": ReportTime.number(scale.right), "y1": ReportTime.number(y),
            "y2": ReportTime.number(y),
        ])
    for t in scale.ticks {
        let x = ReportTime.number(scale.x(t))
        html.empty("line", ["x1": x, "x2": x, "y1": ReportTime.number(y), "y2": ReportTime.number(y + 4)])
        html.element("text", ["x": x, "y": ReportTime.number(y + 15), "text-anchor": "middle"], ReportTime.clock(t))
    }
    html.close("g")
}
