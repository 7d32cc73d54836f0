public import Foundation
import Synchronization

/// A program started in the background whose standard error is read as it comes, for tests of `liverelay
/// run`: wait for a line, send a signal, wait for the exit. Every wait is bounded.
public final class BackgroundProcess: Sendable {
    private let process: SpawnedProcess
    private let errorText = Collected()
    private let outputText = Collected()
    /// Output arrived, or the process ended.
    private let changes = ChangeSignal()

    public init(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil) throws {
        let stderr = SpawnedProcess.pipe()
        let stdout = SpawnedProcess.pipe()
        do {
            process = try SpawnedProcess.spawn(
                executable.path, arguments, environment: environment, stdin: .null,
                stdout: .descriptor(stdout.write), stderr: .descriptor(stderr.write))
        } catch {
            for fd in [stdout.read, stdout.write, stderr.read, stderr.write] { close(fd) }
            throw error
        }
        close(stdout.write)
        close(stderr.write)
        SpawnedProcess.drain(
            stderr.read,
            chunk: { [errorText, changes] in
                errorText.append($0)
                changes.changed()
            }, done: {})
        SpawnedProcess.drain(
            stdout.read,
            chunk: { [outputText, changes] in
                outputText.append($0)
                changes.changed()
            }, done: {})
        // The exit is an event too: a thread of its own waits for it.
        Thread.detachNewThread { [process, changes] in
            _ = process.wait()
            changes.changed()
        }
    }

    /// Standard error so far.
    public var standardError: String { errorText.text }
    /// Standard output so far.
    public var standardOutput: String { outputText.text }
    public var processIdentifier: Int32 { process.pid }

    /// Waits until standard error contains `text` (`count` times or more); returns false after `timeout`, or
    /// once the process has ended without writing it.
    public func waitForError(containing text: String, count: Int = 1, timeout: Duration = .seconds(30)) async
        -> Bool
    {
        let written = { @Sendable in self.standardError.components(separatedBy: text).count - 1 >= count }
        return await changes.wait(until: { written() || !self.process.isRunning }, timeout: timeout) && written()
    }

    /// Waits until standard output contains `text`; returns false after `timeout`, or once the process has
    /// ended without writing it.
    public func waitForOutput(containing text: String, timeout: Duration = .seconds(30)) async -> Bool {
        await changes.wait(until: { self.standardOutput.contains(text) || !self.process.isRunning }, timeout: timeout)
            && standardOutput.contains(text)
    }

    /// Sends a signal (SIGTERM, SIGKILL, SIGHUP…).
    public func signal(_ signal: Int32) { process.signal(signal) }

    /// Waits for the exit; returns the status, or nil after `timeout` (the process is then killed, after its
    /// threads' stacks were taken into ``hungStacks`` where gdb is installed).
    public func waitForExit(timeout: Duration = .seconds(30)) async -> Int32? {
        _ = await changes.wait(until: { !self.process.isRunning }, timeout: timeout)
        if process.isRunning {
            stacks.withLock { $0 = Self.stacks(of: process.pid) }
            process.signal(SIGKILL)
            _ = process.wait()
            return nil
        }
        return process.status
    }

    /// Every thread's stack of a process that did not exit in time (empty when it did, or without gdb).
    public var hungStacks: String { stacks.withLock { $0 } }
    private let stacks = Mutex("")

    private static func stacks(of pid: Int32) -> String {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/gdb") else { return "" }
        let output = SpawnedProcess.pipe()
        guard
            let gdb = try? SpawnedProcess.spawn(
                "/usr/bin/gdb", ["-p", String(pid), "-batch", "-ex", "thread apply all bt 30"], stdin: .null,
                stdout: .descriptor(output.write), stderr: .null)
        else {
            close(output.read)
            close(output.write)
            return ""
        }
        close(output.write)
        let text = Collected()
        let drained = DispatchSemaphore(value: 0)
        SpawnedProcess.drain(output.read, chunk: { text.append($0) }, done: { drained.signal() })
        _ = gdb.wait()
        drained.wait()
        return text.text
    }

    deinit { if process.isRunning { process.signal(SIGKILL) } }
}
