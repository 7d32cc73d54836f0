import Feeds
import Foundation
import Testing

/// Feed dates are read byte by byte; Foundation's calendar is the reference.
@Suite struct ISO8601Tests {
    @Test func everyFormFeedsWriteGivesTheSameSecondsAsFoundation() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var state: UInt64 = 7
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        for _ in 0..<2000 {
            let (y, mo, d, h, mi, s) = (1900 + next(250), 1 + next(12), 1 + next(28), next(24), next(60), next(60))
            let expected = Int(
                calendar.date(from: DateComponents(year: y, month: mo, day: d, hour: h, minute: mi, second: s))!
                    .timeIntervalSince1970)
            func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
            let date = "\(y)-\(two(mo))-\(two(d))"
            #expect(ISO8601.parse("\(date)T\(two(h)):\(two(mi)):\(two(s))Z") == expected)
            #expect(ISO8601.parse("\(date) \(two(h)):\(two(mi)):\(two(s)).250") == expected)
            #expect(ISO8601.parse("\(date)T\(two(h)):\(two(mi))Z") == expected - s)
            #expect(ISO8601.parse(date) == expected - s - mi * 60 - h * 3600)
            #expect(ISO8601.parse("\(date)T\(two(h)):\(two(mi)):\(two(s))+02:30") == expected - 9000)
            #expect(ISO8601.parse("\(date)T\(two(h)):\(two(mi)):\(two(s))-0100") == expected + 3600)
        }
    }

    @Test func whatIsNotADateIsRefused() {
        for text in [
            "", "2026", "2026-13-01", "2026-00-10", "2026-01-32", "2026-1-01", "2026-01-01T1:00", "2026-01-01T10",
            "2026-01-01T10:00:00.", "2026-01-01T10:00Zx", "2026-01-01T10:00+1", "x2026-01-01", "2026-01-01 ",
        ] {
            #expect(ISO8601.parse(text) == nil, "\(text)")
        }
        #expect(ISO8601.parse("2026-07-03T18:00Z") == 1_783_101_600)
    }
}
