public import Foundation
import Synchronization

/// A program started in the background whose standard error is read as it comes, for tests of `liverelay
/// run`: wait for a line, send a signal, wait for the exit. Every wait is bounded.
public final class BackgroundProcess: Sendable {
    private let process: Process
    private let errorText = TextBuffer()
    private let outputText = TextBuffer()

    private final class TextBuffer: Sendable {
        let text = Mutex("")
        func append(_ data: Data) { text.withLock { $0 += String(decoding: data, as: UTF8.self) } }
        var value: String { text.withLock { $0 } }
    }

    public init(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        let stderr = Pipe()
        let stdout = Pipe()
        process.standardError = stderr
        process.standardOutput = stdout
        process.standardInput = FileHandle.nullDevice
        self.process = process
        stderr.fileHandleForReading.readabilityHandler = { [errorText] handle in
            errorText.append(handle.availableData)
        }
        stdout.fileHandleForReading.readabilityHandler = { [outputText] handle in
            outputText.append(handle.availableData)
        }
        try process.run()
    }

    /// Standard error so far.
    public var standardError: String { errorText.value }
    /// Standard output so far.
    public var standardOutput: String { outputText.value }
    public var processIdentifier: Int32 { process.processIdentifier }

    /// Waits until standard error contains `text`; returns false after `timeout`.
    public func waitForError(containing text: String, timeout: Duration = .seconds(30)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if standardError.contains(text) { return true }
            if !process.isRunning { return standardError.contains(text) }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// Sends a signal (SIGTERM, SIGKILL, SIGHUP…).
    public func signal(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits for the exit; returns the status, or nil after `timeout` (the process is then killed, after its
    /// threads' stacks were taken into ``hungStacks`` where gdb is installed).
    public func waitForExit(timeout: Duration = .seconds(30)) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(50)) }
        if process.isRunning {
            stacks.withLock { $0 = Self.stacks(of: process.processIdentifier) }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        return process.terminationStatus
    }

    /// Every thread's stack of a process that did not exit in time (empty when it did, or without gdb).
    public var hungStacks: String { stacks.withLock { $0 } }
    private let stacks = Mutex("")

    private static func stacks(of pid: Int32) -> String {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/gdb") else { return "" }
        let gdb = Process()
        gdb.executableURL = URL(fileURLWithPath: "/usr/bin/gdb")
        gdb.arguments = ["-p", String(pid), "-batch", "-ex", "thread apply all bt 30"]
        let output = Pipe()
        gdb.standardOutput = output
        gdb.standardError = FileHandle.nullDevice
        guard (try? gdb.run()) != nil else { return "" }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        gdb.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
}
