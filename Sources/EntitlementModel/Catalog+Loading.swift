#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Catalog {
    /// Decodes the catalog whose `Catalog.json` is at `path`, with the files it names: the
    /// `.storekit` file (relative to the catalog's directory) and the certificate files its
    /// `trustedRoots` names, each obtained from `contents`, then decoded with
    /// ``init(catalogJSON:storeKitJSON:catalogPath:trustedRootFiles:)``. This module reads no
    /// file itself: the caller's `contents` does (the tools pass the file system's reader).
    ///
    /// - Parameters:
    ///   - path: where `Catalog.json` is; the other files are named relative to its directory.
    ///   - contents: the bytes of the file at a path, or a ``CatalogError`` naming it.
    /// - Throws: ``CatalogError`` naming the file that is missing, unreadable or malformed (a
    ///   trusted root that cannot be read names the catalog and its `trustedRoots` entry).
    public static func load(path: String, contents: (String) throws(CatalogError) -> Data) throws(CatalogError) -> Catalog {
        let catalogJSON = try contents(path)
        let storeKitFile = try storeKitPath(catalogJSON: catalogJSON, catalogPath: path)
        let storeKitJSON = try contents(storeKitFile)
        var rootFiles: [String: Data] = [:]
        for file in try trustedRootPaths(catalogJSON: catalogJSON, catalogPath: path) {
            rootFiles[file] = try? contents(file)
        }
        return try Catalog(catalogJSON: catalogJSON, storeKitJSON: storeKitJSON, catalogPath: path, trustedRootFiles: rootFiles)
    }
}
