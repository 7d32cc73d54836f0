import Foundation
import LiveRelayTesting
import Report
import Testing

/// `liverelay replay … --report FILE` as a user runs it.
@Suite struct ReportCommandLineTests {
    let liverelay = Repository.executable("liverelay")
    static let arguments = [
        "replay", "Samples/sequences/espn-aus-egy/sequence.json", "--config", "Samples/demo/tiny-budget.json",
    ]

    @Test func aJSONReportIsWrittenBesideTheUsualOutput() async throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("report.json").path
        let run = try await CommandRun.run(liverelay, Self.arguments + ["--report", path], directory: Repository.root)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("⏸ match-760499 held until 2026-07-03T20:44:00Z"))
        let report = try JSONDecoder().decode(ReplayReport.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(report.activities.first?.holds.count == 1)
        #expect(report.summary.pushes == 6)
    }

    @Test func anHTMLReportIsWrittenByItsExtension() async throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("Report.HTML").path
        let run = try await CommandRun.run(liverelay, Self.arguments + ["--report", path], directory: Repository.root)
        #expect(run.status == 0, "\(run.standardError)")
        let page = try String(contentsOfFile: path, encoding: .utf8)
        #expect(page.hasPrefix("<!DOCTYPE html>"))
        #expect(page.contains("held 19:35–20:44"))
        #expect(run.standardError.contains("report written to \(path)"))
    }

    /// On a terminal (a pseudo-terminal made by `script`), standard error gets a progress line rewritten in
    /// place; through a pipe, nothing.
    @Test func aProgressLineOnlyOnATerminal() async throws {
        let command = ([liverelay.path] + Self.arguments).map { "'\($0)'" }.joined(separator: " ")
        let terminal = try await CommandRun.run(
            URL(fileURLWithPath: "/usr/bin/script"), ["-qec", command + " 2>&1 >/dev/null", "/dev/null"],
            directory: Repository.root)
        #expect(terminal.status == 0, "\(terminal.standardOutput)")
        #expect(terminal.standardOutput.contains("\r\u{1B}[2Kstep 1/8 at 2026-07-03T17:55:00Z"))
        #expect(
            terminal.standardOutput.contains(
                "\r\u{1B}[2Kstep 8/8 at 2026-07-03T20:45:00Z, then the clock runs on\r\u{1B}[2K"),
            "the last step is shown, then the line is cleared: \(terminal.standardOutput.debugDescription)")
        let piped = try await CommandRun.run(liverelay, Self.arguments, directory: Repository.root)
        #expect(piped.status == 0)
        #expect(!piped.standardError.contains("step 1/8"), "\(piped.standardError)")
        #expect(!piped.standardOutput.contains("\u{1B}"))
    }

    @Test func aReportFileOfAnotherKindIsRefusedBeforeTheReplay() async throws {
        let run = try await CommandRun.run(
            liverelay, Self.arguments + ["--report", "/tmp/report.txt"], directory: Repository.root)
        #expect(run.status != 0)
        #expect(run.standardError.contains("--report /tmp/report.txt: the file must end in"), "\(run.standardError)")
        #expect(!run.standardOutput.contains("step 1/8"))
    }

    @Test func aReportThatCannotBeWrittenIsAClearError() async throws {
        let run = try await CommandRun.run(
            liverelay, Self.arguments + ["--report", "/nonexistent-directory/report.json"], directory: Repository.root)
        #expect(run.status == 1)
        #expect(
            run.standardError.contains("--report /nonexistent-directory/report.json: cannot write the report"),
            "\(run.standardError)")
    }
}
