#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The only file of EntitlementModel that touches the file system.
extension Catalog {
    /// Reads `Catalog.json` at `path` and the `.storekit` file it names (relative to the catalog's
    /// directory) and the certificate files its `trustedRoots` names, then decodes them with
    /// ``init(catalogJSON:storeKitJSON:catalogPath:trustedRootFiles:)``.
    ///
    /// - Throws: ``CatalogError`` naming the file that is missing, unreadable or malformed (a
    ///   trusted root that cannot be read names the catalog and its `trustedRoots` entry).
    public static func load(path: String) throws(CatalogError) -> Catalog {
        let catalogJSON = try read(path)
        let storeKitFile = try storeKitPath(catalogJSON: catalogJSON, catalogPath: path)
        let storeKitJSON = try read(storeKitFile)
        var rootFiles: [String: Data] = [:]
        for file in try trustedRootPaths(catalogJSON: catalogJSON, catalogPath: path) {
            rootFiles[file] = try? read(file)
        }
        return try Catalog(catalogJSON: catalogJSON, storeKitJSON: storeKitJSON, catalogPath: path, trustedRootFiles: rootFiles)
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
