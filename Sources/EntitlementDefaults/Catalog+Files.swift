import Entitlements
import SystemShims

extension Catalog {
    /// Reads `Catalog.json` at `path` and the files it names from the file system, and decodes
    /// them (`Catalog.load(path:bytes:)`, which reads nothing itself).
    ///
    /// - Throws: `CatalogError` naming the file that is missing (`no such file`), a directory
    ///   (`is a directory, not a file`), too large, or malformed; or one that could not be read
    ///   (`cannot be read: Too many open files (EMFILE)`), with its `systemError`.
    public static func load(path: String) throws(CatalogError) -> Catalog {
        try load(path: path, bytes: fileContents)
    }

    /// The bytes of the catalog file at `path` (symbolic links followed: the operator chose them).
    static func fileContents(_ path: String) throws(CatalogError) -> [UInt8] {
        func unreadable(_ error: Errno) -> CatalogError {
            CatalogError(file: path, keyPath: "", problem: "cannot be read: \(error)", systemError: error.rawValue)
        }
        let status: FileStatus
        do { status = try fileStatus(atPath: path) } catch {
            guard error == .noSuchFileOrDirectory || error == .notDirectory else { throw unreadable(error) }
            throw CatalogError(file: path, keyPath: "", problem: "no such file")
        }
        guard status.type != .directory else { throw CatalogError(file: path, keyPath: "", problem: "is a directory, not a file") }
        let file: FileDescriptor
        do { file = try FileDescriptor.open(path, .readOnly, options: .closeOnExec) } catch { throw unreadable(error) }
        // The size just stat'ed: one read(2) of that many bytes (plus one to see the end) for
        // a file that has not changed since, instead of 64 KB chunks each zeroed first.
        do { return try file.readAll(limit: maximumFileSize, expectedSize: Int(clamping: status.size)) } catch {
            switch error {
            case .exceedsLimit(let limit): throw CatalogError(file: path, keyPath: "", problem: "larger than the \(limit)-byte limit")
            case .system(let errno): throw unreadable(errno)
            }
        }
    }

    /// The largest catalog, `.storekit` or certificate file read (bytes).
    static let maximumFileSize = 256 << 20
}
