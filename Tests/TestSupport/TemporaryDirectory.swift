import Foundation
import SystemShims

/// Runs `body` with the path of a fresh directory (mode 0700) under `$TMPDIR` (or `/tmp`), and
/// removes the directory and everything in it afterwards, even when `body` throws.
///
/// - Parameter prefix: the start of the directory's name, by default the calling function's name,
///   so a leftover directory says which test made it.
public func withTemporaryDirectory<T>(
    _ prefix: String = #function, _ body: (String) throws -> T
) throws -> T {
    let path = try makeTemporaryDirectory(prefix: prefix)
    defer { removeTemporaryDirectory(path) }
    return try body(path)
}

/// The `async` form of ``withTemporaryDirectory(_:_:)``.
public func withTemporaryDirectory<T>(
    _ prefix: String = #function, _ body: (String) async throws -> T
) async throws -> T {
    let path = try makeTemporaryDirectory(prefix: prefix)
    defer { removeTemporaryDirectory(path) }
    return try await body(path)
}

/// Why a temporary directory could not be made.
public struct TemporaryDirectoryError: Error, CustomStringConvertible {
    public var description: String
}

private func makeTemporaryDirectory(prefix: String) throws -> String {
    let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    let safePrefix = String(prefix.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" }.prefix(40))
    do {
        return try FileSystem.makeTemporaryDirectory(in: base, prefix: safePrefix)
    } catch {
        throw TemporaryDirectoryError(description: "cannot create a temporary directory under \(base): \(error)")
    }
}

private func removeTemporaryDirectory(_ path: String) {
    // Tests may leave read-only directories behind; make them writable so removal succeeds.
    if let enumerator = FileManager.default.enumerator(atPath: path) {
        for case let relative as String in enumerator {
            let full = path + "/" + relative
            // lstat, not stat: a symbolic link to a directory outside (a test's link to /tmp)
            // must not have its target's mode changed.
            var status = stat()
            if lstat(full, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
                _ = chmod(full, 0o700)
            }
        }
    }
    try? FileManager.default.removeItem(atPath: path)
}
