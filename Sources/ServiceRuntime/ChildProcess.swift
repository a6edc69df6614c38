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
        /// Once reaped: the exit code or 128 + the signal number, and when the waiter thread saw it.
        let exit = Mutex<(status: Int32, instant: ContinuousClock.Instant)?>(nil)
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
        let output = try FileDescriptor.pipe()
        let error = try FileDescriptor.pipe()
        let child = try ProcessID.spawn(
            executable, arguments: arguments, environment: environment, standardInput: standardInput,
            standardOutput: output.writeEnd, standardError: error.writeEnd, workingDirectory: workingDirectory)
        // Only the child may hold the write ends now, so that the reader sees end of file.
        try? output.writeEnd.close()
        try? error.writeEnd.close()
        processIdentifier = child.rawValue

        // The reader thread takes the read ends over (it closes each at its end of file).
        let state = state
        let readEnds = (output.readEnd.release(), error.readEnd.release())
        do {
            try DetachedThread.start {
                let status = Self.waitForExit(child)
                let instant = ContinuousClock.now
                state.exit.withLock { $0 = (status, instant) }
            }
        } catch {
            // Nobody could ever report this child's end: stop it now rather than leave it unowned.
            try? child.send(.kill)
            _ = Self.waitForExit(child)
            try? FileDescriptor(adopting: readEnds.0).close()
            try? FileDescriptor(adopting: readEnds.1).close()
            throw error
        }
        do {
            try DetachedThread.start {
                Self.readLines(from: readEnds, into: state, onLine: onLine)
            }
        } catch {
            // Without a reader the child would block on a full pipe: closing our ends makes its
            // writes fail instead (EPIPE), and nobody waits for lines that cannot come.
            try? FileDescriptor(adopting: readEnds.0).close()
            try? FileDescriptor(adopting: readEnds.1).close()
        }
    }

    /// Blocks until `child` exits; its exit code, or 128 + the signal that killed it, or
    /// ``unknownStatus`` when it cannot be waited for (someone else reaped it): a status nobody
    /// saw must never read as success.
    static func waitForExit(_ child: ProcessID) -> Int32 {
        (try? child.waitForTermination())?.shellStatus ?? unknownStatus
    }

    /// The status reported for a child whose end could not be observed; no exit code or
    /// 128 + signal can take it.
    public static let unknownStatus: Int32 = -1

    deinit {
        if isRunning { try? ProcessID(rawValue: processIdentifier).send(.kill) }
    }

    /// Everything the child wrote to stdout so far.
    public var standardOutput: String { String(decoding: state.buffers.withLock { $0.standardOutput }, as: UTF8.self) }
    /// Everything the child wrote to stderr so far.
    public var standardError: String { String(decoding: state.buffers.withLock { $0.standardError }, as: UTF8.self) }
    /// The exit status once the child has exited: its exit code, or 128 + the signal that killed
    /// it, or ``unknownStatus`` when its end could not be observed.
    public var terminationStatus: Int32? { state.exit.withLock { $0?.status } }
    /// When the child's exit was observed (on the continuous clock), by a thread that does
    /// nothing else, so the instant does not depend on when its owner next looks; `nil` while it
    /// runs.
    public var exitInstant: ContinuousClock.Instant? { state.exit.withLock { $0?.instant } }
    public var isRunning: Bool { terminationStatus == nil }

    /// Sends `signal` (e.g. `SIGTERM`) to the child if it has not been reaped yet.
    public func send(_ signal: Int32) {
        if isRunning { try? ProcessID(rawValue: processIdentifier).send(SignalNumber(rawValue: signal)) }
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
        send(SignalNumber.terminate.rawValue)
        if let status = await waitForExit(timeout: grace) { return status }
        send(SignalNumber.kill.rawValue)
        return await waitForExit(timeout: .seconds(5))
    }

    /// The reader thread: owns both read ends (raw numbers handed over), waits for either to
    /// be readable, splits lines, until both reach end of file.
    private static func readLines(
        from readEnds: (CInt, CInt), into state: State, onLine: (@Sendable (Stream, String) -> Void)?
    ) {
        var output = PipeReader(.standardOutput, FileDescriptor(adopting: readEnds.0))
        var error = PipeReader(.standardError, FileDescriptor(adopting: readEnds.1))
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while output.isOpen || error.isOpen {
            // A closed reader polls -1, which poll(2) skips.
            guard let ready = try? FileDescriptor.waitForInput(output.polled, error.polled, timeoutMilliseconds: -1) else { break }
            if ready.first { output.readAvailable(using: &buffer, into: state, onLine: onLine) }
            if ready.second { error.readAvailable(using: &buffer, into: state, onLine: onLine) }
        }
    }

    /// One of the child's output pipes as the reader thread sees it: the read end until end of
    /// file, and the line not yet ended.
    private struct PipeReader: ~Copyable {
        let stream: Stream
        var descriptor: FileDescriptor?
        var partial: [UInt8] = []

        init(_ stream: Stream, _ descriptor: consuming FileDescriptor) {
            self.stream = stream
            self.descriptor = consume descriptor
        }

        var isOpen: Bool { descriptor != nil }
        /// The descriptor number to poll; -1 once closed.
        var polled: CInt {
            switch descriptor {
            case .some(let descriptor): descriptor.rawValue
            case .none: -1
            }
        }

        /// Reads what the pipe holds, records it and hands on every complete line; at end of file
        /// (or a read error) hands on the unfinished line, closes the descriptor and counts the
        /// stream as closed.
        mutating func readAvailable(using buffer: inout [UInt8], into state: State, onLine: (@Sendable (Stream, String) -> Void)?) {
            let count: Int
            do {
                switch descriptor {
                case .some(let descriptor):
                    count = try buffer.withUnsafeMutableBytes { bytes in
                        Result { () throws(Errno) in try descriptor.read(into: bytes) }
                    }.get()
                case .none: return
                }
            } catch .wouldBlock {
                return
            } catch {
                count = 0
            }
            guard count > 0 else {
                self.descriptor = nil
                if !partial.isEmpty { onLine?(stream, String(decoding: partial, as: UTF8.self)) }
                partial = []
                state.buffers.withLock { $0.openStreams -= 1 }
                return
            }
            let chunk = buffer[..<count]
            let stream = stream
            state.buffers.withLock {
                if stream == .standardOutput { $0.standardOutput += chunk } else { $0.standardError += chunk }
            }
            partial.append(contentsOf: chunk)
            while let newline = partial.firstIndex(of: 0x0A) {
                let line = String(decoding: partial[..<newline], as: UTF8.self)
                partial.removeSubrange(...newline)
                onLine?(stream, line)
            }
        }
    }
}
