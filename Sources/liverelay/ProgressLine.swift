import Foundation
import Synchronization

/// One line on standard error that a long command rewrites in place (`step 812/4,320 at …`), shown only
/// when standard error is a terminal: a log file or a pipe never gets it. Whatever else the command
/// prints goes through ``output(_:)``, which takes the line away first, so the two never mix.
final class ProgressLine: Sendable {
    /// Whether anything is shown: standard error is a terminal.
    let enabled: Bool
    private let state = Mutex<(shown: Bool, lastDraw: ContinuousClock.Instant?)>((false, nil))
    private let print: @Sendable (String) -> Void

    /// - Parameter print: where the command's other lines go (standard output).
    init(enabled: Bool = isatty(STDERR_FILENO) == 1, print: @escaping @Sendable (String) -> Void) {
        self.enabled = enabled
        self.print = print
    }

    /// Draws `text` as the progress line, at most ten times a second; `force` draws it whatever the time.
    func show(_ text: String, force: Bool = false) {
        guard enabled else { return }
        state.withLock { state in
            let now = ContinuousClock.now
            if !force, let last = state.lastDraw, now - last < .milliseconds(100) { return }
            state.lastDraw = now
            state.shown = true
            Self.writeError("\r\u{1B}[2K" + text)
        }
    }

    /// Takes the progress line away (before other output, and at the end).
    func clear() {
        guard enabled else { return }
        state.withLock { state in
            guard state.shown else { return }
            state.shown = false
            Self.writeError("\r\u{1B}[2K")
        }
    }

    /// Prints a line of the command's output, with the progress line out of its way.
    func output(_ line: String) {
        clear()
        print(line)
    }

    private static func writeError(_ text: String) {
        try? FileHandle.standardError.write(contentsOf: Data(text.utf8))
    }
}
