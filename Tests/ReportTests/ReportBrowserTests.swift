import Foundation
import LiveRelayCore
import LiveRelayTesting
import Report
import Testing
import Worker
import WorkerTesting

/// The tiny-budget demo's report opened in a real headless browser (Debian's `chromium`, which `.ci/run`
/// installs): its script runs without an error and finds the marks the report draws, and the page renders
/// to a screenshot.
@Suite struct ReportBrowserTests {
    /// The browser, or `nil` (and a failure that says so) when it is not installed.
    static func chromium() -> URL? {
        let candidates = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
        guard let path = candidates.first(where: FileManager.default.isExecutableFile(atPath:)) else {
            Issue.record(
                "chromium is not installed, so the report was not opened in a browser: apt-get install chromium (scripts/debian-packages.sh lists it; .ci/run installs it)"
            )
            return nil
        }
        return URL(fileURLWithPath: path)
    }

    /// Runs the browser headless on `page` with `arguments`, within two minutes, with a profile of its own.
    static func browse(_ page: URL, _ arguments: [String], in directory: URL) async throws -> CommandRun? {
        guard let chromium = chromium() else { return nil }
        return try await CommandRun.run(
            URL(fileURLWithPath: "/usr/bin/timeout"),
            [
                "120", chromium.path, "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars",
                "--user-data-dir=\(directory.appendingPathComponent("profile").path)",
            ] + arguments + [page.absoluteString])
    }

    static func writeDemoReport(to directory: URL) async throws -> (URL, ReplayReport) {
        let (report, _) = try await ReplayReportTests.tinyBudgetReport()
        let page = directory.appendingPathComponent("report.html")
        try Data(report.html().utf8).write(to: page)
        return (page, report)
    }

    @Test func theScriptRunsWithoutErrorsAndFindsEveryMark() async throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (page, report) = try await Self.writeDemoReport(to: directory)
        guard let run = try await Self.browse(page, ["--dump-dom"], in: directory) else { return }
        #expect(run.status == 0, "\(run.standardError.suffix(2000))")
        let dom = run.standardOutput
        let root = try #require(dom.range(of: "<html").map { dom[$0.lowerBound...].prefix { $0 != ">" } })
        #expect(root.contains("data-rendered=\"ok\""), "the page's script did not finish: \(root)")
        #expect(!root.contains("data-errors"), "script errors: \(root)")
        let activity = try #require(report.activities.first)
        // The browser's own count of the SVG marks (the script queries `svg.timeline g.push`).
        #expect(root.contains("data-pushes=\"\(activity.pushes.count)\""), "\(root)")
        #expect(root.contains("data-holds=\"\(activity.holds.count)\""), "\(root)")
        #expect(dom.contains("class=\"push p5 downgraded\""))
        #expect(dom.contains("held 19:35–20:44"))
    }

    /// The price-alert sample's report in the browser: each push shows its content-state (whole, on hover)
    /// and what changed from the previous push, and the body cut short is on the page as a feed error.
    @Test func thePriceAlertReportShowsEachPushsStateItsChangeAndTheFeedError() async throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let recorder = RecordingProvider()
        let summary = try await SequenceReplay.run(
            config: "Samples/presets/price-alerts.json", sequence: "Samples/sequences/binance-btc-alert/sequence.json",
            provider: recorder)
        let report = ReplayReport.build(summary.trace)
        let btc = try #require(report.activities.first { $0.key == "price-BTCUSDT" })
        #expect(
            btc.pushes.map(\.contentState)
                == recorder.pushes.filter { $0.activity == "price-BTCUSDT" }.map(\.contentState))
        #expect(btc.pushes.first?.change == ["previous": 98950, "price": .decimal(Decimal(string: "100120.5")!)])
        #expect(
            btc.pushes.dropFirst().first?.change == ["change24h": .decimal(Decimal(string: "0.65")!), "price": 100650])
        let page = directory.appendingPathComponent("report.html")
        try Data(report.html().utf8).write(to: page)
        guard let run = try await Self.browse(page, ["--dump-dom"], in: directory) else { return }
        #expect(run.status == 0, "\(run.standardError.suffix(2000))")
        let dom = run.standardOutput
        let root = try #require(dom.range(of: "<html").map { dom[$0.lowerBound...].prefix { $0 != ">" } })
        #expect(root.contains("data-rendered=\"ok\""), "\(root)")
        #expect(!root.contains("data-errors"), "\(root)")
        let pushes = report.activities.map(\.pushes.count).reduce(0, +)
        #expect(root.contains("data-states=\"\(pushes)\""), "every push's state is in its table: \(root)")
        #expect(root.contains("data-feed-errors=\"1\""), "\(root)")
        #expect(dom.contains("change24h 0.65 · price 100650"), "the update's change")
        #expect(dom.contains("previous 98950 · price 100120.5"), "the start's state")
        #expect(dom.contains("feed error at 14:04:30 (step 6, a response cut short"), "the feed error")
        #expect(dom.contains("unterminated string"))
    }

    @Test func thePageRendersToAScreenshot() async throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (page, _) = try await Self.writeDemoReport(to: directory)
        let png = directory.appendingPathComponent("report.png")
        guard
            let run = try await Self.browse(
                page, ["--window-size=1200,900", "--screenshot=\(png.path)"], in: directory)
        else { return }
        #expect(run.status == 0, "\(run.standardError.suffix(2000))")
        let data = try Data(contentsOf: png)
        #expect(data.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "a PNG")
        // The IHDR chunk: width and height, big-endian, at bytes 16 and 20.
        let width = data[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let height = data[20..<24].reduce(0) { $0 << 8 | Int($1) }
        #expect(width == 1200 && height == 900)
        #expect(data.count > 20_000, "a page with charts, not a blank one (\(data.count) bytes)")
    }
}
