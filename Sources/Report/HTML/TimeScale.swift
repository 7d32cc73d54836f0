/// Simulated time to horizontal position: `from`…`until` onto `left`…`right`, with round ticks.
struct TimeScale {
    let from: Int
    let until: Int
    let left: Double
    let right: Double

    /// A scale; an empty span is widened by a minute so every mark has a place.
    init(from: Int, until: Int, left: Double, right: Double) {
        self.from = from
        self.until = max(until, from + 60)
        self.left = left
        self.right = right
    }

    /// A scale with a little room before `from` and after `until` (a fortieth of the span, a minute at
    /// least), so the first and last marks are not cut by the edges.
    static func padded(from: Int, until: Int, left: Double, right: Double) -> TimeScale {
        let pad = max(60, (until - from) / 40)
        return TimeScale(from: from - pad, until: until + pad, left: left, right: right)
    }

    func x(_ t: Int) -> Double {
        left + (right - left) * Double(t - from) / Double(until - from)
    }

    /// Tick times on a round step (1 min to 1 day) giving at most about ten ticks.
    var ticks: [Int] {
        let steps = [60, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400]
        let step = steps.first { (until - from) / $0 <= 10 } ?? 86_400 * ((until - from) / 86_400 / 10 + 1)
        var t = (from / step + (from % step == 0 ? 0 : 1)) * step
        var out: [Int] = []
        while t <= until {
            out.append(t)
            t += step
        }
        return out
    }
}
