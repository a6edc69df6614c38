import FoundationEssentials
import Glibc
import SystemShims
import Synchronization

/// A child process started with `posix_spawn`, whose stdout and stderr are collected line by
/// line as they arrive (never after exit, so a chatty child cannot fill a pipe and stall), that
/// can be waited for with a deadline, and that is killed if its owner forgets it.
///
/// Two threads serve each child: one reads both pipes until end of file, one waits for the exit.
/// The child starts with an empty signal mask and every signal at its default disposition, so a
/// parent that ignores SIGPIPE or blocks signals for libdispatch does not pass that on.
/// (Foundation's `Process` is not used: it crashed in `Process.run()` during a long torture run.)
public final class ChildProcess: Sendable {
    public enum Stream: Sendable { case standardOutput, standardError }

    private struct Buffers {
        var standardOutput: [UInt8] = []
        var standardError: [UInt8] = []
        var openStreams = 2
    }

    /// Shared with the reader and waiter threads.
    private final class State: Sendable {
        let buffers = Mutex(Buffers())
        /// The exit status once reaped: the exit code, or 128 + the signal number.
        let exitStatus = Mutex<Int32?>(nil)
    }

    private let state = State()
    public let executable: String
    public let arguments: [String]
    public let processIdentifier: Int32

    /// Starts `executable` (an absolute path) with `arguments`. `environment` replaces the
    /// parent's when given. Standard input is /dev/null unless `standardInput` (a descriptor) is
    /// given; the child gets a duplicate and the caller keeps ownership of the original. The child
    /// starts in `workingDirectory` when given, else in the parent's. `onLine` sees every complete
    /// line (without its newline) as it arrives, on a background thread.
    ///
    /// - Throws: ``Errno`` when the process cannot be started (e.g. ENOENT).
    public init(
        executable: String, arguments: [String], environment: [String: String]? = nil,
        standardInput: Int32? = nil, workingDirectory: String? = nil, onLine: (@Sendable (Stream, String) -> Void)? = nil
    ) throws {
        self.executable = executable
        self.arguments = arguments
        // Close-on-exec from birth: a pipe that leaked into a child spawned concurrently by another
        // thread would keep our read end from ever seeing end of file.
        guard let pipe2 = pipe2Function else { throw Errno.notImplemented }
        var output: [Int32] = [-1, -1], error: [Int32] = [-1, -1]
        guard pipe2(&output, O_CLOEXEC) == 0 else { throw Errno.current }
        guard pipe2(&error, O_CLOEXEC) == 0 else {
            let code = errno
            close(output[0]); close(output[1])
            throw Errno(rawValue: code)
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let standardInput {
            posix_spawn_file_actions_adddup2(&actions, standardInput, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, error[1], 2)
        if let workingDirectory {
            let result = addChangeDirectoryFunction.map { $0(&actions, workingDirectory) } ?? ENOSYS
            guard result == 0 else {
                close(output[0]); close(output[1]); close(error[0]); close(error[1])
                throw Errno(rawValue: result)
            }
        }

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let envp = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in envp { free(pointer) } }
        var pid: pid_t = 0
        let result = withDefaultSignalSpawnAttributes { posix_spawn(&pid, executable, &actions, &$0, argv, envp) }
        close(output[1])
        close(error[1])
        guard result == 0 else {
            close(output[0])
            close(error[0])
            throw Errno(rawValue: result)
        }
        processIdentifier = pid

        let state = state, child = pid
        let readDescriptors = (output[0], error[0])
        do {
            try DetachedThread.start {
                let status = Self.waitForExit(child)
                state.exitStatus.withLock { $0 = status }
            }
        } catch {
            // Nobody could ever report this child's end: stop it now rather than leave it unowned.
            kill(child, SIGKILL)
            _ = Self.waitForExit(child)
            close(readDescriptors.0)
            close(readDescriptors.1)
            throw error
        }
        do {
            try DetachedThread.start {
                Self.readLines(from: readDescriptors, into: state, onLine: onLine)
            }
        } catch {
            // Without a reader the child would block on a full pipe: closing our ends makes its
            // writes fail instead (EPIPE), and nobody waits for lines that cannot come.
            close(readDescriptors.0)
            close(readDescriptors.1)
        }
    }

    /// Blocks until `child` exits; its exit code, or 128 + the signal that killed it.
    private static func waitForExit(_ child: pid_t) -> Int32 {
        var raw: Int32 = 0
        while waitpid(child, &raw, 0) < 0 {
            guard errno == EINTR else { break }
        }
        return raw & 0x7f == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
    }

    deinit {
        if isRunning { kill(processIdentifier, SIGKILL) }
    }

    /// Everything the child wrote to stdout so far.
    public var standardOutput: String { String(decoding: state.buffers.withLock { $0.standardOutput }, as: UTF8.self) }
    /// Everything the child wrote to stderr so far.
    public var standardError: String { String(decoding: state.buffers.withLock { $0.standardError }, as: UTF8.self) }
    /// The exit status once the child has exited: its exit code, or 128 + the signal that killed it.
    public var terminationStatus: Int32? { state.exitStatus.withLock { $0 } }
    public var isRunning: Bool { terminationStatus == nil }

    /// Sends `signal` (e.g. `SIGTERM`) to the child if it has not been reaped yet.
    public func send(_ signal: Int32) {
        if isRunning { kill(processIdentifier, signal) }
    }

    /// Waits until `condition` holds or `timeout` passes; returns whether it held. Checks every 10 ms.
    public static func wait(timeout: Duration, until condition: () -> Bool) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while !condition() {
            if clock.now >= deadline { return false }
            do { try await Task.sleep(for: .milliseconds(10)) } catch { return condition() }
        }
        return true
    }

