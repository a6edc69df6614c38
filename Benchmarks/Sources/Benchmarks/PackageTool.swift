// The benchmark calls the C library directly on purpose: its floors are the kernel without SystemShims.
import Glibc

/// One of the executables built next to the benchmark, run as a child: the product's shipped
/// tools (`entitlementd`, `entitlementctl`, `widget-renderer`) and the process floor
/// (`entitlement-bench-floor`). `entitlement-bench` depends on each, so building it builds them.
struct PackageTool {
    let name: String
    let executable: String

    init(_ name: String) {
        self.name = name
        executable = SelfExecutable.directory + "/" + name
    }

    /// Starts the tool; its standard error is appended to `logPath` (the daemon logs every event there).
    func start(_ arguments: [String], logPath: String, standardOutput: Int32? = nil) throws(BenchmarkError) -> SpawnedProcess {
        try SpawnedProcess(executable: try checkedExecutable(), arguments: arguments, standardOutput: standardOutput, standardErrorPath: logPath)
    }

    /// The executable's path, or an error naming it when it was not built next to the benchmark.
    func checkedExecutable() throws(BenchmarkError) -> String {
        guard access(executable, X_OK) == 0 else {
            throw BenchmarkError("\(executable) not found: build with swift build --package-path Benchmarks -c release")
        }
        return executable
    }
}
