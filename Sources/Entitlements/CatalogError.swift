/// Why a catalog (`Catalog.json` or its `.storekit` file) was refused: one line naming the file,
/// the key path and the problem, e.g. `Catalog.json: entitlements.plus.products[1]: not a string`.
public struct CatalogError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file as the caller named it.
    public var file: String
    /// The key path inside the file; empty when the problem concerns the whole file.
    public var keyPath: String
    /// What is wrong, in a few words (`no such file`, `not a string`).
    public var problem: String
    /// The `errno` of the system call that failed to read `file` (`EMFILE`, `EIO`), when the file
    /// could not be read at all; `nil` when its contents were refused. A failed read says
    /// nothing about the catalog: callers report it as a temporary failure, not as bad data.
    public var systemError: Int32?

    /// An error for `file` at `keyPath`; `systemError` when a read failed (see ``systemError``).
    public init(file: String, keyPath: String, problem: String, systemError: Int32? = nil) {
        (self.file, self.keyPath, self.problem, self.systemError) = (file, keyPath, problem, systemError)
    }

    /// `file: keyPath: problem`, or `file: problem` when there is no key path.
    public var description: String {
        keyPath.isEmpty ? "\(file): \(problem)" : "\(file): \(keyPath): \(problem)"
    }
}
