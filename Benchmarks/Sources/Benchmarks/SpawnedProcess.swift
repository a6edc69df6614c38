// The benchmark calls the C library directly on purpose: its floors are the kernel without SystemShims.
import Glibc

/// A child process started with `posix_spawn`, whose standard input and output can be wired to
/// descriptors the benchmark owns. The owner must call ``stop()`` (or ``waitForExit()``) once.
final class SpawnedProcess {
    let pid: pid_t
    private var status: Int32?

    /// Starts `executable` with `arguments`; `standardInput`/`standardOutput` are duplicated onto
    /// descriptors 0 and 1 (`nil` means `/dev/null`). Standard error is inherited unless
    /// `standardErrorPath` names a file to append it to.
    init(
        executable: String, arguments: [String], standardInput: Int32? = nil, standardOutput: Int32? = nil,
        standardErrorPath: String? = nil, environment: [String: String]? = nil
    ) throws(BenchmarkError) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let standardInput { posix_spawn_file_actions_adddup2(&actions, standardInput, 0) } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        if let standardOutput { posix_spawn_file_actions_adddup2(&actions, standardOutput, 1) } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        if let standardErrorPath {
            posix_spawn_file_actions_addopen(&actions, 2, standardErrorPath, O_WRONLY | O_CREAT | O_APPEND, 0o640)
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { for pointer in envp ?? [] { free(pointer) } }
        var failure: Int32 = 0
        let spawned = LiveChildren.spawning {
            var child: pid_t = 0
            // The child starts with no signal blocked (openssl speed times itself with alarm()).
            failure = withDefaultSignalSpawnAttributes { attributes in
                envp.map { posix_spawn(&child, executable, &actions, &attributes, argv, $0) }
                    ?? posix_spawn(&child, executable, &actions, &attributes, argv, environ)
            }
            return failure == 0 ? child : nil
        }
        guard let spawned else {
            throw BenchmarkError("spawn \(executable): \(String(cString: strerror(failure)))")
        }
        pid = spawned
    }

    /// Whether the child has not been reaped yet (reaps it if it has exited).
    var isRunning: Bool {
        if status != nil { return false }
        var raw: Int32 = 0
        if waitpid(pid, &raw, WNOHANG) == pid {
            status = raw
            LiveChildren.remove(pid)
            return false
        }
        return true
    }

    /// Waits for the child to exit and returns its raw wait status.
    @discardableResult
    func waitForExit() -> Int32 {
        if let status { return status }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0, errno == EINTR {}
        status = raw
        LiveChildren.remove(pid)
        return raw
    }

    /// Sends SIGTERM, waits up to `grace` seconds, then SIGKILL; always reaps the child.
    func stop(grace: Double = 2) {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        let deadline = MonotonicClock.now() + UInt64(grace * 1e9)
        while isRunning, MonotonicClock.now() < deadline { usleep(1000) }
        if isRunning { kill(pid, SIGKILL) }
        waitForExit()
    }

    /// The exit code if the child exited normally.
    var exitCode: Int32? {
        guard let status, status & 0x7f == 0 else { return nil }
        return (status >> 8) & 0xff
    }
}

/// The benchmark's own executable, which re-runs itself in a helper role (`--role NAME`).
enum SelfExecutable {
    static let path: String = {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return CommandLine.arguments[0] }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()

    /// The directory holding the executable (the build products directory).
    static var directory: String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return String(path[..<slash])
    }
}

/// Runs `body` with spawn attributes that start the child with no signal blocked and every
/// signal at its default action (`openssl speed` times itself with `alarm()`).
private func withDefaultSignalSpawnAttributes<Result>(_ body: (inout posix_spawnattr_t) throws -> Result) rethrows -> Result {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var noSignals = sigset_t(), allSignals = sigset_t()
    sigemptyset(&noSignals)
    sigfillset(&allSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    posix_spawnattr_setsigdefault(&attributes, &allSignals)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    return try body(&attributes)
}
