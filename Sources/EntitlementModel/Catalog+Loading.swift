#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The only file of EntitlementModel that touches the file system.
extension Catalog {
    /// Reads `Catalog.json` at `path` and the `.storekit` file it names (relative to the catalog's
    /// directory), then decodes both with ``init(catalogJSON:storeKitJSON:catalogPath:)``.
    ///
    /// - Throws: ``CatalogError`` naming the file that is missing, unreadable or malformed.
    public static func load(path: String) throws(CatalogError) -> Catalog {
        let catalogJSON = try read(path)
        let storeKitFile = try storeKitPath(catalogJSON: catalogJSON, catalogPath: path)
        let storeKitJSON = try read(storeKitFile)
        return try Catalog(catalogJSON: catalogJSON, storeKitJSON: storeKitJSON, catalogPath: path)
    }

    private static func read(_ path: String) throws(CatalogError) -> Data {
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CatalogError(file: path, keyPath: "", problem: "no such file")
        }
        guard !isDirectory else { throw CatalogError(file: path, keyPath: "", problem: "is a directory, not a file") }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CatalogError(file: path, keyPath: "", problem: "cannot be read")
        }
    }
}
