/// Why a catalog (`Catalog.json` or its `.storekit` file) was refused: one line naming the file,
/// the key path and the problem, e.g. `Catalog.json: entitlements.plus.products[1]: not a string`.
public struct CatalogError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file as the caller named it.
    public var file: String
    /// The key path inside the file; empty when the problem concerns the whole file.
    public var keyPath: String
    public var problem: String

    public init(file: String, keyPath: String, problem: String) {
        self.file = file
        self.keyPath = keyPath
        self.problem = problem
    }

    public var description: String {
        keyPath.isEmpty ? "\(file): \(problem)" : "\(file): \(keyPath): \(problem)"
    }
}
