public import Foundation
import Glibc

/// Runs a program to completion and captures its output, for tests of the command-line tool.
public struct CommandRun: Sendable {
    public var status: Int32
    public var standardOutput: String
    public var standardError: String

    /// Runs `executable` with `arguments`, feeding `input` on standard input, and waits for it on a thread
    /// of its own: a test waiting for a program must not hold one of the few threads of the cooperative pool,
    /// which the loopback servers of the tests running beside it need to answer.
    public static func run(_ executable: URL, _ arguments: [String], input: String = "", directory: URL? = nil)
        async throws -> CommandRun
    {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result { try runBlocking(executable, arguments, input: input, directory: directory) })
            }
        }
    }

    /// The same, blocking the calling thread.
    static func runBlocking(_ executable: URL, _ arguments: [String], input: String, directory: URL?) throws
        -> CommandRun
    {
        let stdin = SpawnedProcess.pipe()
        let stdout = SpawnedProcess.pipe()
        let stderr = SpawnedProcess.pipe()
        let process: SpawnedProcess
        do {
            process = try SpawnedProcess.spawn(
                executable.path, arguments, directory: directory?.path, stdin: .descriptor(stdin.read),
                stdout: .descriptor(stdout.write), stderr: .descriptor(stderr.write))
        } catch {
            for fd in [stdin.read, stdin.write, stdout.read, stdout.write, stderr.read, stderr.write] { close(fd) }
            throw error
        }
        for fd in [stdin.read, stdout.write, stderr.write] { close(fd) }
        // Drain both pipes while the program runs so a large output cannot block it.
        let out = Collected()
        let err = Collected()
        let drained = DispatchGroup()
        for (fd, text) in [(stdout.read, out), (stderr.read, err)] {
            drained.enter()
            SpawnedProcess.drain(fd, chunk: { text.append($0) }, done: { drained.leave() })
        }
        let bytes = Array(input.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(stdin.write, $0.baseAddress, $0.count) }
            if count > 0 {
                written += count
            } else if errno != EINTR {
                break  // the program closed its input
            }
        }
        close(stdin.write)
        let status = process.wait()
        drained.wait()
        return CommandRun(status: status, standardOutput: out.text, standardError: err.text)
    }
}
