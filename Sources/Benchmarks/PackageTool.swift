// The benchmark calls the C library directly on purpose: its floors are the kernel without SystemShims.
import Glibc

/// One of the package's executables, run as a child: the real binary when it was built next to
/// the benchmark (`swift build -c release` builds them all), else this executable in the
/// `tool` role, which runs the same command library code (`entitlement-bench --role tool NAME …`).
struct PackageTool {
    let name: String
    let executable: String
    let prefix: [String]

    init(_ name: String) {
        self.name = name
        let sibling = SelfExecutable.directory + "/" + name
        if access(sibling, X_OK) == 0 {
            executable = sibling
            prefix = []
        } else {
            executable = SelfExecutable.path
            prefix = ["--role", "tool", name]
        }
    }

    /// Whether the real executable is used (rather than the multi-call fallback).
    var isRealBinary: Bool { prefix.isEmpty }

    /// How the table names what ran.
    var label: String { isRealBinary ? name : "\(name) (multi-call in entitlement-bench)" }

    /// Starts the tool; its standard error is appended to `logPath` (the daemon logs every event there).
    func start(_ arguments: [String], logPath: String, standardOutput: Int32? = nil) throws(BenchmarkError) -> SpawnedProcess {
        try SpawnedProcess(
            executable: executable, arguments: prefix + arguments, standardOutput: standardOutput, standardErrorPath: logPath)
    }
}
