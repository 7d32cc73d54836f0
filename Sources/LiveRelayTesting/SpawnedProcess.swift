import Foundation
import Glibc
import Synchronization

/// A child process started with `posix_spawn`, for the tests that run the command-line tool.
///
/// Not Foundation's `Process`: on Linux it lists `/proc/self/fd` to close every descriptor in the child, and
/// copies each directory entry's whole 256-byte name buffer out of the listing, reading past its end. When
/// the test process holds many descriptors (the whole suite's loopback servers and stores), that read can
/// cross into an unmapped page and crash the suite (`memmove` in `Process.run()`, seen in CI). Here the child
/// closes every descriptor above 2 with `posix_spawn_file_actions_addclosefrom_np`, without a listing.
///
/// The child runs in a process group of its own, as `Process` started it, so a signal to the test runner's
/// group does not reach it.
final class SpawnedProcess: Sendable {
    /// What the child's standard streams are connected to.
    enum Stream {
        /// `/dev/null`.
        case null
        /// A descriptor of this process (a pipe's end), made the child's stream.
        case descriptor(Int32)
    }

    let pid: pid_t
    /// The exit code, or the number of the signal that ended it; `nil` until it was reaped.
    private let exit = Mutex<Int32?>(nil)

    private init(pid: pid_t) { self.pid = pid }

    /// Starts `executable` with `arguments` (not including the program's name) and `environment` (this
    /// process's when `nil`), in `directory` when given.
    static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
        stdin: Stream, stdout: Stream, stderr: Stream
    ) throws -> SpawnedProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, stream) in [(Int32(0), stdin), (1, stdout), (2, stderr)] {
            switch stream {
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .descriptor(let fd):
                posix_spawn_file_actions_adddup2(&actions, fd, target)
            }
        }
        guard let closeFrom = GNUSpawnActions.closeFrom, closeFrom(&actions, 3) == 0 else {
            throw POSIXError(.ENOSYS, userInfo: [NSLocalizedDescriptionKey: "posix_spawn_file_actions_addclosefrom_np"])
        }
        if let directory {
            guard let changeDirectory = GNUSpawnActions.changeDirectory, changeDirectory(&actions, directory) == 0
            else {
                throw POSIXError(.ENOSYS, userInfo: [NSLocalizedDescriptionKey: "posix_spawn_file_actions_addchdir_np"])
            }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for arg in argv { free(arg) } }
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup("\($0)=\($1)") } + [nil] }
        defer { for entry in envp ?? [] { free(entry) } }
        var pid = pid_t()
        let result: Int32
        if let envp {
            result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        } else {
            result = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        }
        guard result == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO, userInfo: [NSFilePathErrorKey: executable])
        }
        return SpawnedProcess(pid: pid)
    }

    /// A pipe whose ends are closed on exec (the child gets only the end made its standard stream).
    static func pipe() -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        precondition(Glibc.pipe(&ends) == 0, "pipe: \(String(cString: strerror(errno)))")
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// The exit code (or ending signal) once the child has ended; reaps it without waiting.
    var status: Int32? {
        exit.withLock { exit in
            if exit == nil {
                var raw: Int32 = 0
                if waitpid(pid, &raw, WNOHANG) == pid { exit = Self.decode(raw) }
            }
            return exit
        }
    }

    /// Whether the child still runs.
    var isRunning: Bool { status == nil }

    /// Waits for the child to end and returns its exit code (or ending signal).
    func wait() -> Int32 {
        while true {
            if let status { return status }
            var raw: Int32 = 0
            let reaped = waitpid(pid, &raw, 0)
            if reaped == pid {
                let code = Self.decode(raw)
                exit.withLock { $0 = $0 ?? code }
            } else if reaped == -1, errno != EINTR {
                // Reaped by the other path meanwhile.
                usleep(1000)
            }
        }
    }

    /// Sends `signal` while the child has not been reaped (its pid cannot have been given to another).
    func signal(_ signal: Int32) {
        exit.withLock { exit in
            if exit == nil { _ = kill(pid, signal) }
        }
    }

    private static func decode(_ raw: Int32) -> Int32 {
        let low = raw & 0x7f
        return low == 0 ? (raw >> 8) & 0xff : low
    }

    /// Reads `fd` to its end on a thread of its own, handing each chunk to `chunk`, then closes it and calls
    /// `done`.
    static func drain(_ fd: Int32, chunk: @escaping @Sendable (Data) -> Void, done: @escaping @Sendable () -> Void) {
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    chunk(Data(buffer[0..<count]))
                } else if count == 0 || errno != EINTR {
                    break
                }
            }
            close(fd)
            done()
        }
    }
}

/// glibc's spawn extensions (2.29 and 2.34), which Swift's Glibc module leaves out (they need `_GNU_SOURCE`).
private enum GNUSpawnActions {
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    typealias ChangeDirectory =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    static let closeFrom: CloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
        unsafeBitCast($0, to: CloseFrom.self)
    }
    static let changeDirectory: ChangeDirectory? = dlsym(nil, "posix_spawn_file_actions_addchdir_np").map {
        unsafeBitCast($0, to: ChangeDirectory.self)
    }
}

/// Bytes a drain collects, read once it has ended.
final class Collected: Sendable {
    private let data = Mutex(Data())
    func append(_ chunk: Data) { data.withLock { $0.append(chunk) } }
    var text: String { data.withLock { String(decoding: $0, as: UTF8.self) } }
}
