// The benchmark calls the C library directly on purpose: its floors are the kernel without SystemShims.
import Glibc

/// A benchmark step that could not run; the message names what failed.
struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }

    /// `operation` failed with the current `errno`.
    static func system(_ operation: String, path: String? = nil) -> BenchmarkError {
        let code = errno
        let target = path.map { " \($0)" } ?? ""
        return BenchmarkError("\(operation)\(target): \(String(cString: strerror(code)))")
    }
}
