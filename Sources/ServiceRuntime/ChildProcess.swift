import Foundation
import Synchronization

/// A child process whose stdout and stderr are collected line by line as they arrive (never
/// after exit, so a chatty child cannot fill a pipe and stall), that can be waited for with a
/// deadline, and that is killed if its owner forgets it.
public final class ChildProcess: Sendable {
    public enum Stream: Sendable { case standardOutput, standardError }

    private struct Buffers {
        var standardOutput = ""
        var standardError = ""
        var partial: [Stream: String] = [:]
        var openStreams = 2
    }

    /// Shared with the pipe and termination handlers, which run on other threads.
    private final class State: Sendable {
        let buffers = Mutex(Buffers())
        let exitStatus = Mutex<Int32?>(nil)
    }

    private let process: Process
    private let state = State()

    public let executable: String
    public let arguments: [String]

    /// Starts `executable` with `arguments`. `onLine` sees every complete line (without its
    /// newline) as it arrives, on a background thread. Standard input is /dev/null unless
    /// `standardInput` is given.
    public init(
        executable: String, arguments: [String], environment: [String: String]? = nil, workingDirectory: String? = nil,
        standardInput: FileHandle? = nil, onLine: (@Sendable (Stream, String) -> Void)? = nil
    ) throws {
        self.executable = executable
        self.arguments = arguments
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let workingDirectory { process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory) }
        process.standardInput = standardInput ?? FileHandle(forReadingAtPath: "/dev/null")
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        for (pipe, stream) in [(out, Stream.standardOutput), (err, Stream.standardError)] {
            pipe.fileHandleForReading.readabilityHandler = { [state] handle in
                let buffers = state
                let data = handle.availableData
                if data.isEmpty {
                    handle.readabilityHandler = nil
                    let rest = buffers.buffers.withLock { b -> String in
                        let rest = b.partial[stream] ?? ""
                        b.partial[stream] = nil
                        b.openStreams -= 1
                        return rest
                    }
                    if !rest.isEmpty { onLine?(stream, rest) }
                    return
                }
                let text = String(decoding: data, as: UTF8.self)
                let lines = buffers.buffers.withLock { b -> [String] in
                    if stream == .standardOutput { b.standardOutput += text } else { b.standardError += text }
                    var pending = (b.partial[stream] ?? "") + text
                    var complete: [String] = []
                    while let newline = pending.firstIndex(of: "\n") {
                        complete.append(String(pending[..<newline]))
                        pending = String(pending[pending.index(after: newline)...])
                    }
                    b.partial[stream] = pending
                    return complete
                }
                for line in lines { onLine?(stream, line) }
            }
        }
        process.terminationHandler = { [state] finished in
            state.exitStatus.withLock { $0 = finished.terminationStatus }
        }
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    public var processIdentifier: Int32 { process.processIdentifier }

    /// Everything the child wrote to stdout so far.
    public var standardOutput: String { state.buffers.withLock { $0.standardOutput } }
    /// Everything the child wrote to stderr so far.
    public var standardError: String { state.buffers.withLock { $0.standardError } }
    /// The exit status once the child has exited (a signal death reports the signal number).
    public var terminationStatus: Int32? { state.exitStatus.withLock { $0 } }
    public var isRunning: Bool { terminationStatus == nil }

    /// Sends `signal` (e.g. `SIGTERM`) to the child if it is still running.
    public func send(_ signal: Int32) {
        if isRunning { kill(process.processIdentifier, signal) }
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

    /// Waits for the child to exit, up to `timeout`; returns its status or `nil` if it is still running.
    @discardableResult
    public func waitForExit(timeout: Duration) async -> Int32? {
        _ = await Self.wait(timeout: timeout) { !isRunning }
        if !isRunning {
            // Let the pipes drain so the last lines are collected.
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
}
