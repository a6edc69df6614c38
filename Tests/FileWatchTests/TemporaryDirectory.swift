import Foundation
import Glibc

/// Runs `body` with a fresh 0700 directory under the system temporary directory, removed afterwards.
func withTemporaryDirectory<T>(
    _ prefix: String = #function,
    _ body: (String) async throws -> T
) async throws -> T {
    let safePrefix = String(prefix.map { $0.isLetter || $0.isNumber ? $0 : "-" }.prefix(40))
    let templatePath = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("filewatch-\(safePrefix)-XXXXXX").path
    var template = Array(templatePath.utf8CString)
    guard let created = mkdtemp(&template) else {
        throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
    let path = String(cString: created)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

/// Writes `contents` to `path` by creating (or truncating) it, writing and closing: one `IN_CLOSE_WRITE`.
func writeFile(_ path: String, _ contents: String) throws {
    try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
}

/// Replaces `name` in `directory` atomically: writes `.name.tmp` then renames it over `name`.
func replaceAtomically(directory: String, name: String, contents: String) throws {
    let temporary = directory + "/." + name + ".tmp"
    try writeFile(temporary, contents)
    guard rename(temporary, directory + "/" + name) == 0 else {
        throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
}