    /// Waits for the child to exit, up to `timeout`; returns its status or `nil` if it is still
    /// running. After the exit it also waits (up to 1 s) for the pipes to be drained.
    @discardableResult
    public func waitForExit(timeout: Duration) async -> Int32? {
        _ = await Self.wait(timeout: timeout) { !isRunning }
        if !isRunning {
            _ = await Self.wait(timeout: .seconds(1)) { state.buffers.withLock { $0.openStreams == 0 } }
        }
        return terminationStatus
    }

    /// SIGTERM, then SIGKILL if the child has not exited within `grace`. Returns the exit status.
    @discardableResult
    public func stop(grace: Duration = .seconds(5)) async -> Int32? {
        send(SIGTERM)
        if let status = await waitForExit(timeout: grace) { return status }
        send(SIGKILL)
        return await waitForExit(timeout: .seconds(5))
    }

    /// The reader thread: polls both pipes, splits lines, until both reach end of file; closes them.
    private static func readLines(
        from descriptors: (Int32, Int32), into state: State, onLine: (@Sendable (Stream, String) -> Void)?
    ) {
        var polls = [
            pollfd(fd: descriptors.0, events: Int16(POLLIN), revents: 0),
            pollfd(fd: descriptors.1, events: Int16(POLLIN), revents: 0),
        ]
        var partial: [[UInt8]] = [[], []]
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while polls.contains(where: { $0.fd >= 0 }) {
            if poll(&polls, nfds_t(polls.count), -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            for index in polls.indices where polls[index].fd >= 0 && polls[index].revents != 0 {
                let stream: Stream = index == 0 ? .standardOutput : .standardError
                let count = buffer.withUnsafeMutableBytes { read(polls[index].fd, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR || errno == EAGAIN { continue }
                if count <= 0 {
                    close(polls[index].fd)
                    polls[index].fd = -1
                    if !partial[index].isEmpty { onLine?(stream, String(decoding: partial[index], as: UTF8.self)) }
                    partial[index] = []
                    state.buffers.withLock { $0.openStreams -= 1 }
                    continue
                }
                let chunk = buffer[..<count]
                state.buffers.withLock {
                    if stream == .standardOutput { $0.standardOutput += chunk } else { $0.standardError += chunk }
                }
                partial[index].append(contentsOf: chunk)
                while let newline = partial[index].firstIndex(of: 0x0A) {
                    let line = String(decoding: partial[index][..<newline], as: UTF8.self)
                    partial[index].removeSubrange(...newline)
                    onLine?(stream, line)
                }
            }
        }
        for entry in polls where entry.fd >= 0 { close(entry.fd) }
    }
}

/// The C library's `pipe2` (SwiftGlibc does not declare it without _GNU_SOURCE), resolved once.
private typealias Pipe2Function = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
/// `posix_spawn_file_actions_addchdir_np` (glibc 2.29), looked up like `pipe2` because Glibc's
/// module map does not export GNU extensions.
private typealias AddChangeDirectoryFunction = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
private let addChangeDirectoryFunction = cLibraryFunction(
    named: "posix_spawn_file_actions_addchdir_np", as: AddChangeDirectoryFunction.self)
private let pipe2Function = cLibraryFunction(named: "pipe2", as: Pipe2Function.self)
