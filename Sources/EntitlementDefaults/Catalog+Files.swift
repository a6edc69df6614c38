import EntitlementModel
import SystemShims

extension Catalog {
    /// Reads `Catalog.json` at `path` and the files it names from the file system, and decodes
    /// them (`Catalog.load(path:bytes:)`, which reads nothing itself).
    ///
    /// - Throws: `CatalogError` naming the file that is missing (`no such file`), a directory
    ///   (`is a directory, not a file`), unreadable (`cannot be read`) or malformed.
    public static func load(path: String) throws(CatalogError) -> Catalog {
        try load(path: path, bytes: fileContents)
    }

    /// The bytes of the catalog file at `path` (symbolic links followed: the operator chose them).
    static func fileContents(_ path: String) throws(CatalogError) -> [UInt8] {
        let status: FileStatus
        do { status = try fileStatus(atPath: path) } catch { throw CatalogError(file: path, keyPath: "", problem: "no such file") }
        guard status.type != .directory else { throw CatalogError(file: path, keyPath: "", problem: "is a directory, not a file") }
        do {
            let file = try FileDescriptor.open(path, .readOnly, options: .closeOnExec)
            // The size just stat'ed: one read(2) of that many bytes (plus one to see the end) for
            // a file that has not changed since, instead of 64 KB chunks each zeroed first.
            return try file.readAll(limit: maximumFileSize, expectedSize: Int(clamping: status.size))
        } catch {
            throw CatalogError(file: path, keyPath: "", problem: "cannot be read")
        }
    }

    /// The largest catalog, `.storekit` or certificate file read (bytes).
    static let maximumFileSize = 256 << 20
}
