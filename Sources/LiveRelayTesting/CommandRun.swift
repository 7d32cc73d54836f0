public import Foundation

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
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        // Drain both pipes while the program runs so a large output cannot block it.
        let group = DispatchGroup()
        nonisolated(unsafe) var out = Data()
        nonisolated(unsafe) var err = Data()
        DispatchQueue.global().async(group: group) { out = stdout.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { err = stderr.fileHandleForReading.readDataToEndOfFile() }
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        process.waitUntilExit()
        group.wait()
        return CommandRun(
            status: process.terminationStatus, standardOutput: String(decoding: out, as: UTF8.self),
            standardError: String(decoding: err, as: UTF8.self))
    }
}
